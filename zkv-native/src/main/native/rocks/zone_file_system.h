// The rocksdb::FileSystem that stores RocksDB's files in zones (see zone_file_system.cc).
#ifndef ZKV_ZONE_FILE_SYSTEM_H
#define ZKV_ZONE_FILE_SYSTEM_H

#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "rocksdb/file_system.h"
#include "zonefs.h"

namespace zkv {
class LsmHintRegistry;

// "/a//b/" -> "/a/b": the zone file system's name for a path RocksDB built by concatenation.
std::string Normalize(const std::string& p);

class ZoneFileSystem : public rocksdb::FileSystem {
 public:
  // Over a mounted file system that `owner` keeps mounted (jni/mounted_zone_fs.h) while this lives:
  // RocksDB may hold the FileSystem after the Env and the Java side are gone.
  ZoneFileSystem(zfs* fs, std::shared_ptr<void> owner);
  const char* Name() const override { return "ZkvZoneFileSystem"; }
  zfs* zone_fs() { return fs_; }
  // The device's LSM hints: a compaction's output files allocate from their own reserve tier.
  void SetHints(std::shared_ptr<LsmHintRegistry> hints) { hints_ = std::move(hints); }

  // Which database a caller opens next: the next database this thread locks (RocksDB's open takes
  // its LOCK on the opening thread) is recorded under `token` until it unlocks. Lets a Kafka
  // Streams config setter, which runs on the stream thread just before the open, learn the store's
  // directory (its task) without Streams' internals. Token 0 forgets.
  void ExpectOpen(uint64_t token);
  // The directory of the database opened under `token`, "" if none is open under it.
  std::string OpenedDir(uint64_t token);
  // The directories of the databases open on this file system (holding their LOCK).
  std::vector<std::string> LockedDatabases();

  rocksdb::IOStatus NewSequentialFile(const std::string& fname, const rocksdb::FileOptions& o,
                                      std::unique_ptr<rocksdb::FSSequentialFile>* result,
                                      rocksdb::IODebugContext* dbg) override;
  rocksdb::IOStatus NewRandomAccessFile(const std::string& fname, const rocksdb::FileOptions& o,
                                        std::unique_ptr<rocksdb::FSRandomAccessFile>* result,
                                        rocksdb::IODebugContext* dbg) override;
  rocksdb::IOStatus NewWritableFile(const std::string& fname, const rocksdb::FileOptions& o,
                                    std::unique_ptr<rocksdb::FSWritableFile>* result,
                                    rocksdb::IODebugContext* dbg) override;
  rocksdb::IOStatus ReopenWritableFile(const std::string& fname, const rocksdb::FileOptions& o,
                                       std::unique_ptr<rocksdb::FSWritableFile>* result,
                                       rocksdb::IODebugContext* dbg) override;
  rocksdb::IOStatus NewDirectory(const std::string& name, const rocksdb::IOOptions& o,
                                 std::unique_ptr<rocksdb::FSDirectory>* result, rocksdb::IODebugContext* dbg) override;
  rocksdb::IOStatus FileExists(const std::string& fname, const rocksdb::IOOptions& o,
                               rocksdb::IODebugContext* dbg) override;
  rocksdb::IOStatus GetChildren(const std::string& dir, const rocksdb::IOOptions& o, std::vector<std::string>* result,
                                rocksdb::IODebugContext* dbg) override;
  rocksdb::IOStatus DeleteFile(const std::string& fname, const rocksdb::IOOptions& o,
                               rocksdb::IODebugContext* dbg) override;
  rocksdb::IOStatus CreateDir(const std::string& dirname, const rocksdb::IOOptions& o,
                              rocksdb::IODebugContext* dbg) override;
  rocksdb::IOStatus CreateDirIfMissing(const std::string& dirname, const rocksdb::IOOptions& o,
                                       rocksdb::IODebugContext* dbg) override;
  rocksdb::IOStatus DeleteDir(const std::string& dirname, const rocksdb::IOOptions& o,
                              rocksdb::IODebugContext* dbg) override;
  rocksdb::IOStatus GetFileSize(const std::string& fname, const rocksdb::IOOptions& o, uint64_t* size,
                                rocksdb::IODebugContext* dbg) override;
  rocksdb::IOStatus GetFileModificationTime(const std::string& fname, const rocksdb::IOOptions& o, uint64_t* mtime,
                                            rocksdb::IODebugContext* dbg) override;
  rocksdb::IOStatus RenameFile(const std::string& src, const std::string& target, const rocksdb::IOOptions& o,
                               rocksdb::IODebugContext* dbg) override;
  rocksdb::IOStatus LinkFile(const std::string& src, const std::string& target, const rocksdb::IOOptions& o,
                             rocksdb::IODebugContext* dbg) override;
  rocksdb::IOStatus LockFile(const std::string& fname, const rocksdb::IOOptions& o, rocksdb::FileLock** lock,
                             rocksdb::IODebugContext* dbg) override;
  rocksdb::IOStatus UnlockFile(rocksdb::FileLock* lock, const rocksdb::IOOptions& o,
                               rocksdb::IODebugContext* dbg) override;
  rocksdb::IOStatus GetTestDirectory(const rocksdb::IOOptions& o, std::string* path,
                                     rocksdb::IODebugContext* dbg) override;
  rocksdb::IOStatus GetAbsolutePath(const std::string& db_path, const rocksdb::IOOptions& o, std::string* output_path,
                                    rocksdb::IODebugContext* dbg) override;
  rocksdb::IOStatus IsDirectory(const std::string& path, const rocksdb::IOOptions& o, bool* is_dir,
                                rocksdb::IODebugContext* dbg) override;
  rocksdb::IOStatus GetFreeSpace(const std::string& path, const rocksdb::IOOptions& o, uint64_t* diskfree,
                                 rocksdb::IODebugContext* dbg) override;

 private:
  bool DirExists(const std::string& dir);
  bool IsOpeningWal(const std::string& name);
  void EndOpen(const std::string& dir);

  zfs* fs_;
  std::shared_ptr<void> owner_;
  std::shared_ptr<LsmHintRegistry> hints_;
  std::mutex mu_;
  std::set<std::string> dirs_;
  std::set<std::string> locks_;
  // Databases whose open took the LOCK and has not ended: directory -> the WAL it created ("": none
  // yet; ZFS_SPACE_OPENING_WAL)
  std::map<std::string, std::string> opening_;
  std::map<uint64_t, std::string> opened_;  // ExpectOpen token -> database directory
};

}  // namespace zkv
#endif

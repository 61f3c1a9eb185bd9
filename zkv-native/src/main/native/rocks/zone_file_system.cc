// rocksdb::FileSystem over zkv's zone file system (zonefs/): every file RocksDB creates, the info
// LOG included, lives in zones; nothing lands on the host file system. Directories exist in memory
// (created ones plus those implied by file names): the zone file system's namespace is flat.
#include "zone_file_system.h"

#include <cerrno>
#include <cstring>
#include <mutex>
#include <set>
#include <string>
#include <vector>

namespace zkv {

using rocksdb::FileOptions;
using rocksdb::IODebugContext;
using rocksdb::IOOptions;
using rocksdb::IOStatus;
using rocksdb::Slice;

namespace {

IOStatus ToStatus(int rc, const std::string& what) {
  if (rc >= 0) return IOStatus::OK();
  std::string msg = what + ": " + std::strerror(-rc);
  if (rc == -ENOENT) return IOStatus::PathNotFound(msg);
  if (rc == -ENOSPC) return IOStatus::NoSpace(msg);
  return IOStatus::IOError(msg);
}

// "/a//b/" -> "/a/b": RocksDB joins paths by concatenation.
std::string Normalize(const std::string& p) {
  std::string out;
  out.reserve(p.size());
  for (char c : p) {
    if (c == '/' && !out.empty() && out.back() == '/') continue;
    out.push_back(c);
  }
  while (out.size() > 1 && out.back() == '/') out.pop_back();
  return out;
}

class ZoneSequentialFile : public rocksdb::FSSequentialFile {
 public:
  explicit ZoneSequentialFile(zfs_file* f) : f_(f) {}
  ~ZoneSequentialFile() override { zfs_close(f_); }
  IOStatus Read(size_t n, const IOOptions&, Slice* result, char* scratch, IODebugContext*) override {
    int64_t got = zfs_pread(f_, pos_, scratch, n);
    if (got < 0) return ToStatus(static_cast<int>(got), "read");
    pos_ += static_cast<uint64_t>(got);
    *result = Slice(scratch, static_cast<size_t>(got));
    return IOStatus::OK();
  }
  IOStatus PositionedRead(uint64_t offset, size_t n, const IOOptions&, Slice* result, char* scratch,
                          IODebugContext*) override {
    int64_t got = zfs_pread(f_, offset, scratch, n);
    if (got < 0) return ToStatus(static_cast<int>(got), "read");
    *result = Slice(scratch, static_cast<size_t>(got));
    return IOStatus::OK();
  }
  IOStatus Skip(uint64_t n) override {
    uint64_t size = zfs_file_size(f_);
    pos_ = pos_ + n > size ? size : pos_ + n;
    return IOStatus::OK();
  }

 private:
  zfs_file* f_;
  uint64_t pos_ = 0;
};

class ZoneRandomAccessFile : public rocksdb::FSRandomAccessFile {
 public:
  explicit ZoneRandomAccessFile(zfs_file* f) : f_(f) {}
  ~ZoneRandomAccessFile() override { zfs_close(f_); }
  IOStatus Read(uint64_t offset, size_t n, const IOOptions&, Slice* result, char* scratch,
                IODebugContext*) const override {
    int64_t got = zfs_pread(f_, offset, scratch, n);
    if (got < 0) return ToStatus(static_cast<int>(got), "read");
    *result = Slice(scratch, static_cast<size_t>(got));
    return IOStatus::OK();
  }

 private:
  zfs_file* f_;
};

class ZoneWritableFile : public rocksdb::FSWritableFile {
 public:
  ZoneWritableFile(zfs_file* f, const FileOptions& o) : FSWritableFile(o), f_(f) {}
  ~ZoneWritableFile() override {
    if (f_) zfs_close(f_);
  }
  IOStatus Append(const Slice& data, const IOOptions&, IODebugContext*) override {
    if (!f_) return IOStatus::IOError("append to a closed file");
    return ToStatus(zfs_append(f_, data.data(), data.size()), "append");
  }
  // Data waits in the zone file system's write buffer until Sync (or a full buffer).
  IOStatus Flush(const IOOptions&, IODebugContext*) override { return IOStatus::OK(); }
  IOStatus Sync(const IOOptions&, IODebugContext*) override {
    if (!f_) return IOStatus::IOError("sync of a closed file");
    return ToStatus(zfs_sync(f_), "sync");
  }
  IOStatus Fsync(const IOOptions& o, IODebugContext* d) override { return Sync(o, d); }
  IOStatus Close(const IOOptions&, IODebugContext*) override {
    if (!f_) return IOStatus::OK();
    int rc = zfs_close(f_);
    f_ = nullptr;
    return ToStatus(rc, "close");
  }
  uint64_t GetFileSize(const IOOptions&, IODebugContext*) override { return f_ ? zfs_file_size(f_) : 0; }
  void SetWriteLifeTimeHint(rocksdb::Env::WriteLifeTimeHint hint) override {
    FSWritableFile::SetWriteLifeTimeHint(hint);
    if (f_) zfs_set_lifetime(f_, static_cast<uint32_t>(hint));
  }
  bool IsSyncThreadSafe() const override { return false; }

 private:
  zfs_file* f_;
};

class ZoneDirectory : public rocksdb::FSDirectory {
 public:
  // Every namespace change is already durable in the metadata log.
  IOStatus Fsync(const IOOptions&, IODebugContext*) override { return IOStatus::OK(); }
  IOStatus Close(const IOOptions&, IODebugContext*) override { return IOStatus::OK(); }
};

class ZoneFileLock : public rocksdb::FileLock {
 public:
  explicit ZoneFileLock(std::string name) : name(std::move(name)) {}
  std::string name;
};

void CollectName(const char* name, uint64_t, void* arg) {
  static_cast<std::vector<std::string>*>(arg)->emplace_back(name);
}

}  // namespace

ZoneFileSystem::ZoneFileSystem(zfs* fs) : fs_(fs) {}

ZoneFileSystem::~ZoneFileSystem() { zfs_unmount(fs_); }

IOStatus ZoneFileSystem::NewSequentialFile(const std::string& fname, const FileOptions&,
                                           std::unique_ptr<rocksdb::FSSequentialFile>* result, IODebugContext*) {
  int rc = 0;
  zfs_file* f = zfs_open(fs_, Normalize(fname).c_str(), &rc);
  if (!f) return ToStatus(rc, fname);
  result->reset(new ZoneSequentialFile(f));
  return IOStatus::OK();
}

IOStatus ZoneFileSystem::NewRandomAccessFile(const std::string& fname, const FileOptions&,
                                             std::unique_ptr<rocksdb::FSRandomAccessFile>* result, IODebugContext*) {
  int rc = 0;
  zfs_file* f = zfs_open(fs_, Normalize(fname).c_str(), &rc);
  if (!f) return ToStatus(rc, fname);
  result->reset(new ZoneRandomAccessFile(f));
  return IOStatus::OK();
}

IOStatus ZoneFileSystem::NewWritableFile(const std::string& fname, const FileOptions& o,
                                         std::unique_ptr<rocksdb::FSWritableFile>* result, IODebugContext*) {
  int rc = 0;
  zfs_file* f = zfs_create(fs_, Normalize(fname).c_str(), 0, &rc);
  if (!f) return ToStatus(rc, fname);
  result->reset(new ZoneWritableFile(f, o));
  return IOStatus::OK();
}

IOStatus ZoneFileSystem::ReopenWritableFile(const std::string& fname, const FileOptions& o,
                                            std::unique_ptr<rocksdb::FSWritableFile>* result, IODebugContext* dbg) {
  int rc = 0;
  zfs_file* f = zfs_reopen(fs_, Normalize(fname).c_str(), &rc);
  if (!f && rc == -ENOENT) return NewWritableFile(fname, o, result, dbg);
  if (!f) return ToStatus(rc, fname);
  result->reset(new ZoneWritableFile(f, o));
  return IOStatus::OK();
}

IOStatus ZoneFileSystem::NewDirectory(const std::string& name, const IOOptions&,
                                      std::unique_ptr<rocksdb::FSDirectory>* result, IODebugContext*) {
  if (!DirExists(Normalize(name))) return IOStatus::PathNotFound(name);
  result->reset(new ZoneDirectory());
  return IOStatus::OK();
}

bool ZoneFileSystem::DirExists(const std::string& dir) {
  {
    std::lock_guard<std::mutex> l(mu_);
    if (dirs_.count(dir)) return true;
  }
  std::vector<std::string> names;
  zfs_list(fs_, (dir == "/" ? dir : dir + "/").c_str(), CollectName, &names);
  return !names.empty();
}

IOStatus ZoneFileSystem::FileExists(const std::string& fname, const IOOptions&, IODebugContext*) {
  std::string n = Normalize(fname);
  if (zfs_stat(fs_, n.c_str(), nullptr) == 0 || DirExists(n)) return IOStatus::OK();
  return IOStatus::NotFound(fname);
}

IOStatus ZoneFileSystem::GetChildren(const std::string& dir, const IOOptions&, std::vector<std::string>* result,
                                     IODebugContext*) {
  std::string d = Normalize(dir);
  if (!DirExists(d)) return IOStatus::PathNotFound(dir);
  std::string prefix = d == "/" ? d : d + "/";
  std::vector<std::string> names;
  zfs_list(fs_, prefix.c_str(), CollectName, &names);
  std::set<std::string> children;
  for (const auto& n : names) {
    std::string rest = n.substr(prefix.size());
    children.insert(rest.substr(0, rest.find('/')));
  }
  {
    std::lock_guard<std::mutex> l(mu_);
    for (const auto& sub : dirs_)
      if (sub.size() > prefix.size() && sub.compare(0, prefix.size(), prefix) == 0) {
        std::string rest = sub.substr(prefix.size());
        children.insert(rest.substr(0, rest.find('/')));
      }
  }
  result->assign(children.begin(), children.end());
  return IOStatus::OK();
}

IOStatus ZoneFileSystem::DeleteFile(const std::string& fname, const IOOptions&, IODebugContext*) {
  return ToStatus(zfs_delete(fs_, Normalize(fname).c_str()), "delete " + fname);
}

IOStatus ZoneFileSystem::CreateDir(const std::string& dirname, const IOOptions& o, IODebugContext* d) {
  if (DirExists(Normalize(dirname))) return IOStatus::IOError(dirname + ": directory exists");
  return CreateDirIfMissing(dirname, o, d);
}

IOStatus ZoneFileSystem::CreateDirIfMissing(const std::string& dirname, const IOOptions&, IODebugContext*) {
  std::lock_guard<std::mutex> l(mu_);
  dirs_.insert(Normalize(dirname));
  return IOStatus::OK();
}

IOStatus ZoneFileSystem::DeleteDir(const std::string& dirname, const IOOptions&, IODebugContext*) {
  std::string d = Normalize(dirname);
  std::vector<std::string> names;
  zfs_list(fs_, (d + "/").c_str(), CollectName, &names);
  if (!names.empty()) return IOStatus::IOError(dirname + ": directory not empty");
  std::lock_guard<std::mutex> l(mu_);
  dirs_.erase(d);
  return IOStatus::OK();
}

IOStatus ZoneFileSystem::GetFileSize(const std::string& fname, const IOOptions&, uint64_t* size, IODebugContext*) {
  return ToStatus(zfs_stat(fs_, Normalize(fname).c_str(), size), fname);
}

IOStatus ZoneFileSystem::GetFileModificationTime(const std::string& fname, const IOOptions&, uint64_t* mtime,
                                                 IODebugContext*) {
  int rc = zfs_stat(fs_, Normalize(fname).c_str(), nullptr);
  if (rc) return ToStatus(rc, fname);
  *mtime = 0;  // assumption: RocksDB uses this only for TTL-based deletion of obsolete files
  return IOStatus::OK();
}

IOStatus ZoneFileSystem::RenameFile(const std::string& src, const std::string& target, const IOOptions&,
                                    IODebugContext*) {
  return ToStatus(zfs_rename(fs_, Normalize(src).c_str(), Normalize(target).c_str()), "rename " + src);
}

IOStatus ZoneFileSystem::LinkFile(const std::string& src, const std::string& target, const IOOptions&,
                                  IODebugContext*) {
  return ToStatus(zfs_link(fs_, Normalize(src).c_str(), Normalize(target).c_str()), "link " + src);
}

IOStatus ZoneFileSystem::LockFile(const std::string& fname, const IOOptions&, rocksdb::FileLock** lock,
                                  IODebugContext*) {
  std::string n = Normalize(fname);
  std::lock_guard<std::mutex> l(mu_);
  if (!locks_.insert(n).second) return IOStatus::IOError("lock " + fname + ": already held by this process");
  *lock = new ZoneFileLock(n);
  return IOStatus::OK();
}

IOStatus ZoneFileSystem::UnlockFile(rocksdb::FileLock* lock, const IOOptions&, IODebugContext*) {
  auto* l = static_cast<ZoneFileLock*>(lock);
  {
    std::lock_guard<std::mutex> g(mu_);
    locks_.erase(l->name);
  }
  delete l;
  return IOStatus::OK();
}

IOStatus ZoneFileSystem::GetTestDirectory(const IOOptions&, std::string* path, IODebugContext*) {
  *path = "/zkv-test";
  return IOStatus::OK();
}

IOStatus ZoneFileSystem::GetAbsolutePath(const std::string& db_path, const IOOptions&, std::string* output_path,
                                         IODebugContext*) {
  *output_path = db_path.empty() || db_path[0] != '/' ? "/" + db_path : db_path;
  return IOStatus::OK();
}

IOStatus ZoneFileSystem::IsDirectory(const std::string& path, const IOOptions&, bool* is_dir, IODebugContext*) {
  std::string n = Normalize(path);
  if (zfs_stat(fs_, n.c_str(), nullptr) == 0) {
    *is_dir = false;
    return IOStatus::OK();
  }
  if (DirExists(n)) {
    *is_dir = true;
    return IOStatus::OK();
  }
  return IOStatus::NotFound(path);
}

IOStatus ZoneFileSystem::GetFreeSpace(const std::string&, const IOOptions&, uint64_t* diskfree, IODebugContext*) {
  *diskfree = zfs_free_bytes(fs_);
  return IOStatus::OK();
}

}  // namespace zkv

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

#include "lsm_hints.h"

namespace zkv {

// "/a//b/" -> "/a/b", "/a/./b" -> "/a/b", "/a/x/../b" -> "/a/b": RocksDB joins paths by
// concatenation, and a user may name one directory several ways; the zone file system's names
// (and its database locks) must be the same for all of them. Lexical: the namespace has no links.
std::string Normalize(const std::string& p) {
  bool absolute = !p.empty() && p[0] == '/';
  std::vector<std::string> parts;
  size_t i = 0;
  while (i <= p.size()) {
    size_t j = p.find('/', i);
    if (j == std::string::npos) j = p.size();
    std::string part = p.substr(i, j - i);
    if (part == "..") {
      if (!parts.empty() && parts.back() != "..") {
        parts.pop_back();
      } else if (!absolute) {
        parts.push_back(part);  // above a relative start: kept (nothing to resolve it against)
      }
    } else if (!part.empty() && part != ".") {
      parts.push_back(part);
    }
    i = j + 1;
  }
  std::string out = absolute ? "/" : "";
  for (size_t k = 0; k < parts.size(); k++) out += (k ? "/" : "") + parts[k];
  return out;
}

using rocksdb::FileOptions;
using rocksdb::IODebugContext;
using rocksdb::IOOptions;
using rocksdb::IOStatus;
using rocksdb::Slice;

namespace {
// The directory of a file (a LOCK, a WAL, an OPTIONS file).
std::string DirOf(const std::string& name) { return name.substr(0, name.rfind('/')); }

// RocksDB's OPTIONS file, as DB::Open writes it (OPTIONS-NNNNNN.dbtmp, renamed after).
bool IsOptionsFile(const std::string& name) { return name.compare(name.rfind('/') + 1, 8, "OPTIONS-") == 0; }

IOStatus ToStatus(int rc, const std::string& what) {
  if (rc >= 0) return IOStatus::OK();
  std::string msg = what + ": " + zkv_status_message(rc);  // NVMe statuses named, not "Unknown error 65976"
  if (rc == -ENOENT) return IOStatus::PathNotFound(msg);
  if (rc == -ENOSPC) return IOStatus::NoSpace(msg);
  return IOStatus::IOError(msg);
}

// Alignment RocksDB uses for its buffers in direct mode: the device block, at least RocksDB's page.
size_t BufferAlignment(zfs* fs) {
  zfs_superblock sb;
  zfs_superblock_get(fs, &sb);
  return sb.block_size > rocksdb::kDefaultPageSize ? sb.block_size : rocksdb::kDefaultPageSize;
}

// Reads always go to the device (the zone file system has no page cache); "direct" only tells
// RocksDB to use aligned buffers and to do its own read-ahead, as it asked with use_direct_reads.
class ZoneSequentialFile : public rocksdb::FSSequentialFile {
 public:
  ZoneSequentialFile(zfs_file* f, bool direct, size_t alignment) : f_(f), direct_(direct), alignment_(alignment) {}
  ~ZoneSequentialFile() override { zfs_close(f_); }
  bool use_direct_io() const override { return direct_; }
  size_t GetRequiredBufferAlignment() const override { return alignment_; }
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
  bool direct_;
  size_t alignment_;
  uint64_t pos_ = 0;
};

class ZoneRandomAccessFile : public rocksdb::FSRandomAccessFile {
 public:
  ZoneRandomAccessFile(zfs_file* f, bool direct, size_t alignment) : f_(f), direct_(direct), alignment_(alignment) {}
  ~ZoneRandomAccessFile() override { zfs_close(f_); }
  bool use_direct_io() const override { return direct_; }
  size_t GetRequiredBufferAlignment() const override { return alignment_; }
  IOStatus Read(uint64_t offset, size_t n, const IOOptions&, Slice* result, char* scratch,
                IODebugContext*) const override {
    int64_t got = zfs_pread(f_, offset, scratch, n);
    if (got < 0) return ToStatus(static_cast<int>(got), "read");
    *result = Slice(scratch, static_cast<size_t>(got));
    return IOStatus::OK();
  }

 private:
  zfs_file* f_;
  bool direct_;
  size_t alignment_;
};

class ZoneWritableFile : public rocksdb::FSWritableFile {
 public:
  // `name`: for error messages ("sync /db/MANIFEST-000009: No space left ..."), so a failure says
  // which file met it.
  ZoneWritableFile(zfs_file* f, const FileOptions& o, size_t alignment, std::string name)
      : FSWritableFile(o), f_(f), direct_(o.use_direct_writes), alignment_(alignment), name_(std::move(name)) {}
  ~ZoneWritableFile() override {
    if (f_) zfs_close(f_);
  }
  bool use_direct_io() const override { return direct_; }
  size_t GetRequiredBufferAlignment() const override { return alignment_; }

  // Direct mode (use_direct_io_for_flush_and_compaction): RocksDB writes whole, zero-padded blocks
  // with PositionedAppend, writes the last partial block again at the same offset on its next
  // write, and cuts the padding with Truncate before the final Fsync. Zones are append-only, so
  // the last block of each positioned write waits here (pending_) until a later write moves past
  // it or Truncate says how much of it is data. Durable at Fsync, as RocksDB expects.
  IOStatus PositionedAppend(const Slice& data, uint64_t offset, const IOOptions&, IODebugContext*) override {
    if (!f_) return IOStatus::IOError("append to a closed file");
    uint64_t committed = zfs_file_size(f_);
    if (offset == committed + pending_.size()) {
      IOStatus s = CommitPending(pending_.size());  // the previous last block was whole data
      if (!s.ok()) return s;
    } else if (offset == committed) {
      pending_.clear();  // the previous last block is being rewritten
    } else {
      return IOStatus::IOError("positioned append at " + std::to_string(offset) + ", expected " +
                               std::to_string(committed) + " or " + std::to_string(committed + pending_.size()) +
                               " (zones are append-only)");
    }
    size_t keep = data.size() < alignment_ ? data.size() : alignment_;
    int rc = zfs_append(f_, data.data(), data.size() - keep);
    if (rc) return ToStatus(rc, "append " + name_);
    pending_.assign(data.data() + data.size() - keep, keep);
    return IOStatus::OK();
  }
  IOStatus Truncate(uint64_t size, const IOOptions&, IODebugContext*) override {
    if (!f_) return IOStatus::IOError("truncate of a closed file");
    uint64_t committed = zfs_file_size(f_);
    if (size < committed || size > committed + pending_.size())
      return IOStatus::NotSupported("truncate to " + std::to_string(size) + " of a zone file with " +
                                    std::to_string(committed) + " bytes written (only the pending tail can be cut)");
    return CommitPending(static_cast<size_t>(size - committed));
  }
  IOStatus Append(const Slice& data, const IOOptions&, IODebugContext*) override {
    if (!f_) return IOStatus::IOError("append to a closed file");
    return ToStatus(zfs_append(f_, data.data(), data.size()), "append " + name_);
  }
  // Data waits in the zone file system's write buffer until Sync (or a full buffer).
  IOStatus Flush(const IOOptions&, IODebugContext*) override { return IOStatus::OK(); }
  IOStatus Sync(const IOOptions&, IODebugContext*) override {
    if (!f_) return IOStatus::IOError("sync of a closed file");
    return ToStatus(zfs_sync(f_), "sync " + name_);
  }
  IOStatus Fsync(const IOOptions& o, IODebugContext* d) override { return Sync(o, d); }
  IOStatus Close(const IOOptions&, IODebugContext*) override {
    if (!f_) return IOStatus::OK();
    IOStatus s = CommitPending(pending_.size());  // never truncated: keep every byte written
    int rc = zfs_close(f_);
    f_ = nullptr;
    return s.ok() ? ToStatus(rc, "close " + name_) : s;
  }
  uint64_t GetFileSize(const IOOptions&, IODebugContext*) override {
    return f_ ? zfs_file_size(f_) + pending_.size() : 0;
  }
  void SetWriteLifeTimeHint(rocksdb::Env::WriteLifeTimeHint hint) override {
    FSWritableFile::SetWriteLifeTimeHint(hint);
    if (f_) zfs_set_lifetime(f_, static_cast<uint32_t>(hint));
  }
  bool IsSyncThreadSafe() const override { return false; }

 private:
  IOStatus CommitPending(size_t n) {
    int rc = n ? zfs_append(f_, pending_.data(), n) : 0;
    pending_.clear();
    return ToStatus(rc, "append " + name_);
  }

  zfs_file* f_;
  bool direct_;
  size_t alignment_;
  std::string pending_;  // direct mode: the last block RocksDB may still rewrite or truncate
  std::string name_;
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

ZoneFileSystem::ZoneFileSystem(zfs* fs, std::shared_ptr<void> owner) : fs_(fs), owner_(std::move(owner)) {}

IOStatus ZoneFileSystem::NewSequentialFile(const std::string& fname, const FileOptions& o,
                                           std::unique_ptr<rocksdb::FSSequentialFile>* result, IODebugContext*) {
  int rc = 0;
  zfs_file* f = zfs_open(fs_, Normalize(fname).c_str(), &rc);
  if (!f) return ToStatus(rc, fname);
  result->reset(new ZoneSequentialFile(f, o.use_direct_reads, BufferAlignment(fs_)));
  return IOStatus::OK();
}

IOStatus ZoneFileSystem::NewRandomAccessFile(const std::string& fname, const FileOptions& o,
                                             std::unique_ptr<rocksdb::FSRandomAccessFile>* result, IODebugContext*) {
  int rc = 0;
  zfs_file* f = zfs_open(fs_, Normalize(fname).c_str(), &rc);
  if (!f) return ToStatus(rc, fname);
  result->reset(new ZoneRandomAccessFile(f, o.use_direct_reads, BufferAlignment(fs_)));
  return IOStatus::OK();
}

IOStatus ZoneFileSystem::NewWritableFile(const std::string& fname, const FileOptions& o,
                                         std::unique_ptr<rocksdb::FSWritableFile>* result, IODebugContext*) {
  int rc = 0;
  std::string name = Normalize(fname);
  zfs_file* f = zfs_create(fs_, name.c_str(), 0, &rc);
  if (!f) return ToStatus(rc, fname);
  LsmFileHint hint;
  if (hints_ && hints_->Lookup(name, &hint)) {  // which tier of the space reserve it stops at
    if (hint.compaction)
      zfs_set_space_class(f, hint.manual ? ZFS_SPACE_MANUAL_COMPACTION : ZFS_SPACE_COMPACTION);
    else if (hint.recovery)
      zfs_set_space_class(f, ZFS_SPACE_RECOVERY_FLUSH);
  } else if (IsOpeningWal(name)) {
    zfs_set_space_class(f, ZFS_SPACE_OPENING_WAL);
  } else if (IsOptionsFile(name)) {
    EndOpen(DirOf(name));
  }
  result->reset(new ZoneWritableFile(f, o, BufferAlignment(fs_), name));
  return IOStatus::OK();
}

IOStatus ZoneFileSystem::ReopenWritableFile(const std::string& fname, const FileOptions& o,
                                            std::unique_ptr<rocksdb::FSWritableFile>* result, IODebugContext* dbg) {
  int rc = 0;
  std::string name = Normalize(fname);
  zfs_file* f = zfs_reopen(fs_, name.c_str(), &rc);
  if (!f && rc == -ENOENT) return NewWritableFile(fname, o, result, dbg);
  if (!f) return ToStatus(rc, fname);
  result->reset(new ZoneWritableFile(f, o, BufferAlignment(fs_), name));
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

namespace {
// The ExpectOpen of the calling thread: which file system, and the token (0: none).
thread_local const ZoneFileSystem* expecting_fs = nullptr;
thread_local uint64_t expecting_token = 0;

}  // namespace

void ZoneFileSystem::ExpectOpen(uint64_t token) {
  expecting_fs = this;
  expecting_token = token;
}

std::string ZoneFileSystem::OpenedDir(uint64_t token) {
  std::lock_guard<std::mutex> l(mu_);
  auto it = opened_.find(token);
  return it == opened_.end() ? "" : it->second;
}

// A database's open, as its file system sees it: the LOCK taken, the WAL created (DBImpl::Open
// creates it right after replaying the old WALs: RocksDB 9.7 and 10.1), the OPTIONS file written
// (every open writes one, after the WAL's first record), or the LOCK released when the open fails.
// An open that found a torn WAL tail writes and syncs a record into its new WAL before the
// replayed WALs are deleted, so that WAL takes its first zone at the replaying flush's tier of the
// space reserve (ZFS_SPACE_OPENING_WAL) until the open ends.
bool ZoneFileSystem::IsOpeningWal(const std::string& name) {
  size_t n = name.size();
  if (n <= 4 || name.compare(n - 4, 4, ".log") != 0) return false;
  std::lock_guard<std::mutex> l(mu_);
  auto it = opening_.find(DirOf(name));
  if (it == opening_.end() || !it->second.empty()) return false;
  it->second = name;
  return true;
}

void ZoneFileSystem::EndOpen(const std::string& dir) {
  std::string wal;
  {
    std::lock_guard<std::mutex> l(mu_);
    auto it = opening_.find(dir);
    if (it == opening_.end()) return;
    wal = it->second;
    opening_.erase(it);
  }
  if (!wal.empty()) zfs_end_opening_wal(fs_, wal.c_str());  // after mu_: it takes the zones' lock
}

IOStatus ZoneFileSystem::LockFile(const std::string& fname, const IOOptions&, rocksdb::FileLock** lock,
                                  IODebugContext*) {
  std::string n = Normalize(fname);
  std::lock_guard<std::mutex> l(mu_);
  if (!locks_.insert(n).second) return IOStatus::IOError("lock " + fname + ": already held by this process");
  opening_[DirOf(n)] = "";
  if (expecting_fs == this && expecting_token != 0) {
    opened_[expecting_token] = DirOf(n);
    expecting_token = 0;
  }
  *lock = new ZoneFileLock(n);
  return IOStatus::OK();
}

std::vector<std::string> ZoneFileSystem::LockedDatabases() {
  std::lock_guard<std::mutex> l(mu_);
  std::vector<std::string> dirs;
  for (const auto& name : locks_) dirs.push_back(DirOf(name));
  return dirs;
}

IOStatus ZoneFileSystem::UnlockFile(rocksdb::FileLock* lock, const IOOptions&, IODebugContext*) {
  auto* l = static_cast<ZoneFileLock*>(lock);
  {
    std::lock_guard<std::mutex> g(mu_);
    locks_.erase(l->name);
    std::string dir = DirOf(l->name);
    for (auto it = opened_.begin(); it != opened_.end();) it = it->second == dir ? opened_.erase(it) : std::next(it);
  }
  EndOpen(DirOf(l->name));  // a failed open
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

// Not supported on purpose: when GetFreeSpace works, RocksDB answers a NoSpace in a background
// flush by stalling every writer while its SstFileManager polls for free space, which on zones
// only GC makes, and GC runs on allocation: writers would wait forever. With NotSupported, RocksDB
// reports the NoSpace to writers (ErrorHandler::OverrideNoSpaceError), and ZkvDb.resume() frees
// space with GC and reopens. Free space is in ZoneFs.stats() and `zkv df`.
IOStatus ZoneFileSystem::GetFreeSpace(const std::string&, const IOOptions&, uint64_t*, IODebugContext*) {
  return IOStatus::NotSupported("free space of a zoned device: see ZoneFs.stats()");
}

}  // namespace zkv

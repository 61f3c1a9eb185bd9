// A full device stops a database's writes instead of slowing them to a crawl.
//
// RocksDB rates a compaction's NoSpace a soft error: writes and flushes go on and the compaction is
// retried every second. On zones a compaction meets NoSpace while flushes still have room (the
// file system keeps a larger reserve for compactions than for flushes, docs/zone-fs.md
// "Reserves"), so L0 grows past level0_slowdown_writes_trigger and RocksDB slows every write, down
// to 16 KB/s: a put took minutes, which looks like a hang. While RocksDB is slowing or stopping the
// database's writes, this rule rates the compaction's NoSpace a hard error instead: writes fail at
// once with NoSpace, as a full disk's do, and ZkvDb.resume() (or a reopen) follows a freeing of
// space. A compaction NoSpace on a database whose writes run normally stays soft, so a database
// reopened on a full device still takes the deletes that free it.
#ifndef ZKV_ROCKS_STALLED_NO_SPACE_H
#define ZKV_ROCKS_STALLED_NO_SPACE_H

#include <mutex>
#include <set>
#include <string>

#include "rocksdb/listener.h"

namespace zkv {

class StalledNoSpaceRule {
 public:
  // OnStallConditionsChanged: which column families RocksDB slows or stops now.
  void StallChanged(const rocksdb::WriteStallInfo& info);
  // OnBackgroundError: a compaction's NoSpace on a stalled database becomes a hard error.
  void Rate(rocksdb::BackgroundErrorReason reason, rocksdb::Status* bg_error);

 private:
  std::mutex mu_;
  std::set<std::string> stalled_;  // column families whose writes are delayed or stopped
};

}  // namespace zkv

#endif

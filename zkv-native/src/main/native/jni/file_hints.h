// What the placement call-outs know of a file beyond its name: the LSM hints RocksDB's listener
// gathers (rocks/lsm_hints.h), behind an interface that needs no RocksDB header, so that the zone
// file system's JNI (jni/) builds its views without knowing who supplies them.
#ifndef ZKV_FILE_HINTS_H
#define ZKV_FILE_HINTS_H

#include <cstdint>
#include <string>
#include <vector>

namespace zkv {

struct LsmFileHint {
  int level = -1;                   // -1: unknown
  int64_t job_id = -1;              // the job writing the file; -1 once RocksDB lists it as live, or unknown
  bool compaction = false;          // written by a compaction (its inputs are deleted after)
  bool manual = false;              // ... that the user asked for (CompactRange: to free space)
  bool recovery = false;            // the flush that replays a WAL when the database opens
  std::vector<std::string> inputs;  // a compaction output's input files (paths)
  bool has_range = false;
  // User keys. Before the file is written: the union of its compaction's inputs (unknown for a
  // flush); once RocksDB lists the file as live: its own smallest and largest key. Ordered
  // bytewise (RocksDB's default comparator; a custom comparator's order is not known here).
  std::string smallest, largest;
};

class FileHints {
 public:
  virtual ~FileHints() = default;
  // False when nothing is known about `path`. Safe to call from any thread.
  virtual bool Lookup(const std::string& path, LsmFileHint* out) const = 0;
};

}  // namespace zkv

#endif

// Builds the ZKV_BND_ZONE_VIEW buffer (jni/boundary.h) a placement or victim call-out hands Java:
// the zones, the files with live data and their LSM hints, which file has what in which zone, and
// for an allocation the request and room for the decision.
#ifndef ZKV_ZONE_VIEW_BUFFER_H
#define ZKV_ZONE_VIEW_BUFFER_H

#include <cstdint>
#include <vector>

#include "boundary.h"
#include "file_hints.h"
#include "zonefs.h"

namespace zkv {

class ZoneViewBuffer {
 public:
  // From the view a call-out was handed. `req` null for a victim choice or a GC trigger.
  // `hints` may be null (no hints). Returns 0 or a negative errno.
  int Build(const zfs_view& view, const FileHints* hints, const zfs_alloc_request* req);
  void* data() { return words_.data(); }
  size_t size() const { return length_; }
  // The decision Java wrote (allocation views only).
  const zkv_bnd_decision* decision() const;

 private:
  // A compaction output's hinted range, starting at the SST's own first key where it can be read.
  static void NarrowToFirstKey(const zfs_alloc_request& req, LsmFileHint* hint);

  std::vector<uint64_t> words_;  // 8-byte aligned storage
  size_t length_ = 0;
  uint32_t decision_offset_ = 0;
};

}  // namespace zkv

#endif

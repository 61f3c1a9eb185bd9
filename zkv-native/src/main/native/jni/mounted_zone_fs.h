// A mounted zone file system as Java's io.zkv.fs.ZoneFs holds it: the file system, its Java
// policies and where their views find LSM hints. Shared: the Java object holds one reference and
// every Env built over it (rocks/zkv_env.cc) another, so the file system stays mounted while
// RocksDB still uses it after the Java side closed.
#ifndef ZKV_MOUNTED_ZONE_FS_H
#define ZKV_MOUNTED_ZONE_FS_H

#include <jni.h>

#include <atomic>
#include <memory>

#include "java_callouts.h"
#include "zonefs.h"

namespace zkv {

struct MountedZoneFs {
  zfs* const fs;
  HintSource hints;
  JavaCallout allocator;
  JavaCallout victim_chooser;
  JavaCallout gc_trigger;
  std::atomic<bool> env_built{false};  // one Env per file system: its hints are the views' hints

  explicit MountedZoneFs(zfs* mounted) : fs(mounted) {}
  // Uninstalls the Java policies (zfs_set_* return once no call-out is under way) and unmounts.
  ~MountedZoneFs();
  MountedZoneFs(const MountedZoneFs&) = delete;
  MountedZoneFs& operator=(const MountedZoneFs&) = delete;
  // Back to the file system's safety rule: no call-out starts after this returns.
  void DisableCallouts();
};

// What Java's ZoneFs holds: a heap-allocated reference.
using ZoneFsRef = std::shared_ptr<MountedZoneFs>;

inline ZoneFsRef* RefOfHandle(jlong handle) { return reinterpret_cast<ZoneFsRef*>(handle); }

}  // namespace zkv

#endif

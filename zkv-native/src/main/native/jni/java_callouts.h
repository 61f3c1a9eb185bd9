// The zone file system's policies in Java (placement, GC victims, GC trigger), called from the
// threads that need a decision: RocksDB's writers and compactions, the file system's GC. Each call
// hands Java the zone view as a direct buffer (zone_view_buffer.h). Also the process-exit rules
// that keep those calls from hanging a JVM that is going away.
#ifndef ZKV_JAVA_CALLOUTS_H
#define ZKV_JAVA_CALLOUTS_H

#include <jni.h>

#include <atomic>
#include <memory>
#include <mutex>

#include "file_hints.h"
#include "zonefs.h"

namespace zkv {

// Where a call-out's view finds the files' hints: set by the Env built over the file system (its
// LSM hint registry), read by every view; none until then.
class HintSource {
 public:
  void Set(std::shared_ptr<const FileHints> hints) {
    std::lock_guard<std::mutex> l(mu_);
    hints_ = std::move(hints);
  }
  std::shared_ptr<const FileHints> Get() const {
    std::lock_guard<std::mutex> l(mu_);
    return hints_;
  }

 private:
  mutable std::mutex mu_;
  std::shared_ptr<const FileHints> hints_;
};

// A Java policy object bound to one call-out slot: the placement policy (io.zkv.fs.ZoneAllocator),
// the GC victim policy (io.zkv.fs.GcVictimChooser) or the GC trigger (io.zkv.fs.GcRoundPlanner).
struct JavaCallout {
  JavaVM* vm = nullptr;
  jobject target = nullptr;  // global reference
  jmethodID method = nullptr;
  const HintSource* hints = nullptr;

  // Binds `target`'s method (once per slot); false if the slot is taken or the method is missing.
  bool Bind(JNIEnv* env, jobject target, const char* method, const char* signature, const HintSource* hints);
  void Release();
};

// The zfs call-out functions for each slot (their context: the JavaCallout).
int CallJavaAllocator(void* ctx, const zfs_alloc_request* req, const zfs_view* zones, zfs_alloc_decision* out);
int CallJavaVictimChooser(void* ctx, const zfs_view* zones, uint32_t* victim);
int CallJavaGcTrigger(void* ctx, const zfs_view* zones, uint64_t* max_live);

// Mounted file systems that may have call-outs (the exit handler's rule, java_callouts.cc).
extern std::atomic<int> mounted_file_systems;
// The JVM is exiting (the exit guard's shutdown hook): attached threads stay attached as they exit,
// no thread attaches any more.
void JvmExiting();
// Registers the process-exit handler (once): call it after RocksDB built its default Env, so that
// it runs before exit() destroys that Env's thread pools.
void RegisterExitHandler();

}  // namespace zkv

#endif

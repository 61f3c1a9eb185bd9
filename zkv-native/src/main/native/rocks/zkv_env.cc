// The RocksDB side of zkv: a rocksdb::Env whose FileSystem is zkv's zone file system on a zoned
// device. (The tests' pass-through Env over the host file system is passthrough_env.cc, built into a
// test-only library.)
#include <jni.h>
#include <pthread.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "lsm_hints.h"
#include "rocksdb/env.h"
#include "rocksdb/file_system.h"
#include "rocksdb/version.h"
#include "zone_file_system.h"
#include "zone_view.h"
#include "zonefs.h"

#define JNI_EXPORT extern "C" __attribute__((visibility("default")))

namespace zkv {

// A Java policy behind a zoned Env: the placement policy (io.zkv.fs.ZoneAllocator) or the GC
// victim policy (io.zkv.fs.GcVictimChooser).
struct EnvHandle;
struct JavaCallout {
  JavaVM* vm = nullptr;
  jobject target = nullptr;  // global reference
  jmethodID method = nullptr;
  EnvHandle* owner = nullptr;

  void Release() {
    JNIEnv* jni = nullptr;
    if (target && vm->GetEnv(reinterpret_cast<void**>(&jni), JNI_VERSION_1_8) == JNI_OK) jni->DeleteGlobalRef(target);
    target = nullptr;
  }
};

std::atomic<int> mounted_envs{0};  // zoned EnvHandles alive (the exit handler's rule below)

// The Env owns the FileSystem; the Java handle is this struct, RocksJava sees the raw Env*
// (env.get()), and zone_fs is a typed pointer to the file system for the counters. The LSM hints
// of every database on the device are gathered in `hints` by the listeners bound to this Env.
struct EnvHandle {
  std::unique_ptr<rocksdb::Env> env;
  zfs* zone_fs = nullptr;                       // owned by the ZoneFileSystem in env
  std::shared_ptr<ZoneFileSystem> file_system;  // env's file system, zoned Envs only
  std::shared_ptr<LsmHintRegistry> hints = std::make_shared<LsmHintRegistry>();
  JavaCallout allocator;
  JavaCallout victim_chooser;
  JavaCallout gc_trigger;

  ~EnvHandle() {
    // No call-out may start once its owner is gone: zfs_set_* return once none is under way
    // (call-outs run without the file system's lock, counted). (A file system still held
    // elsewhere, by RocksDB's options of a database, then decides with the built-in rules: its GC
    // worker once called a released trigger here, a SIGSEGV.)
    if (zone_fs) {
      mounted_envs.fetch_sub(1);
      zfs_set_allocator(zone_fs, nullptr, nullptr);
      zfs_set_victim_chooser(zone_fs, nullptr, nullptr);
      zfs_set_gc_trigger(zone_fs, nullptr, nullptr);
    }
    env.reset();
    file_system.reset();  // unmounts the zone file system unless RocksDB still holds it
    allocator.Release();
    victim_chooser.Release();
    gc_trigger.Release();
  }
};

// RocksDB's background threads meet Java here. A thread attaches at its first call-out and stays
// attached: attaching for each call-out made and freed the JVM's per-thread structures every time
// (about 1.4 times a Kafka Streams store open/close cycle). A pthread key detaches the thread when
// it exits, unless the JVM is exiting: RocksDB's thread pools are joined by exit()'s static
// destructors after the JVM has gone, and DetachCurrentThread would then block forever (and exit()
// with it, JvmExitTest). ZkvEnvExitGuard's shutdown hook sets jvm_exiting before the JVM goes, and
// so does an exit handler (Runtime.halt runs no hooks): registered at the first attach, after
// RocksDB built the thread pools, it runs before exit() destroys them.
std::atomic<bool> jvm_exiting{false};
// Call-outs running Java code now. A halted JVM never lets them return, and exit() would join
// their threads (RocksDB's pools) or threads waiting for the lock they hold (the file system's):
// the exit handler ends the process at once while one is under way (JvmExitTest's halts).
std::atomic<int> callouts_in_java{0};
std::atomic<bool> process_exiting{false};  // exit() has begun: the JVM runs no more Java code
pthread_key_t attached_thread;
pthread_once_t attached_thread_once = PTHREAD_ONCE_INIT;

void DetachAtThreadExit(void* vm) {
  if (!jvm_exiting.load()) static_cast<JavaVM*>(vm)->DetachCurrentThread();
}

// exit()'s handler: no call-out starts from now on (CallWithView looks at process_exiting after
// counting itself, so one of the two sees the other). The process ends here, with the JVM's status,
// when exit() could otherwise wait forever: a call-out is under way (its thread, or one waiting for
// the lock it holds, would be joined), or the JVM was halted (Runtime.halt: no shutdown hook ran,
// so zkv's policies are still installed) while a file system is mounted (RocksDB's pools would be
// joined while their jobs still use it). After System.exit or SIGTERM, whose hook (ZkvEnvExitGuard)
// uninstalled the policies first, exit goes on as usual.
void OnProcessExit(int status, void*) {
  bool hook_ran = jvm_exiting.exchange(true);
  process_exiting.store(true);
  if (callouts_in_java.load() > 0 || (!hook_ran && mounted_envs.load() > 0)) _exit(status);
}

void CreateAttachedThreadKey() {
  pthread_key_create(&attached_thread, DetachAtThreadExit);
  on_exit(OnProcessExit, nullptr);
}

JNIEnv* AttachedEnv(JavaVM* vm) {
  JNIEnv* env = nullptr;
  if (vm->GetEnv(reinterpret_cast<void**>(&env), JNI_VERSION_1_8) == JNI_OK) return env;
  if (jvm_exiting.load()) return nullptr;
  pthread_once(&attached_thread_once, CreateAttachedThreadKey);
  if (vm->AttachCurrentThreadAsDaemon(reinterpret_cast<void**>(&env), nullptr) != JNI_OK) return nullptr;
  if (pthread_setspecific(attached_thread, vm) != 0) {
    vm->DetachCurrentThread();  // without the key the thread would exit attached
    return nullptr;
  }
  return env;
}

// A policy that throws is a bug: show it and fail this call-out (RocksDB sees an I/O error).
bool ThrewAndCleared(JNIEnv* env) {
  if (!env->ExceptionCheck()) return false;
  env->ExceptionDescribe();
  env->ExceptionClear();
  return true;
}

// What a call-out's Java method returns.
enum class Returns { kVoid, kInt, kLong };

// Hands the view to the Java policy as a direct buffer over it (valid during the call only); the
// method's result goes to *result; returns 0 or a negative errno.
int CallWithView(JavaCallout* c, ZoneView* view, Returns returns, jlong* result) {
  struct InJava {  // counted from before the exit check to after the return from Java
    InJava() { callouts_in_java.fetch_add(1); }
    ~InJava() { callouts_in_java.fetch_sub(1); }
  } in_java;
  if (process_exiting.load()) return -ENOTCONN;
  JNIEnv* env = AttachedEnv(c->vm);
  if (!env) return -ENOTCONN;
  int rc = -ENOMEM;
  if (env->PushLocalFrame(4) == 0) {
    jobject buffer = env->NewDirectByteBuffer(view->data(), static_cast<jlong>(view->size()));
    if (!buffer) {
      env->ExceptionClear();
    } else if (returns == Returns::kInt) {
      *result = env->CallIntMethod(c->target, c->method, buffer);
      rc = ThrewAndCleared(env) ? -EIO : 0;
    } else if (returns == Returns::kLong) {
      *result = env->CallLongMethod(c->target, c->method, buffer);
      rc = ThrewAndCleared(env) ? -EIO : 0;
    } else {
      env->CallVoidMethod(c->target, c->method, buffer);
      rc = ThrewAndCleared(env) ? -EIO : 0;
    }
    env->PopLocalFrame(nullptr);
  }
  return rc;
}

// zfs_allocator calling the Java placement policy with the zone view (jni/boundary.h).
int CallJavaAllocator(void* ctx, const zfs_alloc_request* req, const zfs_view* zones, zfs_alloc_decision* out) {
  auto* a = static_cast<JavaCallout*>(ctx);
  ZoneView view;
  int rc = view.Build(*zones, a->owner->hints.get(), req);
  if (rc) return rc;
  jlong unused = 0;
  if ((rc = CallWithView(a, &view, Returns::kVoid, &unused))) return rc;
  const zkv_bnd_decision* d = view.decision();
  out->action = d->action;
  out->zone = d->zone;
  out->n_finish = d->n_finish;  // more than the file system takes is refused there, not cut here
  for (uint32_t i = 0; i < out->n_finish && i < ZFS_ALLOC_MAX_FINISH; i++) out->finish[i] = d->finish[i];
  out->has_tag = d->tag >= 0;
  out->tag = d->tag;
  out->has_lifetime = d->lifetime >= 0;
  out->lifetime = d->lifetime >= 0 ? static_cast<uint32_t>(d->lifetime) : 0;
  return 0;
}

// zfs_victim_chooser calling the Java victim policy: the answer is a zone index, or -1 for none.
int CallJavaVictimChooser(void* ctx, const zfs_view* zones, uint32_t* victim) {
  auto* c = static_cast<JavaCallout*>(ctx);
  ZoneView view;
  int rc = view.Build(*zones, c->owner->hints.get(), nullptr);
  if (rc) return rc;
  jlong z = -1;
  if ((rc = CallWithView(c, &view, Returns::kInt, &z))) return rc;
  if (z < 0) return -ENOSPC;
  *victim = static_cast<uint32_t>(z);
  return 0;
}

// zfs_gc_trigger calling the Java GC trigger: the answer is the round's bound on a victim's live
// bytes, 0 (or less) for no collection.
int CallJavaGcTrigger(void* ctx, const zfs_view* zones, uint64_t* max_live) {
  auto* c = static_cast<JavaCallout*>(ctx);
  ZoneView view;
  int rc = view.Build(*zones, c->owner->hints.get(), nullptr);
  if (rc) return rc;
  jlong bound = 0;
  if ((rc = CallWithView(c, &view, Returns::kLong, &bound))) return rc;
  *max_live = bound > 0 ? static_cast<uint64_t>(bound) : 0;
  return 0;
}

thread_local std::string last_error;

}  // namespace zkv

JNI_EXPORT jint JNICALL Java_io_zkv_nativelib_ZkvNative_nRocksdbHeaderVersion(JNIEnv*, jclass) {
  return ROCKSDB_MAJOR * 10000 + ROCKSDB_MINOR * 100 + ROCKSDB_PATCH;
}

JNI_EXPORT jlong JNICALL Java_org_rocksdb_ZkvEnv_nEnvPointer(JNIEnv*, jclass, jlong handle) {
  return reinterpret_cast<jlong>(reinterpret_cast<zkv::EnvHandle*>(handle)->env.get());
}

// Frees the Env and unmounts its file system, unless a database still holds its LOCK on it
// (-EBUSY, nothing freed: RocksDB's database keeps using the Env, ZkvEnv.close checks first).
JNI_EXPORT jint JNICALL Java_org_rocksdb_ZkvEnv_nDispose(JNIEnv*, jclass, jlong handle) {
  auto* h = reinterpret_cast<zkv::EnvHandle*>(handle);
  if (h->file_system && !h->file_system->LockedDatabases().empty()) return -EBUSY;
  delete h;
  return 0;
}

// The directories of the databases open on the Env's file system, one per line ("" for none).
JNI_EXPORT jstring JNICALL Java_org_rocksdb_ZkvEnv_nOpenDatabases(JNIEnv* env, jclass, jlong handle) {
  auto* h = reinterpret_cast<zkv::EnvHandle*>(handle);
  std::string all;
  if (h->file_system)
    for (const auto& dir : h->file_system->LockedDatabases()) all += (all.empty() ? "" : "\n") + dir;
  return env->NewStringUTF(all.c_str());
}

// Formats (if asked) and mounts the zone file system on an open device; returns an EnvHandle* or
// a negative code with the message in nLastError.
// read_only: nothing on the device changes and every write fails with EROFS (zkv fsck --verify-data
// opens databases read-only through it).
JNI_EXPORT jlong JNICALL Java_org_rocksdb_ZkvEnv_nNewZoned(JNIEnv*, jclass, jlong device, jboolean format,
                                                           jboolean read_only) {
  auto* dev = reinterpret_cast<zkv_dev*>(device);
  char err[512] = {0};
  if (format) {
    int rc = zfs_mkfs(dev, nullptr, err, sizeof err);
    if (rc) {
      zkv::last_error = std::string("mkfs: ") + err;
      return rc;
    }
  }
  int rc = 0;
  zfs* fs = zfs_mount_flags(dev, read_only ? ZFS_MOUNT_READONLY : 0, &rc, err, sizeof err);
  if (!fs) {
    zkv::last_error = std::string("mount: ") + err;
    return rc;
  }
  auto* h = new zkv::EnvHandle();
  h->zone_fs = fs;
  h->file_system = std::make_shared<zkv::ZoneFileSystem>(fs);
  h->file_system->SetHints(h->hints);
  zkv::mounted_envs.fetch_add(1);
  h->env = rocksdb::NewCompositeEnv(h->file_system);
  // The exit handler, registered after RocksDB's default Env (NewCompositeEnv built it if nothing
  // had), runs before exit() destroys that Env's thread pools.
  pthread_once(&zkv::attached_thread_once, zkv::CreateAttachedThreadKey);
  return reinterpret_cast<jlong>(h);
}

namespace zkv {
// Binds a Java policy object to a call-out slot of a zoned Env (once per slot); false if the Env
// is not zoned, the slot is taken, or the object lacks the method.
bool Bind(JNIEnv* env, EnvHandle* h, JavaCallout* slot, jobject target, const char* method, const char* signature) {
  if (!h->zone_fs || slot->target) return false;
  jmethodID m = env->GetMethodID(env->GetObjectClass(target), method, signature);
  if (!m || env->GetJavaVM(&slot->vm) != 0) {
    env->ExceptionClear();
    return false;
  }
  slot->target = env->NewGlobalRef(target);
  slot->method = m;
  slot->owner = h;
  return true;
}
}  // namespace zkv

// Uninstalls the Java policies of a zoned Env: the file system's safety rule decides from now on
// (counted as overrides), and no background GC round collects. For JVM exit (ZkvEnvExitGuard): zfs_set_* return once no
// call-out is under way, and none will start after; a RocksDB thread then never attaches to a JVM that is going away
// (it would block forever, and the VM thread, which joins RocksDB's thread pool in exit(), with it).
JNI_EXPORT void JNICALL Java_org_rocksdb_ZkvEnv_nDisableCallouts(JNIEnv*, jclass, jlong handle) {
  auto* h = reinterpret_cast<zkv::EnvHandle*>(handle);
  if (!h->zone_fs) return;
  zfs_set_allocator(h->zone_fs, nullptr, nullptr);
  zfs_set_victim_chooser(h->zone_fs, nullptr, nullptr);
  zfs_set_gc_trigger(h->zone_fs, nullptr, nullptr);
}

// The JVM is exiting (ZkvEnvExitGuard's shutdown hook): threads attached for call-outs stay
// attached when they exit, and no thread attaches any more.
JNI_EXPORT void JNICALL Java_org_rocksdb_ZkvEnv_nJvmExiting(JNIEnv*, jclass) { zkv::jvm_exiting.store(true); }

// Installs the Java placement policy (io.zkv.fs.ZoneAllocator) on a zoned Env.
JNI_EXPORT jint JNICALL Java_org_rocksdb_ZkvEnv_nSetAllocator(JNIEnv* env, jclass, jlong handle, jobject allocator) {
  auto* h = reinterpret_cast<zkv::EnvHandle*>(handle);
  if (!zkv::Bind(env, h, &h->allocator, allocator, "allocate", "(Ljava/nio/ByteBuffer;)V")) return -EINVAL;
  zfs_set_allocator(h->zone_fs, zkv::CallJavaAllocator, &h->allocator);
  return 0;
}

// Installs the Java GC victim policy (io.zkv.fs.GcVictimChooser) on a zoned Env.
JNI_EXPORT jint JNICALL Java_org_rocksdb_ZkvEnv_nSetVictimChooser(JNIEnv* env, jclass, jlong handle, jobject chooser) {
  auto* h = reinterpret_cast<zkv::EnvHandle*>(handle);
  if (!zkv::Bind(env, h, &h->victim_chooser, chooser, "chooseVictim", "(Ljava/nio/ByteBuffer;)I")) return -EINVAL;
  zfs_set_victim_chooser(h->zone_fs, zkv::CallJavaVictimChooser, &h->victim_chooser);
  return 0;
}

// Installs the Java GC trigger (io.zkv.fs.GcRoundPlanner) on a zoned Env.
JNI_EXPORT jint JNICALL Java_org_rocksdb_ZkvEnv_nSetGcTrigger(JNIEnv* env, jclass, jlong handle, jobject trigger) {
  auto* h = reinterpret_cast<zkv::EnvHandle*>(handle);
  if (!zkv::Bind(env, h, &h->gc_trigger, trigger, "maxLiveBytes", "(Ljava/nio/ByteBuffer;)J")) return -EINVAL;
  zfs_set_gc_trigger(h->zone_fs, zkv::CallJavaGcTrigger, &h->gc_trigger);
  return 0;
}

// Starts background GC (after the Java policies are installed); idempotent.
JNI_EXPORT jint JNICALL Java_org_rocksdb_ZkvEnv_nStartGc(JNIEnv*, jclass, jlong handle) {
  auto* h = reinterpret_cast<zkv::EnvHandle*>(handle);
  if (!h->zone_fs) return -EINVAL;
  return zfs_start_gc(h->zone_fs);
}

// The device bytes of one WAL write-out (zfs_set_wal_buffer); -EINVAL out of range.
JNI_EXPORT jint JNICALL Java_org_rocksdb_ZkvEnv_nSetWalBuffer(JNIEnv*, jclass, jlong handle, jint bytes) {
  auto* h = reinterpret_cast<zkv::EnvHandle*>(handle);
  if (!h->zone_fs || bytes <= 0) return -EINVAL;
  return zfs_set_wal_buffer(h->zone_fs, static_cast<uint32_t>(bytes));
}

// SST write-behind (zfs_set_write_behind): on where the device's queues keep requests in flight
// (the mount's default), -EOPNOTSUPP for on where they do not.
JNI_EXPORT jint JNICALL Java_org_rocksdb_ZkvEnv_nSetWriteBehind(JNIEnv*, jclass, jlong handle, jboolean on) {
  auto* h = reinterpret_cast<zkv::EnvHandle*>(handle);
  if (!h->zone_fs) return -EINVAL;
  return zfs_set_write_behind(h->zone_fs, on ? 1 : 0);
}

// The over-provisioning reserve (zfs_set_op_zones): -EINVAL if it leaves too few data zones.
JNI_EXPORT jint JNICALL Java_org_rocksdb_ZkvEnv_nSetOpZones(JNIEnv*, jclass, jlong handle, jint zones) {
  auto* h = reinterpret_cast<zkv::EnvHandle*>(handle);
  if (!h->zone_fs || zones < 0) return -EINVAL;
  return zfs_set_op_zones(h->zone_fs, static_cast<uint32_t>(zones));
}

// Data files' NoSpace from the policy stands (zfs_set_strict_no_space).
JNI_EXPORT jint JNICALL Java_org_rocksdb_ZkvEnv_nSetStrictNoSpace(JNIEnv*, jclass, jlong handle, jboolean on) {
  auto* h = reinterpret_cast<zkv::EnvHandle*>(handle);
  if (!h->zone_fs) return -EINVAL;
  return zfs_set_strict_no_space(h->zone_fs, on ? 1 : 0);
}

// How WAL files are written (zfs_set_wal_mode): -EINVAL out of range, -EOPNOTSUPP for ZWAL on a
// device whose queues carry out each request at submit.
JNI_EXPORT jint JNICALL Java_org_rocksdb_ZkvEnv_nSetWalMode(JNIEnv*, jclass, jlong handle, jint mode, jint depth,
                                                            jlong barrier) {
  auto* h = reinterpret_cast<zkv::EnvHandle*>(handle);
  if (!h->zone_fs || depth < 0 || barrier < 0) return -EINVAL;
  return zfs_set_wal_mode(h->zone_fs, mode, static_cast<uint32_t>(depth), static_cast<uint64_t>(barrier));
}

// WALTZ's +R (zfs_set_wal_reserve): -EINVAL out of range.
JNI_EXPORT jint JNICALL Java_org_rocksdb_ZkvEnv_nSetWalReserve(JNIEnv*, jclass, jlong handle, jint zones,
                                                               jlong switch_room) {
  auto* h = reinterpret_cast<zkv::EnvHandle*>(handle);
  if (!h->zone_fs || zones < 0 || switch_room < 0) return -EINVAL;
  return zfs_set_wal_reserve(h->zone_fs, static_cast<uint32_t>(zones), static_cast<uint64_t>(switch_room));
}

// WALTZ's leased zones (zfs_lease_*): thin, -errno, never throwing; zkv-core says what failed.
JNI_EXPORT jint JNICALL Java_org_rocksdb_ZkvEnv_nLeaseZone(JNIEnv*, jclass, jlong handle, jlong owner) {
  auto* h = reinterpret_cast<zkv::EnvHandle*>(handle);
  if (!h->zone_fs) return -EINVAL;
  uint32_t zone = 0;
  int rc = zfs_lease_zone(h->zone_fs, static_cast<uint64_t>(owner), &zone);
  return rc ? rc : static_cast<jint>(zone);
}

JNI_EXPORT jint JNICALL Java_org_rocksdb_ZkvEnv_nReturnLease(JNIEnv*, jclass, jlong handle, jlong owner, jint zone) {
  auto* h = reinterpret_cast<zkv::EnvHandle*>(handle);
  if (!h->zone_fs || zone < 0) return -EINVAL;
  return zfs_lease_return(h->zone_fs, static_cast<uint64_t>(owner), static_cast<uint32_t>(zone));
}

JNI_EXPORT jint JNICALL Java_org_rocksdb_ZkvEnv_nReturnAllLeases(JNIEnv*, jclass, jlong handle, jlong owner) {
  auto* h = reinterpret_cast<zkv::EnvHandle*>(handle);
  if (!h->zone_fs) return -EINVAL;
  return zfs_lease_return_all(h->zone_fs, static_cast<uint64_t>(owner));
}

JNI_EXPORT jint JNICALL Java_org_rocksdb_ZkvEnv_nReturnLeaseSet(JNIEnv* env, jclass, jlong handle, jlong owner,
                                                                jintArray zones) {
  auto* h = reinterpret_cast<zkv::EnvHandle*>(handle);
  if (!h->zone_fs || !zones) return -EINVAL;
  jsize n = env->GetArrayLength(zones);
  std::vector<uint32_t> z(static_cast<size_t>(n) + 1);
  env->GetIntArrayRegion(zones, 0, n, reinterpret_cast<jint*>(z.data()));
  for (jsize i = 0; i < n; i++)
    if (static_cast<jint>(z[static_cast<size_t>(i)]) < 0) return -EINVAL;
  return zfs_lease_return_set(h->zone_fs, static_cast<uint64_t>(owner), z.data(), static_cast<uint32_t>(n));
}

JNI_EXPORT jint JNICALL Java_org_rocksdb_ZkvEnv_nReturnLeasesKeepEmpty(JNIEnv*, jclass, jlong handle, jlong owner,
                                                                       jint keep) {
  auto* h = reinterpret_cast<zkv::EnvHandle*>(handle);
  if (!h->zone_fs || keep < 0) return -EINVAL;
  return zfs_lease_return_keep_empty(h->zone_fs, static_cast<uint64_t>(owner), static_cast<uint32_t>(keep));
}

JNI_EXPORT jint JNICALL Java_org_rocksdb_ZkvEnv_nLeasedZones(JNIEnv* env, jclass, jlong handle, jlong owner,
                                                             jintArray out) {
  auto* h = reinterpret_cast<zkv::EnvHandle*>(handle);
  if (!h->zone_fs) return -EINVAL;
  jsize cap = env->GetArrayLength(out);
  std::vector<uint32_t> zones(static_cast<size_t>(cap) + 1);
  int n = zfs_leased_zones(h->zone_fs, static_cast<uint64_t>(owner), zones.data(), static_cast<uint32_t>(cap));
  if (n > 0) {
    jsize copy = n < cap ? n : cap;
    env->SetIntArrayRegion(out, 0, copy, reinterpret_cast<const jint*>(zones.data()));
  }
  return n;
}

// The hot path: a direct buffer's first len bytes, no copy; the landed offset in the zone or -errno.
JNI_EXPORT jlong JNICALL Java_org_rocksdb_ZkvEnv_nLeaseAppend(JNIEnv* env, jclass, jlong handle, jlong owner, jint zone,
                                                              jobject buf, jint len, jboolean fua) {
  auto* h = reinterpret_cast<zkv::EnvHandle*>(handle);
  void* p = env->GetDirectBufferAddress(buf);
  if (!h->zone_fs || zone < 0 || len <= 0 || !p || env->GetDirectBufferCapacity(buf) < len) return -EINVAL;
  return zfs_lease_append(h->zone_fs, static_cast<uint64_t>(owner), static_cast<uint32_t>(zone), p,
                          static_cast<size_t>(len), fua ? 1 : 0);
}

JNI_EXPORT jint JNICALL Java_org_rocksdb_ZkvEnv_nLeaseRead(JNIEnv* env, jclass, jlong handle, jlong owner, jint zone,
                                                           jlong offset, jobject buf, jint len) {
  auto* h = reinterpret_cast<zkv::EnvHandle*>(handle);
  void* p = env->GetDirectBufferAddress(buf);
  if (!h->zone_fs || zone < 0 || offset < 0 || len < 0 || !p || env->GetDirectBufferCapacity(buf) < len) return -EINVAL;
  return zfs_lease_read(h->zone_fs, static_cast<uint64_t>(owner), static_cast<uint32_t>(zone),
                        static_cast<uint64_t>(offset), p, static_cast<size_t>(len));
}

// The bytes written to a leased zone (the device's write pointer) or -errno.
JNI_EXPORT jlong JNICALL Java_org_rocksdb_ZkvEnv_nLeaseWritten(JNIEnv*, jclass, jlong handle, jlong owner, jint zone) {
  auto* h = reinterpret_cast<zkv::EnvHandle*>(handle);
  if (!h->zone_fs || zone < 0) return -EINVAL;
  zfs_lease_state st;
  int rc = zfs_lease_info(h->zone_fs, static_cast<uint64_t>(owner), static_cast<uint32_t>(zone), &st);
  return rc ? rc : static_cast<jlong>(st.written);
}

// A leased zone's key into out[0..1] (zeros: a lease recorded without one): 0 or -errno.
JNI_EXPORT jint JNICALL Java_org_rocksdb_ZkvEnv_nLeaseKey(JNIEnv* env, jclass, jlong handle, jlong owner, jint zone,
                                                          jlongArray out) {
  auto* h = reinterpret_cast<zkv::EnvHandle*>(handle);
  if (!h->zone_fs || zone < 0 || !out || env->GetArrayLength(out) < 2) return -EINVAL;
  zfs_lease_state st;
  int rc = zfs_lease_info(h->zone_fs, static_cast<uint64_t>(owner), static_cast<uint32_t>(zone), &st);
  if (rc) return rc;
  jlong key[2] = {static_cast<jlong>(st.key[0]), static_cast<jlong>(st.key[1])};
  env->SetLongArrayRegion(out, 0, 2, key);
  return 0;
}

JNI_EXPORT jint JNICALL Java_org_rocksdb_ZkvEnv_nLeaseRoom(JNIEnv*, jclass, jlong handle) {
  auto* h = reinterpret_cast<zkv::EnvHandle*>(handle);
  return h->zone_fs ? zfs_lease_room(h->zone_fs) : -EINVAL;
}

JNI_EXPORT jint JNICALL Java_org_rocksdb_ZkvEnv_nRenewLease(JNIEnv*, jclass, jlong handle, jlong owner, jint zone) {
  auto* h = reinterpret_cast<zkv::EnvHandle*>(handle);
  if (!h->zone_fs || zone < 0) return -EINVAL;
  return zfs_lease_renew(h->zone_fs, static_cast<uint64_t>(owner), static_cast<uint32_t>(zone));
}

JNI_EXPORT jint JNICALL Java_org_rocksdb_ZkvEnv_nFinishLease(JNIEnv*, jclass, jlong handle, jlong owner, jint zone) {
  auto* h = reinterpret_cast<zkv::EnvHandle*>(handle);
  if (!h->zone_fs || zone < 0) return -EINVAL;
  return zfs_lease_finish(h->zone_fs, static_cast<uint64_t>(owner), static_cast<uint32_t>(zone));
}

// The largest RocksDB sequence number the database's flushes have persisted (WALTZ's releases).
JNI_EXPORT jlong JNICALL Java_org_rocksdb_ZkvLsmListener_nFlushedSequence(JNIEnv*, jclass, jlong listener) {
  return listener ? static_cast<jlong>(zkv::FromHandle(listener)->FlushedSequence()) : 0;
}

// Garbage collection on demand (ZkvDb.resume after NoSpace); returns the free bytes.
JNI_EXPORT jlong JNICALL Java_org_rocksdb_ZkvEnv_nReclaim(JNIEnv*, jclass, jlong handle, jlong want) {
  auto* h = reinterpret_cast<zkv::EnvHandle*>(handle);
  if (!h->zone_fs || want < 0) return -EINVAL;
  return static_cast<jlong>(zfs_reclaim(h->zone_fs, static_cast<uint64_t>(want)));
}

JNI_EXPORT jstring JNICALL Java_org_rocksdb_ZkvEnv_nLastError(JNIEnv* env, jclass) {
  return env->NewStringUTF(zkv::last_error.c_str());
}

// Zone file system counters as a ZKV_BND_ZONE_STATS buffer (jni/boundary.h) written into `out`, a
// direct buffer; returns the bytes written or a negative errno (-ENOBUFS: too small).
JNI_EXPORT jint JNICALL Java_org_rocksdb_ZkvEnv_nZoneStats(JNIEnv* env, jclass, jlong handle, jobject out) {
  auto* h = reinterpret_cast<zkv::EnvHandle*>(handle);
  if (!h->zone_fs) return -EINVAL;
  zfs_stats s;
  zfs_stats_get(h->zone_fs, &s);
  zkv_bnd_zone_stats v;
  zkv_boundary_zone_stats(&s, &v);
  void* dst = env->GetDirectBufferAddress(out);
  jlong cap = env->GetDirectBufferCapacity(out);
  if (!dst || cap < 0) return -EINVAL;
  return zkv_boundary_write_single(dst, static_cast<size_t>(cap), ZKV_BND_ZONE_STATS, ZKV_STATS_VERSION, &v, sizeof v);
}

// The zone view the policies decide on, taken now (a ZKV_BND_ZONE_VIEW buffer without a request,
// jni/boundary.h), as a Java byte array: inspection, a slow path. Null when it cannot be taken (Java
// throws with context; an OutOfMemoryError may be pending).
JNI_EXPORT jbyteArray JNICALL Java_org_rocksdb_ZkvEnv_nZoneView(JNIEnv* env, jclass, jlong handle) {
  auto* h = reinterpret_cast<zkv::EnvHandle*>(handle);
  if (!h->zone_fs) return nullptr;
  struct Copy {
    JNIEnv* env;
    const zkv::LsmHintRegistry* hints;
    jbyteArray out;
  } copy{env, h->hints.get(), nullptr};
  int rc = zfs_inspect_view(
      h->zone_fs,
      [](void* ctx, const zfs_view* v) -> int {
        auto* c = static_cast<Copy*>(ctx);
        zkv::ZoneView view;
        int built = view.Build(*v, c->hints, nullptr);
        if (built) return built;
        c->out = c->env->NewByteArray(static_cast<jsize>(view.size()));
        if (!c->out) return -ENOMEM;  // OutOfMemoryError pending
        c->env->SetByteArrayRegion(c->out, 0, static_cast<jsize>(view.size()), static_cast<const jbyte*>(view.data()));
        return 0;
      },
      &copy);
  return rc ? nullptr : copy.out;
}

// A listener (org.rocksdb.ZkvLsmListener) RocksJava can hold like its own: returns the
// LsmHintListenerHandle*, or 0 with a Java exception when this build's layout does not match.
JNI_EXPORT jlong JNICALL Java_org_rocksdb_ZkvLsmListener_nNewListener(JNIEnv* env, jobject self) {
  if (!zkv::LayoutMatchesRocksJava()) {
    env->ThrowNew(env->FindClass("java/lang/IllegalStateException"),
                  "zkv's LSM hint listener does not match RocksJava's listener layout on this platform");
    return 0;
  }
  auto listener = std::make_shared<zkv::LsmHintListener>();
  env->GetJavaVM(&listener->jvm);
  listener->java_object = env->NewGlobalRef(self);
  return reinterpret_cast<jlong>(
      new zkv::LsmHintListenerHandle(std::static_pointer_cast<rocksdb::EventListener>(listener)));
}

// Binds a listener to the hint registry of a zoned Env.
JNI_EXPORT void JNICALL Java_org_rocksdb_ZkvLsmListener_nBind(JNIEnv*, jclass, jlong listener, jlong env_handle) {
  auto* h = reinterpret_cast<zkv::EnvHandle*>(env_handle);
  zkv::FromHandle(listener)->Bind(h->hints);
}

// Drops the Java side's reference; RocksDB's options and databases may hold the listener longer.
JNI_EXPORT void JNICALL Java_org_rocksdb_ZkvLsmListener_nDispose(JNIEnv* env, jclass, jlong listener) {
  if (!listener) return;
  zkv::LsmHintListener* l = zkv::FromHandle(listener);
  if (l->java_object) env->DeleteGlobalRef(l->java_object);
  l->java_object = nullptr;
  delete reinterpret_cast<zkv::LsmHintListenerHandle*>(listener);
}

// The exact level and key range of every live SST of an open database (RocksJava's RocksDB
// handle is its rocksdb::DB*): called once after open, the listener keeps them current after.
JNI_EXPORT jint JNICALL Java_org_rocksdb_ZkvEnv_nRefreshLsmHints(JNIEnv*, jclass, jlong handle, jlong db) {
  auto* h = reinterpret_cast<zkv::EnvHandle*>(handle);
  if (!h->zone_fs || !db) return -EINVAL;
  h->hints->Refresh(reinterpret_cast<rocksdb::DB*>(db));
  return static_cast<jint>(h->hints->Size());
}

// The boundary layouts as this build compiled them (jni/boundary.h), for the Java side's check.
JNI_EXPORT jintArray JNICALL Java_org_rocksdb_ZkvEnv_nBoundaryLayout(JNIEnv* env, jclass, jint layout) {
  int32_t v[128];
  int n = zkv_boundary_layout(layout, v, 128);
  if (n < 0) return nullptr;
  jintArray a = env->NewIntArray(n);
  if (a) env->SetIntArrayRegion(a, 0, n, v);
  return a;
}

// Usage of the files under a path as a ZKV_BND_PATH_USAGE buffer written into `out`; returns the
// bytes written or a negative errno.
JNI_EXPORT jint JNICALL Java_org_rocksdb_ZkvEnv_nPathUsage(JNIEnv* env, jclass, jlong handle, jstring prefix,
                                                           jobject out) {
  auto* h = reinterpret_cast<zkv::EnvHandle*>(handle);
  void* dst = env->GetDirectBufferAddress(out);
  jlong cap = env->GetDirectBufferCapacity(out);
  if (!h->zone_fs || !dst || cap < 0) return -EINVAL;
  const char* p = env->GetStringUTFChars(prefix, nullptr);
  if (!p) return -ENOMEM;
  zkv_bnd_path_usage u;
  int rc = zkv_boundary_path_usage(h->zone_fs, p, &u);
  env->ReleaseStringUTFChars(prefix, p);
  if (rc) return rc;
  return zkv_boundary_write_single(dst, static_cast<size_t>(cap), ZKV_BND_PATH_USAGE, ZKV_PATH_USAGE_VERSION, &u,
                                   sizeof u);
}

// The next database the calling thread opens on this Env is recorded under `token`
// (ZoneFileSystem::ExpectOpen).
JNI_EXPORT jint JNICALL Java_org_rocksdb_ZkvEnv_nExpectOpen(JNIEnv*, jclass, jlong handle, jlong token) {
  auto* h = reinterpret_cast<zkv::EnvHandle*>(handle);
  if (!h->file_system) return -EINVAL;
  h->file_system->ExpectOpen(static_cast<uint64_t>(token));
  return 0;
}

// The directory of the database opened under `token`, null if none is open under it.
JNI_EXPORT jstring JNICALL Java_org_rocksdb_ZkvEnv_nOpenedDir(JNIEnv* env, jclass, jlong handle, jlong token) {
  auto* h = reinterpret_cast<zkv::EnvHandle*>(handle);
  if (!h->file_system) return nullptr;
  std::string dir = h->file_system->OpenedDir(static_cast<uint64_t>(token));
  return dir.empty() ? nullptr : env->NewStringUTF(dir.c_str());
}

// The RocksDB side of zkv: a rocksdb::Env whose FileSystem is zkv's zone file system on a zoned
// device. (The tests' pass-through Env over the host file system is in passthrough_env.cc.)
#include <jni.h>

#include <atomic>
#include <cerrno>
#include <memory>
#include <string>
#include <vector>

#include "rocksdb/env.h"
#include "rocksdb/file_system.h"
#include "rocksdb/version.h"
#include "zone_file_system.h"
#include "zonefs.h"

#define JNI_EXPORT extern "C" __attribute__((visibility("default")))

namespace zkv {

// A Java policy behind a zoned Env: the placement policy (io.zkv.fs.ZoneAllocator) or the GC
// victim policy (io.zkv.fs.GcVictimChooser).
struct JavaCallout {
  JavaVM* vm = nullptr;
  jobject target = nullptr;  // global reference
  jmethodID method = nullptr;

  void Release() {
    JNIEnv* jni = nullptr;
    if (target && vm->GetEnv(reinterpret_cast<void**>(&jni), JNI_VERSION_1_8) == JNI_OK) jni->DeleteGlobalRef(target);
    target = nullptr;
  }
};

// The Env owns the FileSystem; the Java handle is this struct, RocksJava sees the raw Env*
// (env.get()), and zone_fs is a typed pointer to the file system for the counters.
struct EnvHandle {
  std::unique_ptr<rocksdb::Env> env;
  zfs* zone_fs = nullptr;  // owned by the ZoneFileSystem in env
  JavaCallout allocator;
  JavaCallout victim_chooser;

  ~EnvHandle() {
    env.reset();  // unmounts the zone file system: no call-out can be under way after this
    allocator.Release();
    victim_chooser.Release();
  }
};

// RocksDB's background threads meet Java here: attached for the call, detached right after.
// (Staying attached until thread exit hangs the process at exit: RocksDB's thread pools are torn
// down after the JVM has exited, and DetachCurrentThread then blocks forever.) Allocations are
// rare (one per zone switch), so the attach cost does not matter.
JNIEnv* AttachedEnv(JavaVM* vm, bool* attached) {
  JNIEnv* env = nullptr;
  *attached = false;
  if (vm->GetEnv(reinterpret_cast<void**>(&env), JNI_VERSION_1_8) == JNI_OK) return env;
  if (vm->AttachCurrentThreadAsDaemon(reinterpret_cast<void**>(&env), nullptr) != JNI_OK) return nullptr;
  *attached = true;
  return env;
}

// The zone table handed to both Java policies, in the layout of io.zkv.fs.NativeZoneTable: 9 longs
// a zone (start, capacity, write pointer, live bytes, lifetime, meta, busy, bytes to copy,
// victim-eligible). Returns null (exception cleared) when out of memory.
constexpr int kZoneFields = 9;
jlongArray ZoneTable(JNIEnv* env, const zfs_zone_info* zones, uint32_t n) {
  jlongArray table = env->NewLongArray(static_cast<jsize>(n) * kZoneFields);
  if (!table) {
    env->ExceptionClear();
    return nullptr;
  }
  std::vector<jlong> v(static_cast<size_t>(n) * kZoneFields);
  for (uint32_t i = 0; i < n; i++) {
    jlong* z = &v[static_cast<size_t>(i) * kZoneFields];
    z[0] = static_cast<jlong>(zones[i].start), z[1] = static_cast<jlong>(zones[i].capacity);
    z[2] = static_cast<jlong>(zones[i].wp), z[3] = static_cast<jlong>(zones[i].live);
    z[4] = zones[i].lifetime, z[5] = zones[i].meta, z[6] = zones[i].busy;
    z[7] = static_cast<jlong>(zones[i].copy), z[8] = zones[i].victim_ok;
  }
  env->SetLongArrayRegion(table, 0, static_cast<jsize>(v.size()), v.data());
  return table;
}

// A policy that throws is a bug: show it and fail this call-out (RocksDB sees an I/O error).
bool ThrewAndCleared(JNIEnv* env) {
  if (!env->ExceptionCheck()) return false;
  env->ExceptionDescribe();
  env->ExceptionClear();
  return true;
}

int AllocateAttached(JNIEnv* env, JavaCallout* a, const zfs_alloc_request* req, const zfs_zone_info* zones, uint32_t n,
                     uint32_t active_limit, zfs_alloc_decision* out);
int ChooseVictimAttached(JNIEnv* env, JavaCallout* c, const zfs_zone_info* zones, uint32_t n, uint32_t* victim);

// zfs_allocator calling the Java placement policy. Decision: action, zone, count, zones to finish.
int CallJavaAllocator(void* ctx, const zfs_alloc_request* req, const zfs_zone_info* zones, uint32_t n,
                      uint32_t active_limit, zfs_alloc_decision* out) {
  auto* a = static_cast<JavaCallout*>(ctx);
  bool attached = false;
  JNIEnv* env = AttachedEnv(a->vm, &attached);
  if (!env) return -ENOTCONN;
  int rc = AllocateAttached(env, a, req, zones, n, active_limit, out);
  if (attached) a->vm->DetachCurrentThread();
  return rc;
}

// zfs_victim_chooser calling the Java victim policy: the answer is a zone index, or -1 for none.
int CallJavaVictimChooser(void* ctx, const zfs_zone_info* zones, uint32_t n, uint32_t* victim) {
  auto* c = static_cast<JavaCallout*>(ctx);
  bool attached = false;
  JNIEnv* env = AttachedEnv(c->vm, &attached);
  if (!env) return -ENOTCONN;
  int rc = ChooseVictimAttached(env, c, zones, n, victim);
  if (attached) c->vm->DetachCurrentThread();
  return rc;
}

int ChooseVictimAttached(JNIEnv* env, JavaCallout* c, const zfs_zone_info* zones, uint32_t n, uint32_t* victim) {
  if (env->PushLocalFrame(4) != 0) return -ENOMEM;
  jlongArray table = ZoneTable(env, zones, n);
  int rc = -ENOMEM;
  if (table) {
    jint z = env->CallIntMethod(c->target, c->method, table);
    rc = ThrewAndCleared(env) ? -EIO : z < 0 ? -ENOSPC : 0;
    if (!rc) *victim = static_cast<uint32_t>(z);
  }
  env->PopLocalFrame(nullptr);
  return rc;
}

int AllocateAttached(JNIEnv* env, JavaCallout* a, const zfs_alloc_request* req, const zfs_zone_info* zones, uint32_t n,
                     uint32_t active_limit, zfs_alloc_decision* out) {
  if (env->PushLocalFrame(8) != 0) return -ENOMEM;
  int rc = 0;
  jlongArray table = ZoneTable(env, zones, n);
  jlongArray decision = env->NewLongArray(3 + ZFS_ALLOC_MAX_FINISH);
  jstring name = env->NewStringUTF(req->file_name);
  if (!table || !decision || !name) {
    env->ExceptionClear();
    env->PopLocalFrame(nullptr);
    return -ENOMEM;
  }
  env->CallVoidMethod(a->target, a->method, static_cast<jlong>(req->file_id), name, static_cast<jint>(req->lifetime),
                      static_cast<jboolean>(req->for_gc != 0), table, static_cast<jint>(active_limit), decision);
  if (ThrewAndCleared(env)) {
    rc = -EIO;
  } else {
    jlong d[3 + ZFS_ALLOC_MAX_FINISH];
    env->GetLongArrayRegion(decision, 0, 3 + ZFS_ALLOC_MAX_FINISH, d);
    out->action = static_cast<int>(d[0]);
    out->zone = static_cast<uint32_t>(d[1]);
    out->n_finish = d[2] < 0 ? 0 : d[2] > ZFS_ALLOC_MAX_FINISH ? ZFS_ALLOC_MAX_FINISH : static_cast<uint32_t>(d[2]);
    for (uint32_t i = 0; i < out->n_finish; i++) out->finish[i] = static_cast<uint32_t>(d[3 + i]);
  }
  env->PopLocalFrame(nullptr);
  return rc;
}

thread_local std::string last_error;

}  // namespace zkv

JNI_EXPORT jint JNICALL Java_io_zkv_nativelib_ZkvNative_nRocksdbHeaderVersion(JNIEnv*, jclass) {
  return ROCKSDB_MAJOR * 10000 + ROCKSDB_MINOR * 100 + ROCKSDB_PATCH;
}

JNI_EXPORT jlong JNICALL Java_org_rocksdb_ZkvEnv_nEnvPointer(JNIEnv*, jclass, jlong handle) {
  return reinterpret_cast<jlong>(reinterpret_cast<zkv::EnvHandle*>(handle)->env.get());
}

JNI_EXPORT void JNICALL Java_org_rocksdb_ZkvEnv_nDispose(JNIEnv*, jclass, jlong handle) {
  delete reinterpret_cast<zkv::EnvHandle*>(handle);
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
  h->env = rocksdb::NewCompositeEnv(std::make_shared<zkv::ZoneFileSystem>(fs));
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
  return true;
}
}  // namespace zkv

// Uninstalls both Java policies of a zoned Env: the file system's built-in rules (LIZA, greedy GC)
// decide from now on. For JVM exit (ZkvEnvExitGuard): zfs_set_* take the file system's lock, under
// which every call-out runs, so when this returns no call-out is under way and none will start; a
// RocksDB thread then never attaches to a JVM that is going away (it would block forever, and the
// VM thread, which joins RocksDB's thread pool in exit(), with it).
JNI_EXPORT void JNICALL Java_org_rocksdb_ZkvEnv_nDisableCallouts(JNIEnv*, jclass, jlong handle) {
  auto* h = reinterpret_cast<zkv::EnvHandle*>(handle);
  if (!h->zone_fs) return;
  zfs_set_allocator(h->zone_fs, nullptr, nullptr);
  zfs_set_victim_chooser(h->zone_fs, nullptr, nullptr);
}

// Installs the Java placement policy (io.zkv.fs.ZoneAllocator) on a zoned Env.
JNI_EXPORT jint JNICALL Java_org_rocksdb_ZkvEnv_nSetAllocator(JNIEnv* env, jclass, jlong handle, jobject allocator) {
  auto* h = reinterpret_cast<zkv::EnvHandle*>(handle);
  if (!zkv::Bind(env, h, &h->allocator, allocator, "allocate", "(JLjava/lang/String;IZ[JI[J)V")) return -EINVAL;
  zfs_set_allocator(h->zone_fs, zkv::CallJavaAllocator, &h->allocator);
  return 0;
}

// Installs the Java GC victim policy (io.zkv.fs.GcVictimChooser) on a zoned Env.
JNI_EXPORT jint JNICALL Java_org_rocksdb_ZkvEnv_nSetVictimChooser(JNIEnv* env, jclass, jlong handle, jobject chooser) {
  auto* h = reinterpret_cast<zkv::EnvHandle*>(handle);
  if (!zkv::Bind(env, h, &h->victim_chooser, chooser, "chooseVictim", "([J)I")) return -EINVAL;
  zfs_set_victim_chooser(h->zone_fs, zkv::CallJavaVictimChooser, &h->victim_chooser);
  return 0;
}

// Background GC start level, percent free (0 = off).
JNI_EXPORT jint JNICALL Java_org_rocksdb_ZkvEnv_nSetGcStartPercent(JNIEnv*, jclass, jlong handle, jint percent) {
  auto* h = reinterpret_cast<zkv::EnvHandle*>(handle);
  if (!h->zone_fs || percent < 0) return -EINVAL;
  return zfs_set_gc_start_percent(h->zone_fs, static_cast<uint32_t>(percent));
}

// Starts background GC (after the Java policies are installed); idempotent.
JNI_EXPORT jint JNICALL Java_org_rocksdb_ZkvEnv_nStartGc(JNIEnv*, jclass, jlong handle) {
  auto* h = reinterpret_cast<zkv::EnvHandle*>(handle);
  if (!h->zone_fs) return -EINVAL;
  return zfs_start_gc(h->zone_fs);
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

// Zone file system counters, in the order of ZkvEnv.ZoneStats; returns how many it wrote (the Java
// side checks the count, so the two sides cannot silently disagree on the layout).
JNI_EXPORT jint JNICALL Java_org_rocksdb_ZkvEnv_nZoneStats(JNIEnv* env, jclass, jlong handle, jlongArray out) {
  auto* h = reinterpret_cast<zkv::EnvHandle*>(handle);
  if (!h->zone_fs) return -EINVAL;
  zfs_stats s;
  zfs_stats_get(h->zone_fs, &s);
  jlong v[] = {(jlong)s.host_bytes,
               (jlong)s.padding_bytes,
               (jlong)s.gc_bytes,
               (jlong)s.meta_bytes,
               (jlong)s.resets,
               (jlong)s.resets_without_copy,
               (jlong)s.meta_rolls,
               (jlong)s.live_bytes,
               (jlong)s.used_zone_bytes,
               (jlong)s.files,
               (jlong)s.data_zones,
               (jlong)s.empty_zones,
               (jlong)s.full_zones,
               (jlong)s.open_zones,
               (jlong)s.owned_zones,
               (jlong)s.policy_decisions,
               (jlong)s.fallback_allocations,
               (jlong)s.zone_steals};
  jsize n = static_cast<jsize>(sizeof v / sizeof v[0]);
  if (env->GetArrayLength(out) < n) return -EINVAL;
  env->SetLongArrayRegion(out, 0, n, v);
  return n;
}

// JNI of io.zkv.fs.ZoneFs, the mounted zone file system as Java holds it (mounted_zone_fs.h):
// mount and close, its settings and Java policies, counters, views and WALTZ's leased zones. Thin:
// slow paths return -errno for Java to explain, the hot path (a lease's append) never throws.
#include <jni.h>

#include <cerrno>
#include <string>
#include <vector>

#include "boundary.h"
#include "java_callouts.h"
#include "mounted_zone_fs.h"
#include "zone_view_buffer.h"
#include "zonefs.h"

#define JNI_EXPORT extern "C" __attribute__((visibility("default")))

namespace zkv {

MountedZoneFs::~MountedZoneFs() {
  DisableCallouts();
  zfs_unmount(fs);
}

void MountedZoneFs::DisableCallouts() {
  zfs_set_allocator(fs, nullptr, nullptr);
  zfs_set_victim_chooser(fs, nullptr, nullptr);
  zfs_set_gc_trigger(fs, nullptr, nullptr);
}

namespace {
thread_local std::string last_error;
}  // namespace

// A lease call on one zone of one owner; -EINVAL for a negative zone.
jint OnLeasedZone(jlong handle, jlong owner, jint zone, int (*call)(zfs*, uint64_t, uint32_t)) {
  if (zone < 0) return -EINVAL;
  return call(RefOfHandle(handle)->get()->fs, static_cast<uint64_t>(owner), static_cast<uint32_t>(zone));
}

}  // namespace zkv

JNI_EXPORT jstring JNICALL Java_io_zkv_fs_ZoneFs_nLastError(JNIEnv* env, jclass) {
  return env->NewStringUTF(zkv::last_error.c_str());
}

// Formats (if asked) and mounts the zone file system on an open device; returns the ZoneFsRef* or
// a negative code with the message in nLastError. read_only: nothing on the device changes and
// every write fails with EROFS (zkv fsck --verify-data opens databases read-only through it).
JNI_EXPORT jlong JNICALL Java_io_zkv_fs_ZoneFs_nMount(JNIEnv*, jclass, jlong device, jboolean format,
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
  zkv::mounted_file_systems.fetch_add(1);
  return reinterpret_cast<jlong>(new zkv::ZoneFsRef(std::make_shared<zkv::MountedZoneFs>(fs)));
}

// Java's ZoneFs closes: its policies are uninstalled (no call-out starts after this returns) and
// released, and its reference dropped; an Env over it keeps the file system mounted until RocksDB
// lets go of it (then the safety rule decides alone).
JNI_EXPORT void JNICALL Java_io_zkv_fs_ZoneFs_nClose(JNIEnv*, jclass, jlong handle) {
  zkv::ZoneFsRef* ref = zkv::RefOfHandle(handle);
  zkv::MountedZoneFs* h = ref->get();
  h->DisableCallouts();
  h->allocator.Release();
  h->victim_chooser.Release();
  h->gc_trigger.Release();
  zkv::mounted_file_systems.fetch_sub(1);
  delete ref;
}

// Uninstalls the Java policies: the file system's safety rule decides from now on (counted as
// overrides), and no background GC round collects. For JVM exit (ZoneFsExitGuard): a RocksDB
// thread then never attaches to a JVM that is going away (it would block forever, and the VM
// thread, which joins RocksDB's thread pool in exit(), with it).
JNI_EXPORT void JNICALL Java_io_zkv_fs_ZoneFs_nDisableCallouts(JNIEnv*, jclass, jlong handle) {
  zkv::RefOfHandle(handle)->get()->DisableCallouts();
}

// The JVM is exiting (ZoneFsExitGuard's shutdown hook): threads attached for call-outs stay
// attached when they exit, and no thread attaches any more.
JNI_EXPORT void JNICALL Java_io_zkv_fs_ZoneFs_nJvmExiting(JNIEnv*, jclass) { zkv::JvmExiting(); }

// Installs the Java placement policy (io.zkv.fs.ZoneAllocator).
JNI_EXPORT jint JNICALL Java_io_zkv_fs_ZoneFs_nSetAllocator(JNIEnv* env, jclass, jlong handle, jobject allocator) {
  zkv::MountedZoneFs* h = zkv::RefOfHandle(handle)->get();
  if (!h->allocator.Bind(env, allocator, "allocate", "(Ljava/nio/ByteBuffer;)V", &h->hints)) return -EINVAL;
  zfs_set_allocator(h->fs, zkv::CallJavaAllocator, &h->allocator);
  return 0;
}

// Installs the Java GC victim policy (io.zkv.fs.GcVictimChooser).
JNI_EXPORT jint JNICALL Java_io_zkv_fs_ZoneFs_nSetVictimChooser(JNIEnv* env, jclass, jlong handle, jobject chooser) {
  zkv::MountedZoneFs* h = zkv::RefOfHandle(handle)->get();
  if (!h->victim_chooser.Bind(env, chooser, "chooseVictim", "(Ljava/nio/ByteBuffer;)I", &h->hints)) return -EINVAL;
  zfs_set_victim_chooser(h->fs, zkv::CallJavaVictimChooser, &h->victim_chooser);
  return 0;
}

// Installs the Java GC trigger (io.zkv.fs.GcRoundPlanner).
JNI_EXPORT jint JNICALL Java_io_zkv_fs_ZoneFs_nSetGcTrigger(JNIEnv* env, jclass, jlong handle, jobject trigger) {
  zkv::MountedZoneFs* h = zkv::RefOfHandle(handle)->get();
  if (!h->gc_trigger.Bind(env, trigger, "maxLiveBytes", "(Ljava/nio/ByteBuffer;)J", &h->hints)) return -EINVAL;
  zfs_set_gc_trigger(h->fs, zkv::CallJavaGcTrigger, &h->gc_trigger);
  return 0;
}

// Starts background GC (after the Java policies are installed); idempotent.
JNI_EXPORT jint JNICALL Java_io_zkv_fs_ZoneFs_nStartGc(JNIEnv*, jclass, jlong handle) {
  zkv::MountedZoneFs* h = zkv::RefOfHandle(handle)->get();
  return zfs_start_gc(h->fs);
}

// The device bytes of one WAL write-out (zfs_set_wal_buffer); -EINVAL out of range.
JNI_EXPORT jint JNICALL Java_io_zkv_fs_ZoneFs_nSetWalBuffer(JNIEnv*, jclass, jlong handle, jint bytes) {
  zkv::MountedZoneFs* h = zkv::RefOfHandle(handle)->get();
  if (bytes <= 0) return -EINVAL;
  return zfs_set_wal_buffer(h->fs, static_cast<uint32_t>(bytes));
}

// SST write-behind (zfs_set_write_behind): on where the device's queues keep requests in flight
// (the mount's default), -EOPNOTSUPP for on where they do not.
JNI_EXPORT jint JNICALL Java_io_zkv_fs_ZoneFs_nSetWriteBehind(JNIEnv*, jclass, jlong handle, jboolean on) {
  zkv::MountedZoneFs* h = zkv::RefOfHandle(handle)->get();
  return zfs_set_write_behind(h->fs, on ? 1 : 0);
}

// The over-provisioning reserve (zfs_set_op_zones): -EINVAL if it leaves too few data zones.
JNI_EXPORT jint JNICALL Java_io_zkv_fs_ZoneFs_nSetOpZones(JNIEnv*, jclass, jlong handle, jint zones) {
  zkv::MountedZoneFs* h = zkv::RefOfHandle(handle)->get();
  if (zones < 0) return -EINVAL;
  return zfs_set_op_zones(h->fs, static_cast<uint32_t>(zones));
}

// Data files' NoSpace from the policy stands (zfs_set_strict_no_space).
JNI_EXPORT jint JNICALL Java_io_zkv_fs_ZoneFs_nSetStrictNoSpace(JNIEnv*, jclass, jlong handle, jboolean on) {
  zkv::MountedZoneFs* h = zkv::RefOfHandle(handle)->get();
  return zfs_set_strict_no_space(h->fs, on ? 1 : 0);
}

// How WAL files are written (zfs_set_wal_mode): -EINVAL out of range, -EOPNOTSUPP for ZWAL on a
// device whose queues carry out each request at submit.
JNI_EXPORT jint JNICALL Java_io_zkv_fs_ZoneFs_nSetWalMode(JNIEnv*, jclass, jlong handle, jint mode, jint depth,
                                                          jlong barrier) {
  zkv::MountedZoneFs* h = zkv::RefOfHandle(handle)->get();
  if (depth < 0 || barrier < 0) return -EINVAL;
  return zfs_set_wal_mode(h->fs, mode, static_cast<uint32_t>(depth), static_cast<uint64_t>(barrier));
}

// WALTZ's +R (zfs_set_wal_reserve): -EINVAL out of range.
JNI_EXPORT jint JNICALL Java_io_zkv_fs_ZoneFs_nSetWalReserve(JNIEnv*, jclass, jlong handle, jint zones,
                                                             jlong switch_room) {
  zkv::MountedZoneFs* h = zkv::RefOfHandle(handle)->get();
  if (zones < 0 || switch_room < 0) return -EINVAL;
  return zfs_set_wal_reserve(h->fs, static_cast<uint32_t>(zones), static_cast<uint64_t>(switch_room));
}

// WALTZ's leased zones (zfs_lease_*): thin, -errno, never throwing; zkv-core says what failed.
JNI_EXPORT jint JNICALL Java_io_zkv_fs_ZoneFs_nLeaseZone(JNIEnv*, jclass, jlong handle, jlong owner) {
  zkv::MountedZoneFs* h = zkv::RefOfHandle(handle)->get();
  uint32_t zone = 0;
  int rc = zfs_lease_zone(h->fs, static_cast<uint64_t>(owner), &zone);
  return rc ? rc : static_cast<jint>(zone);
}

JNI_EXPORT jint JNICALL Java_io_zkv_fs_ZoneFs_nReturnLease(JNIEnv*, jclass, jlong handle, jlong owner, jint zone) {
  return zkv::OnLeasedZone(handle, owner, zone, zfs_lease_return);
}

JNI_EXPORT jint JNICALL Java_io_zkv_fs_ZoneFs_nReturnAllLeases(JNIEnv*, jclass, jlong handle, jlong owner) {
  zkv::MountedZoneFs* h = zkv::RefOfHandle(handle)->get();
  return zfs_lease_return_all(h->fs, static_cast<uint64_t>(owner));
}

JNI_EXPORT jint JNICALL Java_io_zkv_fs_ZoneFs_nReturnLeaseSet(JNIEnv* env, jclass, jlong handle, jlong owner,
                                                              jintArray zones) {
  zkv::MountedZoneFs* h = zkv::RefOfHandle(handle)->get();
  if (!zones) return -EINVAL;
  jsize n = env->GetArrayLength(zones);
  std::vector<uint32_t> z(static_cast<size_t>(n) + 1);
  env->GetIntArrayRegion(zones, 0, n, reinterpret_cast<jint*>(z.data()));
  for (jsize i = 0; i < n; i++)
    if (static_cast<jint>(z[static_cast<size_t>(i)]) < 0) return -EINVAL;
  return zfs_lease_return_set(h->fs, static_cast<uint64_t>(owner), z.data(), static_cast<uint32_t>(n));
}

JNI_EXPORT jint JNICALL Java_io_zkv_fs_ZoneFs_nReturnLeasesKeepEmpty(JNIEnv*, jclass, jlong handle, jlong owner,
                                                                     jint keep) {
  zkv::MountedZoneFs* h = zkv::RefOfHandle(handle)->get();
  if (keep < 0) return -EINVAL;
  return zfs_lease_return_keep_empty(h->fs, static_cast<uint64_t>(owner), static_cast<uint32_t>(keep));
}

JNI_EXPORT jint JNICALL Java_io_zkv_fs_ZoneFs_nLeasedZones(JNIEnv* env, jclass, jlong handle, jlong owner,
                                                           jintArray out) {
  zkv::MountedZoneFs* h = zkv::RefOfHandle(handle)->get();
  jsize cap = env->GetArrayLength(out);
  std::vector<uint32_t> zones(static_cast<size_t>(cap) + 1);
  int n = zfs_leased_zones(h->fs, static_cast<uint64_t>(owner), zones.data(), static_cast<uint32_t>(cap));
  if (n > 0) {
    jsize copy = n < cap ? n : cap;
    env->SetIntArrayRegion(out, 0, copy, reinterpret_cast<const jint*>(zones.data()));
  }
  return n;
}

// The hot path: a direct buffer's first len bytes, no copy; the landed offset in the zone or -errno.
JNI_EXPORT jlong JNICALL Java_io_zkv_fs_ZoneFs_nLeaseAppend(JNIEnv* env, jclass, jlong handle, jlong owner, jint zone,
                                                            jobject buf, jint len, jboolean fua) {
  zkv::MountedZoneFs* h = zkv::RefOfHandle(handle)->get();
  void* p = env->GetDirectBufferAddress(buf);
  if (zone < 0 || len <= 0 || !p || env->GetDirectBufferCapacity(buf) < len) return -EINVAL;
  return zfs_lease_append(h->fs, static_cast<uint64_t>(owner), static_cast<uint32_t>(zone), p, static_cast<size_t>(len),
                          fua ? 1 : 0);
}

JNI_EXPORT jint JNICALL Java_io_zkv_fs_ZoneFs_nLeaseRead(JNIEnv* env, jclass, jlong handle, jlong owner, jint zone,
                                                         jlong offset, jobject buf, jint len) {
  zkv::MountedZoneFs* h = zkv::RefOfHandle(handle)->get();
  void* p = env->GetDirectBufferAddress(buf);
  if (zone < 0 || offset < 0 || len < 0 || !p || env->GetDirectBufferCapacity(buf) < len) return -EINVAL;
  return zfs_lease_read(h->fs, static_cast<uint64_t>(owner), static_cast<uint32_t>(zone), static_cast<uint64_t>(offset),
                        p, static_cast<size_t>(len));
}

// The bytes written to a leased zone (the device's write pointer) or -errno.
JNI_EXPORT jlong JNICALL Java_io_zkv_fs_ZoneFs_nLeaseWritten(JNIEnv*, jclass, jlong handle, jlong owner, jint zone) {
  zkv::MountedZoneFs* h = zkv::RefOfHandle(handle)->get();
  if (zone < 0) return -EINVAL;
  zfs_lease_state st;
  int rc = zfs_lease_info(h->fs, static_cast<uint64_t>(owner), static_cast<uint32_t>(zone), &st);
  return rc ? rc : static_cast<jlong>(st.written);
}

// A leased zone's key into out[0..1] (zeros: a lease recorded without one): 0 or -errno.
JNI_EXPORT jint JNICALL Java_io_zkv_fs_ZoneFs_nLeaseKey(JNIEnv* env, jclass, jlong handle, jlong owner, jint zone,
                                                        jlongArray out) {
  zkv::MountedZoneFs* h = zkv::RefOfHandle(handle)->get();
  if (zone < 0 || !out || env->GetArrayLength(out) < 2) return -EINVAL;
  zfs_lease_state st;
  int rc = zfs_lease_info(h->fs, static_cast<uint64_t>(owner), static_cast<uint32_t>(zone), &st);
  if (rc) return rc;
  jlong key[2] = {static_cast<jlong>(st.key[0]), static_cast<jlong>(st.key[1])};
  env->SetLongArrayRegion(out, 0, 2, key);
  return 0;
}

JNI_EXPORT jint JNICALL Java_io_zkv_fs_ZoneFs_nLeaseRoom(JNIEnv*, jclass, jlong handle) {
  zkv::MountedZoneFs* h = zkv::RefOfHandle(handle)->get();
  return zfs_lease_room(h->fs);
}

JNI_EXPORT jint JNICALL Java_io_zkv_fs_ZoneFs_nRenewLease(JNIEnv*, jclass, jlong handle, jlong owner, jint zone) {
  return zkv::OnLeasedZone(handle, owner, zone, zfs_lease_renew);
}

JNI_EXPORT jint JNICALL Java_io_zkv_fs_ZoneFs_nFinishLease(JNIEnv*, jclass, jlong handle, jlong owner, jint zone) {
  return zkv::OnLeasedZone(handle, owner, zone, zfs_lease_finish);
}

// Garbage collection on demand (ZkvDb.resume after NoSpace); returns the free bytes.
JNI_EXPORT jlong JNICALL Java_io_zkv_fs_ZoneFs_nReclaim(JNIEnv*, jclass, jlong handle, jlong want) {
  zkv::MountedZoneFs* h = zkv::RefOfHandle(handle)->get();
  if (want < 0) return -EINVAL;
  return static_cast<jlong>(zfs_reclaim(h->fs, static_cast<uint64_t>(want)));
}

// Zone file system counters as a ZKV_BND_ZONE_STATS buffer (jni/boundary.h) written into `out`, a
// direct buffer; returns the bytes written or a negative errno (-ENOBUFS: too small).
JNI_EXPORT jint JNICALL Java_io_zkv_fs_ZoneFs_nZoneStats(JNIEnv* env, jclass, jlong handle, jobject out) {
  zkv::MountedZoneFs* h = zkv::RefOfHandle(handle)->get();
  zfs_stats s;
  zfs_stats_get(h->fs, &s);
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
JNI_EXPORT jbyteArray JNICALL Java_io_zkv_fs_ZoneFs_nZoneView(JNIEnv* env, jclass, jlong handle) {
  zkv::MountedZoneFs* h = zkv::RefOfHandle(handle)->get();
  auto hints = h->hints.Get();
  struct Copy {
    JNIEnv* env;
    const zkv::FileHints* hints;
    jbyteArray out;
  } copy{env, hints.get(), nullptr};
  int rc = zfs_inspect_view(
      h->fs,
      [](void* ctx, const zfs_view* v) -> int {
        auto* c = static_cast<Copy*>(ctx);
        zkv::ZoneViewBuffer view;
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

// The boundary layouts as this build compiled them (jni/boundary.h), for the Java side's check.
JNI_EXPORT jintArray JNICALL Java_io_zkv_fs_ZoneFs_nBoundaryLayout(JNIEnv* env, jclass, jint layout) {
  int32_t v[128];
  int n = zkv_boundary_layout(layout, v, 128);
  if (n < 0) return nullptr;
  jintArray a = env->NewIntArray(n);
  if (a) env->SetIntArrayRegion(a, 0, n, v);
  return a;
}

// Usage of the files under a path as a ZKV_BND_PATH_USAGE buffer written into `out`; returns the
// bytes written or a negative errno.
JNI_EXPORT jint JNICALL Java_io_zkv_fs_ZoneFs_nPathUsage(JNIEnv* env, jclass, jlong handle, jstring prefix,
                                                         jobject out) {
  zkv::MountedZoneFs* h = zkv::RefOfHandle(handle)->get();
  void* dst = env->GetDirectBufferAddress(out);
  jlong cap = env->GetDirectBufferCapacity(out);
  if (!dst || cap < 0) return -EINVAL;
  const char* p = env->GetStringUTFChars(prefix, nullptr);
  if (!p) return -ENOMEM;
  zkv_bnd_path_usage u;
  int rc = zkv_boundary_path_usage(h->fs, p, &u);
  env->ReleaseStringUTFChars(prefix, p);
  if (rc) return rc;
  return zkv_boundary_write_single(dst, static_cast<size_t>(cap), ZKV_BND_PATH_USAGE, ZKV_PATH_USAGE_VERSION, &u,
                                   sizeof u);
}

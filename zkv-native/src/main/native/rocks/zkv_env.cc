// The RocksDB side of zkv: a rocksdb::Env whose FileSystem is zkv's: the zone file system on a
// zoned device, or a pass-through over the host file system that counts what RocksDB asks of it
// (a baseline and a plumbing check).
#include <jni.h>

#include <atomic>
#include <cerrno>
#include <memory>
#include <string>

#include "rocksdb/env.h"
#include "rocksdb/file_system.h"
#include "rocksdb/version.h"
#include "zone_file_system.h"
#include "zonefs.h"

#define JNI_EXPORT extern "C" __attribute__((visibility("default")))

namespace zkv {

class PassthroughFileSystem : public rocksdb::FileSystemWrapper {
 public:
  explicit PassthroughFileSystem(const std::shared_ptr<rocksdb::FileSystem>& target) : FileSystemWrapper(target) {}
  const char* Name() const override { return "ZkvPassthroughFileSystem"; }

  rocksdb::IOStatus NewWritableFile(const std::string& f, const rocksdb::FileOptions& o,
                                    std::unique_ptr<rocksdb::FSWritableFile>* r, rocksdb::IODebugContext* d) override {
    files_created.fetch_add(1, std::memory_order_relaxed);
    return FileSystemWrapper::NewWritableFile(f, o, r, d);
  }
  rocksdb::IOStatus NewRandomAccessFile(const std::string& f, const rocksdb::FileOptions& o,
                                        std::unique_ptr<rocksdb::FSRandomAccessFile>* r,
                                        rocksdb::IODebugContext* d) override {
    files_opened.fetch_add(1, std::memory_order_relaxed);
    return FileSystemWrapper::NewRandomAccessFile(f, o, r, d);
  }

  std::atomic<int64_t> files_created{0};
  std::atomic<int64_t> files_opened{0};
};

// The Env owns the FileSystem through a shared_ptr; the Java handle is the raw Env* (RocksJava's
// convention) and this struct keeps a typed pointer to the FS for the counters.
struct EnvHandle {
  std::unique_ptr<rocksdb::Env> env;
  std::shared_ptr<PassthroughFileSystem> fs;  // pass-through Envs
  zfs* zone_fs = nullptr;                     // zoned Envs (owned by the ZoneFileSystem in env)
};

thread_local std::string last_error;

}  // namespace zkv

JNI_EXPORT jint JNICALL Java_io_zkv_nativelib_ZkvNative_nRocksdbHeaderVersion(JNIEnv*, jclass) {
  return ROCKSDB_MAJOR * 10000 + ROCKSDB_MINOR * 100 + ROCKSDB_PATCH;
}

// Returns an EnvHandle*; ZkvEnv passes handle->env to RocksJava.
JNI_EXPORT jlong JNICALL Java_org_rocksdb_ZkvEnv_nNewPassthrough(JNIEnv*, jclass) {
  auto* h = new zkv::EnvHandle();
  h->fs = std::make_shared<zkv::PassthroughFileSystem>(rocksdb::FileSystem::Default());
  h->env = rocksdb::NewCompositeEnv(h->fs);
  return reinterpret_cast<jlong>(h);
}

JNI_EXPORT jlong JNICALL Java_org_rocksdb_ZkvEnv_nEnvPointer(JNIEnv*, jclass, jlong handle) {
  return reinterpret_cast<jlong>(reinterpret_cast<zkv::EnvHandle*>(handle)->env.get());
}

JNI_EXPORT void JNICALL Java_org_rocksdb_ZkvEnv_nDispose(JNIEnv*, jclass, jlong handle) {
  delete reinterpret_cast<zkv::EnvHandle*>(handle);
}

JNI_EXPORT jlong JNICALL Java_org_rocksdb_ZkvEnv_nFilesCreated(JNIEnv*, jclass, jlong handle) {
  auto* h = reinterpret_cast<zkv::EnvHandle*>(handle);
  return h->fs ? h->fs->files_created.load() : -1;
}

JNI_EXPORT jlong JNICALL Java_org_rocksdb_ZkvEnv_nFilesOpened(JNIEnv*, jclass, jlong handle) {
  auto* h = reinterpret_cast<zkv::EnvHandle*>(handle);
  return h->fs ? h->fs->files_opened.load() : -1;
}

// Formats (if asked) and mounts the zone file system on an open device; returns an EnvHandle* or
// a negative code with the message in nLastError.
JNI_EXPORT jlong JNICALL Java_org_rocksdb_ZkvEnv_nNewZoned(JNIEnv*, jclass, jlong device, jboolean format) {
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
  zfs* fs = zfs_mount(dev, &rc, err, sizeof err);
  if (!fs) {
    zkv::last_error = std::string("mount: ") + err;
    return rc;
  }
  auto* h = new zkv::EnvHandle();
  h->zone_fs = fs;
  h->env = rocksdb::NewCompositeEnv(std::make_shared<zkv::ZoneFileSystem>(fs));
  return reinterpret_cast<jlong>(h);
}

JNI_EXPORT jstring JNICALL Java_org_rocksdb_ZkvEnv_nLastError(JNIEnv* env, jclass) {
  return env->NewStringUTF(zkv::last_error.c_str());
}

// Zone file system counters, in the order of ZkvEnv.ZoneStats.
JNI_EXPORT jint JNICALL Java_org_rocksdb_ZkvEnv_nZoneStats(JNIEnv* env, jclass, jlong handle, jlongArray out) {
  auto* h = reinterpret_cast<zkv::EnvHandle*>(handle);
  if (!h->zone_fs) return -EINVAL;
  zfs_stats s;
  zfs_stats_get(h->zone_fs, &s);
  jlong v[14] = {(jlong)s.host_bytes, (jlong)s.padding_bytes, (jlong)s.gc_bytes,
                 (jlong)s.meta_bytes, (jlong)s.resets,        (jlong)s.resets_without_copy,
                 (jlong)s.meta_rolls, (jlong)s.live_bytes,    (jlong)s.used_zone_bytes,
                 (jlong)s.files,      (jlong)s.data_zones,    (jlong)s.empty_zones,
                 (jlong)s.full_zones, (jlong)s.open_zones};
  env->SetLongArrayRegion(out, 0, 14, v);
  return 0;
}

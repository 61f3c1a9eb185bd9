// The RocksDB side of zkv: a rocksdb::Env whose FileSystem is zkv's. For now a pass-through
// FileSystem over the default one that counts what RocksDB asks of it, proving the plumbing
// (RocksJava -> ZkvEnv -> our FileSystem); the zone file system replaces it.
#include <jni.h>

#include <atomic>
#include <memory>

#include "rocksdb/env.h"
#include "rocksdb/file_system.h"
#include "rocksdb/version.h"

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
  std::shared_ptr<PassthroughFileSystem> fs;
};

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
  return reinterpret_cast<zkv::EnvHandle*>(handle)->fs->files_created.load();
}

JNI_EXPORT jlong JNICALL Java_org_rocksdb_ZkvEnv_nFilesOpened(JNIEnv*, jclass, jlong handle) {
  return reinterpret_cast<zkv::EnvHandle*>(handle)->fs->files_opened.load();
}

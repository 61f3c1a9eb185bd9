// Test plumbing (built into the test-only library libzkv-rocksdb-test-<version>.so, never the
// library's): a rocksdb::Env over the host file system whose FileSystem only counts what RocksDB
// asks of it, proving that RocksDB's file calls reach zkv's native layer. Its only Java side is the
// test class org.rocksdb.PassthroughEnv (zkv-native's test sources, shared with other modules'
// tests through the zkv-native test jar): the library's public API has no pass-through Env.
#include <jni.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>

#include "rocksdb/env.h"
#include "rocksdb/file_system.h"

#define JNI_EXPORT extern "C" __attribute__((visibility("default")))

namespace zkv {
namespace {

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

// The Env owns the FileSystem through a shared_ptr; the Java handle is this struct, and the
// pointer RocksJava sees is env.get().
struct PassthroughHandle {
  std::shared_ptr<PassthroughFileSystem> fs;
  std::unique_ptr<rocksdb::Env> env;
};

PassthroughHandle* Handle(jlong handle) { return reinterpret_cast<PassthroughHandle*>(handle); }

}  // namespace
}  // namespace zkv

JNI_EXPORT jlong JNICALL Java_org_rocksdb_PassthroughEnv_nNew(JNIEnv*, jclass) {
  auto* h = new zkv::PassthroughHandle();
  h->fs = std::make_shared<zkv::PassthroughFileSystem>(rocksdb::FileSystem::Default());
  h->env = rocksdb::NewCompositeEnv(h->fs);
  return reinterpret_cast<jlong>(h);
}

JNI_EXPORT jlong JNICALL Java_org_rocksdb_PassthroughEnv_nEnvPointer(JNIEnv*, jclass, jlong handle) {
  return reinterpret_cast<jlong>(zkv::Handle(handle)->env.get());
}

JNI_EXPORT void JNICALL Java_org_rocksdb_PassthroughEnv_nDispose(JNIEnv*, jclass, jlong handle) {
  delete zkv::Handle(handle);
}

JNI_EXPORT jlong JNICALL Java_org_rocksdb_PassthroughEnv_nFilesCreated(JNIEnv*, jclass, jlong handle) {
  return zkv::Handle(handle)->fs->files_created.load();
}

JNI_EXPORT jlong JNICALL Java_org_rocksdb_PassthroughEnv_nFilesOpened(JNIEnv*, jclass, jlong handle) {
  return zkv::Handle(handle)->fs->files_opened.load();
}

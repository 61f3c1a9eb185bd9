// The RocksDB side of zkv: a rocksdb::Env whose FileSystem is zkv's zone file system, built over a
// mounted file system Java's io.zkv.fs.ZoneFs holds (jni/mounted_zone_fs.h), and the LSM hint
// listener that tells that file system's policies what RocksDB knows of each SST. (The tests'
// pass-through Env over the host file system is passthrough_env.cc, built into a test-only
// library.)
#include <jni.h>

#include <cerrno>
#include <memory>
#include <string>
#include <vector>

#include "java_callouts.h"
#include "lsm_hints.h"
#include "mounted_zone_fs.h"
#include "rocksdb/env.h"
#include "rocksdb/file_system.h"
#include "rocksdb/version.h"
#include "zone_file_system.h"

#define JNI_EXPORT extern "C" __attribute__((visibility("default")))

namespace zkv {

// The Env owns its FileSystem, which holds a reference to the mounted file system; the Java handle
// is this struct, RocksJava sees the raw Env* (env.get()). The LSM hints of every database on the
// device are gathered in `hints` by the listeners bound to this Env, and the file system's
// policies read them (one Env per mounted file system).
struct EnvHandle {
  std::unique_ptr<rocksdb::Env> env;
  std::shared_ptr<ZoneFileSystem> file_system;
  std::shared_ptr<LsmHintRegistry> hints = std::make_shared<LsmHintRegistry>();
};

}  // namespace zkv

JNI_EXPORT jint JNICALL Java_io_zkv_nativelib_ZkvNative_nRocksdbHeaderVersion(JNIEnv*, jclass) {
  return ROCKSDB_MAJOR * 10000 + ROCKSDB_MINOR * 100 + ROCKSDB_PATCH;
}

JNI_EXPORT jlong JNICALL Java_org_rocksdb_ZkvEnv_nEnvPointer(JNIEnv*, jclass, jlong handle) {
  return reinterpret_cast<jlong>(reinterpret_cast<zkv::EnvHandle*>(handle)->env.get());
}

// An Env over the mounted file system Java's ZoneFs holds (its handle); returns an EnvHandle*, or
// -EBUSY if an Env was built over it already (its policies read one Env's LSM hints).
JNI_EXPORT jlong JNICALL Java_org_rocksdb_ZkvEnv_nNewEnv(JNIEnv*, jclass, jlong zone_fs) {
  zkv::ZoneFsRef mounted = *zkv::RefOfHandle(zone_fs);
  if (mounted->env_built.exchange(true)) return -EBUSY;
  auto* h = new zkv::EnvHandle();
  h->file_system = std::make_shared<zkv::ZoneFileSystem>(mounted->fs, mounted);
  h->file_system->SetHints(h->hints);
  mounted->hints.Set(h->hints);
  h->env = rocksdb::NewCompositeEnv(h->file_system);
  // The exit handler, registered after RocksDB's default Env (NewCompositeEnv built it if nothing
  // had), runs before exit() destroys that Env's thread pools.
  zkv::RegisterExitHandler();
  return reinterpret_cast<jlong>(h);
}

// Frees the Env (and, once RocksDB lets go of it, its reference to the mounted file system), unless
// a database still holds its LOCK on it (-EBUSY, nothing freed: RocksDB's database keeps using the
// Env, ZkvEnv.close checks first).
JNI_EXPORT jint JNICALL Java_org_rocksdb_ZkvEnv_nDispose(JNIEnv*, jclass, jlong handle) {
  auto* h = reinterpret_cast<zkv::EnvHandle*>(handle);
  if (!h->file_system->LockedDatabases().empty()) return -EBUSY;
  delete h;
  return 0;
}

// The directories of the databases open on the Env's file system, one per line ("" for none).
JNI_EXPORT jstring JNICALL Java_org_rocksdb_ZkvEnv_nOpenDatabases(JNIEnv* env, jclass, jlong handle) {
  auto* h = reinterpret_cast<zkv::EnvHandle*>(handle);
  std::string all;
  for (const auto& dir : h->file_system->LockedDatabases()) all += (all.empty() ? "" : "\n") + dir;
  return env->NewStringUTF(all.c_str());
}

// The largest RocksDB sequence number the database's flushes have persisted (WALTZ's releases).
JNI_EXPORT jlong JNICALL Java_org_rocksdb_ZkvLsmListener_nFlushedSequence(JNIEnv*, jclass, jlong listener) {
  return listener ? static_cast<jlong>(zkv::FromHandle(listener)->FlushedSequence()) : 0;
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

// Binds a listener to the hint registry of an Env.
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
  if (!db) return -EINVAL;
  h->hints->Refresh(reinterpret_cast<rocksdb::DB*>(db));
  return static_cast<jint>(h->hints->Size());
}

// The next database the calling thread opens on this Env is recorded under `token`
// (ZoneFileSystem::ExpectOpen).
JNI_EXPORT jint JNICALL Java_org_rocksdb_ZkvEnv_nExpectOpen(JNIEnv*, jclass, jlong handle, jlong token) {
  auto* h = reinterpret_cast<zkv::EnvHandle*>(handle);
  h->file_system->ExpectOpen(static_cast<uint64_t>(token));
  return 0;
}

// The directory of the database opened under `token`, null if none is open under it.
JNI_EXPORT jstring JNICALL Java_org_rocksdb_ZkvEnv_nOpenedDir(JNIEnv* env, jclass, jlong handle, jlong token) {
  auto* h = reinterpret_cast<zkv::EnvHandle*>(handle);
  std::string dir = h->file_system->OpenedDir(static_cast<uint64_t>(token));
  return dir.empty() ? nullptr : env->NewStringUTF(dir.c_str());
}

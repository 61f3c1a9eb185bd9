// The Java policies' call-outs (java_callouts.h): attaching RocksDB's and the file system's
// threads to the JVM, handing the policies the zone view, and leaving a JVM that exits alone.
#include "java_callouts.h"

#include <pthread.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>

#include "zone_view_buffer.h"

namespace zkv {

std::atomic<int> mounted_file_systems{0};

bool JavaCallout::Bind(JNIEnv* env, jobject object, const char* name, const char* signature, const HintSource* source) {
  if (target) return false;
  jmethodID m = env->GetMethodID(env->GetObjectClass(object), name, signature);
  if (!m || env->GetJavaVM(&vm) != 0) {
    env->ExceptionClear();
    return false;
  }
  target = env->NewGlobalRef(object);
  method = m;
  hints = source;
  return true;
}

void JavaCallout::Release() {
  JNIEnv* jni = nullptr;
  if (target && vm->GetEnv(reinterpret_cast<void**>(&jni), JNI_VERSION_1_8) == JNI_OK) jni->DeleteGlobalRef(target);
  target = nullptr;
}

// RocksDB's background threads meet Java here. A thread attaches at its first call-out and stays
// attached: attaching for each call-out made and freed the JVM's per-thread structures every time
// (about 1.4 times a Kafka Streams store open/close cycle). A pthread key detaches the thread when
// it exits, unless the JVM is exiting: RocksDB's thread pools are joined by exit()'s static
// destructors after the JVM has gone, and DetachCurrentThread would then block forever (and exit()
// with it, JvmExitTest). ZoneFsExitGuard's shutdown hook sets jvm_exiting before the JVM goes, and
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
// joined while their jobs still use it). After System.exit or SIGTERM, whose hook (ZoneFsExitGuard)
// uninstalled the policies first, exit goes on as usual.
void OnProcessExit(int status, void*) {
  bool hook_ran = jvm_exiting.exchange(true);
  process_exiting.store(true);
  if (callouts_in_java.load() > 0 || (!hook_ran && mounted_file_systems.load() > 0)) _exit(status);
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
int CallWithView(JavaCallout* c, ZoneViewBuffer* view, Returns returns, jlong* result) {
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
  ZoneViewBuffer view;
  auto hints = a->hints->Get();
  int rc = view.Build(*zones, hints.get(), req);
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
  ZoneViewBuffer view;
  auto hints = c->hints->Get();
  int rc = view.Build(*zones, hints.get(), nullptr);
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
  ZoneViewBuffer view;
  auto hints = c->hints->Get();
  int rc = view.Build(*zones, hints.get(), nullptr);
  if (rc) return rc;
  jlong bound = 0;
  if ((rc = CallWithView(c, &view, Returns::kLong, &bound))) return rc;
  *max_live = bound > 0 ? static_cast<uint64_t>(bound) : 0;
  return 0;
}

void JvmExiting() { jvm_exiting.store(true); }

void RegisterExitHandler() { pthread_once(&attached_thread_once, CreateAttachedThreadKey); }

}  // namespace zkv

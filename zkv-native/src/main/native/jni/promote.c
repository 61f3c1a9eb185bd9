/* libzkvboot: the one step that must run before libzkv-rocksdb-<version>.so can load. RocksJava loads
 * librocksdbjni with RTLD_LOCAL; re-opening it with RTLD_NOLOAD|RTLD_GLOBAL loads nothing new but
 * makes its rocksdb:: symbols visible to that library, whose rocksdb references stay undefined.
 * (A separate, dependency-free library: JNA could do the same, but its dispatch library trips
 * -Xcheck:jni warnings and adds a 2 MB dependency for one dlopen call.) */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <jni.h>
#include <link.h>
#include <string.h>

#define JNI_EXPORT __attribute__((visibility("default")))

struct search {
  const char *fragment;
  char path[4096];
};

static int find_loaded(struct dl_phdr_info *info, size_t size, void *arg) {
  (void)size;
  struct search *s = arg;
  if (info->dlpi_name && strstr(info->dlpi_name, s->fragment)) {
    strncpy(s->path, info->dlpi_name, sizeof s->path - 1);
    return 1;
  }
  return 0;
}

/* Returns the promoted library's path, or null (and the reason in a RuntimeException). */
JNI_EXPORT jstring JNICALL Java_io_zkv_nativelib_ZkvNative_nPromoteGlobal(JNIEnv *env, jclass c, jstring fragment) {
  (void)c;
  struct search s = {0};
  s.fragment = (*env)->GetStringUTFChars(env, fragment, NULL);
  if (!s.fragment) return NULL;
  int found = dl_iterate_phdr(find_loaded, &s);
  (*env)->ReleaseStringUTFChars(env, fragment, s.fragment);
  jclass ex = (*env)->FindClass(env, "java/lang/IllegalStateException");
  if (!found) {
    if (ex) (*env)->ThrowNew(env, ex, "RocksJava's native library is not loaded in this process");
    return NULL;
  }
  if (!dlopen(s.path, RTLD_NOW | RTLD_NOLOAD | RTLD_GLOBAL)) {
    if (ex) (*env)->ThrowNew(env, ex, dlerror());
    return NULL;
  }
  return (*env)->NewStringUTF(env, s.path);
}

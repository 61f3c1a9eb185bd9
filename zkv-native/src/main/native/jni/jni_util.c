#include "jni_util.h"

#include "boundary.h"

uint8_t *zkv_jni_buffer(JNIEnv *env, jobject buf, jint pos, jlong len) {
  if (!buf || pos < 0 || len < 0) return NULL;
  uint8_t *base = (*env)->GetDirectBufferAddress(env, buf);
  jlong cap = (*env)->GetDirectBufferCapacity(env, buf);
  if (!base || cap < 0 || (jlong)pos + len > cap) return NULL;
  return base + pos;
}

jint zkv_jni_write_single(JNIEnv *env, jobject out, int layout, int version, const void *record, uint32_t size) {
  void *dst = (*env)->GetDirectBufferAddress(env, out);
  jlong cap = (*env)->GetDirectBufferCapacity(env, out);
  if (!dst || cap < 0) return -EINVAL;
  return zkv_boundary_write_single(dst, (size_t)cap, layout, version, record, size);
}

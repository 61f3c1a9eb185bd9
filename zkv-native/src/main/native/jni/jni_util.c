#include "jni_util.h"

uint8_t *zkv_jni_buffer(JNIEnv *env, jobject buf, jint pos, jlong len) {
  if (!buf || pos < 0 || len < 0) return NULL;
  uint8_t *base = (*env)->GetDirectBufferAddress(env, buf);
  jlong cap = (*env)->GetDirectBufferCapacity(env, buf);
  if (!base || cap < 0 || (jlong)pos + len > cap) return NULL;
  return base + pos;
}

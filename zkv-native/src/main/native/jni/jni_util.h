/* Small helpers shared by the JNI entry points. The Java side validates positions and lengths;
 * native code re-checks only what could crash (null or non-direct buffers). */
#ifndef ZKV_JNI_UTIL_H
#define ZKV_JNI_UTIL_H
#include <errno.h>
#include <jni.h>
#include <stdint.h>

#define JNI_EXPORT __attribute__((visibility("default")))

/* Address of buf[pos], or NULL if buf is not a direct buffer or [pos, pos+len) is outside it. */
uint8_t *zkv_jni_buffer(JNIEnv *env, jobject buf, jint pos, jlong len);

/* A single-record typed boundary buffer (jni/boundary.h) written into the direct buffer `out`: its
 * length, or -errno. */
jint zkv_jni_write_single(JNIEnv *env, jobject out, int layout, int version, const void *record, uint32_t size);
#endif

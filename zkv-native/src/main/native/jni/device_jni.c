/* JNI binding of the device layer (io.zkv.device.*). Hot paths return a long: >= 0 on success,
 * a negative zkv code otherwise; Java turns codes into typed exceptions. */
#include <string.h>

#include "boundary.h"
#include "jni_util.h"
#include "zkv/device.h"

#define DEV(h) ((zkv_dev *)(intptr_t)(h))
#define QUEUE(h) ((zkv_queue *)(intptr_t)(h))

JNI_EXPORT jlong JNICALL Java_io_zkv_device_ZonedDevice_nOpen(JNIEnv *env, jclass c, jstring uri) {
  (void)c;
  const char *u = (*env)->GetStringUTFChars(env, uri, NULL);
  if (!u) return -ENOMEM;
  int err = 0;
  zkv_dev *d = zkv_dev_open(u, &err);
  (*env)->ReleaseStringUTFChars(env, uri, u);
  return d ? (jlong)(intptr_t)d : (jlong)err;
}

JNI_EXPORT void JNICALL Java_io_zkv_device_ZonedDevice_nClose(JNIEnv *env, jclass c, jlong h) {
  (void)env, (void)c;
  zkv_dev_close(DEV(h));
}

JNI_EXPORT jstring JNICALL Java_io_zkv_device_ZonedDevice_nLastError(JNIEnv *env, jclass c) {
  (void)c;
  return (*env)->NewStringUTF(env, zkv_dev_last_error());
}

JNI_EXPORT jstring JNICALL Java_io_zkv_device_ZonedDevice_nProfile(JNIEnv *env, jclass c, jlong h) {
  (void)c;
  return (*env)->NewStringUTF(env, zkv_dev_profile_name(DEV(h)));
}

/* The geometry as a ZKV_BND_DEVICE_GEOMETRY buffer in `out` (direct); its length or -errno. */
JNI_EXPORT jint JNICALL Java_io_zkv_device_ZonedDevice_nGeometry(JNIEnv *env, jclass c, jlong h, jobject out) {
  (void)c;
  zkv_geometry g;
  int rc = zkv_dev_geometry(DEV(h), &g);
  if (rc) return rc;
  return zkv_jni_write_single(env, out, ZKV_BND_DEVICE_GEOMETRY, ZKV_GEOMETRY_LAYOUT_VERSION, &g, sizeof g);
}

/* Up to n zones from `first` as a ZKV_BND_ZONE_REPORT buffer in `out` (direct); the number of zones
 * reported or -errno. */
JNI_EXPORT jint JNICALL Java_io_zkv_device_ZonedDevice_nReport(JNIEnv *env, jclass c, jlong h, jint first, jint n,
                                                               jobject out) {
  (void)c;
  void *dst = (*env)->GetDirectBufferAddress(env, out);
  jlong cap = (*env)->GetDirectBufferCapacity(env, out);
  if (!dst || cap < 0 || first < 0 || n < 0) return -EINVAL;
  int len = zkv_boundary_write_section(dst, (size_t)cap, ZKV_BND_ZONE_REPORT, ZKV_DEVICE_LAYOUT_VERSION,
                                       sizeof(zkv_zone), (uint32_t)n);
  if (len < 0) return len;
  int got = zkv_dev_report(DEV(h), (uint32_t)first, zkv_boundary_records(dst), (uint32_t)n);
  zkv_boundary_set_count(dst, got < 0 ? 0 : (uint32_t)got);
  return got;
}

JNI_EXPORT jint JNICALL Java_io_zkv_device_ZonedDevice_nZoneMgmt(JNIEnv *env, jclass c, jlong h, jint zone,
                                                                 jint action) {
  (void)env, (void)c;
  if (zone < 0) return ZKV_ERR(ZKV_NVME_LBA_OUT_OF_RANGE);
  return zkv_dev_zone_mgmt(DEV(h), (uint32_t)zone, action);
}

JNI_EXPORT jlong JNICALL Java_io_zkv_device_ZonedDevice_nWrite(JNIEnv *env, jclass c, jlong h, jlong off, jobject buf,
                                                               jint pos, jint len, jint flags) {
  (void)c;
  uint8_t *p = zkv_jni_buffer(env, buf, pos, len);
  if (!p || off < 0) return -EINVAL;
  return zkv_dev_write(DEV(h), (uint64_t)off, p, (size_t)len, flags);
}

JNI_EXPORT jlong JNICALL Java_io_zkv_device_ZonedDevice_nAppend(JNIEnv *env, jclass c, jlong h, jint zone, jobject buf,
                                                                jint pos, jint len, jint flags) {
  (void)c;
  uint8_t *p = zkv_jni_buffer(env, buf, pos, len);
  if (!p) return -EINVAL;
  if (zone < 0) return ZKV_ERR(ZKV_NVME_LBA_OUT_OF_RANGE);
  return zkv_dev_append(DEV(h), (uint32_t)zone, p, (size_t)len, flags);
}

JNI_EXPORT jlong JNICALL Java_io_zkv_device_ZonedDevice_nRead(JNIEnv *env, jclass c, jlong h, jlong off, jobject buf,
                                                              jint pos, jint len) {
  (void)c;
  uint8_t *p = zkv_jni_buffer(env, buf, pos, len);
  if (!p || off < 0) return -EINVAL;
  return zkv_dev_read(DEV(h), (uint64_t)off, p, (size_t)len);
}

JNI_EXPORT jint JNICALL Java_io_zkv_device_ZonedDevice_nFlush(JNIEnv *env, jclass c, jlong h) {
  (void)env, (void)c;
  return zkv_dev_flush(DEV(h));
}

/* The device's counters as a ZKV_BND_DEVICE_STATS buffer in `out` (direct); its length or -errno. */
JNI_EXPORT jint JNICALL Java_io_zkv_device_ZonedDevice_nStats(JNIEnv *env, jclass c, jlong h, jobject out) {
  (void)c;
  zkv_dev_stats s;
  zkv_dev_stats_get(DEV(h), &s);
  return zkv_jni_write_single(env, out, ZKV_BND_DEVICE_STATS, ZKV_DEVICE_LAYOUT_VERSION, &s, sizeof s);
}

/* ---- emulator ---- */

/* `geo`: a ZKV_BND_DEVICE_GEOMETRY buffer Java wrote (direct). */
JNI_EXPORT jint JNICALL Java_io_zkv_device_EmulatedDevice_nFormat(JNIEnv *env, jclass c, jstring path, jobject geo) {
  (void)c;
  void *src = (*env)->GetDirectBufferAddress(env, geo);
  jlong cap = (*env)->GetDirectBufferCapacity(env, geo);
  const zkv_geometry *rec = cap < 0 ? NULL
                                    : zkv_boundary_read_single(src, (size_t)cap, ZKV_BND_DEVICE_GEOMETRY,
                                                               ZKV_GEOMETRY_LAYOUT_VERSION, sizeof(zkv_geometry));
  if (!rec) return -EINVAL;
  zkv_geometry g;
  memcpy(&g, rec, sizeof g);
  const char *p = (*env)->GetStringUTFChars(env, path, NULL);
  if (!p) return -ENOMEM;
  int rc = zkv_emu_format(p, &g);
  (*env)->ReleaseStringUTFChars(env, path, p);
  return rc;
}

JNI_EXPORT jint JNICALL Java_io_zkv_device_EmulatedDevice_nInjectError(JNIEnv *env, jclass c, jlong h, jint mask,
                                                                       jlong zone, jint skip, jint count, jint error) {
  (void)env, (void)c;
  return zkv_emu_inject_error(DEV(h), mask, zone, (uint32_t)skip, (uint32_t)count, error);
}

JNI_EXPORT jint JNICALL Java_io_zkv_device_EmulatedDevice_nSetZoneCondition(JNIEnv *env, jclass c, jlong h, jint zone,
                                                                            jint cond) {
  (void)env, (void)c;
  return zone < 0 ? -EINVAL : zkv_emu_set_zone_condition(DEV(h), (uint32_t)zone, cond);
}

JNI_EXPORT jlong JNICALL Java_io_zkv_device_EmulatedDevice_nPowerCut(JNIEnv *env, jclass c, jlong h, jint mode,
                                                                     jlong seed) {
  (void)env, (void)c;
  return zkv_emu_power_cut(DEV(h), mode, (uint64_t)seed);
}

JNI_EXPORT jint JNICALL Java_io_zkv_device_EmulatedDevice_nCutPowerDuring(JNIEnv *env, jclass c, jlong h, jint mask,
                                                                          jlong zone, jint skip, jint keep_blocks) {
  (void)env, (void)c;
  if (skip < 0 || keep_blocks < 0) return -EINVAL;
  return zkv_emu_cut_power_during(DEV(h), mask, zone, (uint32_t)skip, (uint32_t)keep_blocks);
}

JNI_EXPORT jlong JNICALL Java_io_zkv_device_EmulatedDevice_nClock(JNIEnv *env, jclass c, jlong h) {
  (void)env, (void)c;
  return (jlong)zkv_emu_clock_ns(DEV(h));
}

/* The emulator's host lateness as a ZKV_BND_HOST_LATENESS buffer in `out`. */
JNI_EXPORT jint JNICALL Java_io_zkv_device_EmulatedDevice_nLateness(JNIEnv *env, jclass c, jobject out) {
  (void)c;
  zkv_emu_lateness l;
  zkv_emu_lateness_get(&l);
  return zkv_jni_write_single(env, out, ZKV_BND_HOST_LATENESS, ZKV_DEVICE_LAYOUT_VERSION, &l, sizeof l);
}

/* Slow path (once per thread): the sink is a direct buffer the Java side keeps alive while set. */
JNI_EXPORT jint JNICALL Java_io_zkv_device_ThreadModelTime_nSink(JNIEnv *env, jclass c, jobject buffer) {
  (void)c;
  if (!buffer) {
    zkv_emu_thread_model_time(NULL);
    return 0;
  }
  void *p = (*env)->GetDirectBufferAddress(env, buffer);
  if (!p || (*env)->GetDirectBufferCapacity(env, buffer) < 16 || ((uintptr_t)p & 7)) return -EINVAL;
  zkv_emu_thread_model_time((uint64_t *)p);
  return 0;
}

/* An emulated PLM device's NVM Set as a ZKV_BND_EMU_PLM_STATS buffer in `out`. */
JNI_EXPORT jint JNICALL Java_io_zkv_device_EmulatedDevice_nPlmStats(JNIEnv *env, jclass c, jlong h, jint set,
                                                                    jobject out) {
  (void)c;
  zkv_emu_plm_stats s;
  int rc = set < 1 ? -EINVAL : zkv_emu_plm_stats_get(DEV(h), (uint32_t)set, &s);
  return rc ? rc : zkv_jni_write_single(env, out, ZKV_BND_EMU_PLM_STATS, ZKV_DEVICE_LAYOUT_VERSION, &s, sizeof s);
}

/* A plmarray: device's NVM Set as a ZKV_BND_PLM_ARRAY_STATS buffer in `out`. */
JNI_EXPORT jint JNICALL Java_io_zkv_device_PlmArray_nStats(JNIEnv *env, jclass c, jlong h, jint set, jobject out) {
  (void)c;
  zkv_plm_array_stats s;
  int rc = set < 1 ? -EINVAL : zkv_plm_array_stats_get(DEV(h), (uint32_t)set, &s);
  return rc ? rc : zkv_jni_write_single(env, out, ZKV_BND_PLM_ARRAY_STATS, ZKV_DEVICE_LAYOUT_VERSION, &s, sizeof s);
}

JNI_EXPORT jint JNICALL Java_io_zkv_device_EmulatedDevice_nPlmAdvance(JNIEnv *env, jclass c, jlong h, jlong ns) {
  (void)env, (void)c;
  return ns < 0 ? -EINVAL : zkv_emu_plm_advance(DEV(h), (uint64_t)ns);
}

/* ---- asynchronous queues ---- */

JNI_EXPORT jlong JNICALL Java_io_zkv_device_AsyncQueue_nCreate(JNIEnv *env, jclass c, jlong dev, jint depth) {
  (void)env, (void)c;
  int err = 0;
  if (depth <= 0) return -EINVAL;
  zkv_queue *q = zkv_queue_create(DEV(dev), (uint32_t)depth, &err);
  return q ? (jlong)(intptr_t)q : (jlong)err;
}

JNI_EXPORT void JNICALL Java_io_zkv_device_AsyncQueue_nDestroy(JNIEnv *env, jclass c, jlong q) {
  (void)env, (void)c;
  zkv_queue_destroy(QUEUE(q));
}

JNI_EXPORT jint JNICALL Java_io_zkv_device_AsyncQueue_nSubmit(JNIEnv *env, jclass c, jlong q, jint op, jint zone,
                                                              jlong off, jobject buf, jint pos, jint len, jint flags,
                                                              jlong tag) {
  (void)c;
  zkv_request r = {.op = op, .flags = flags, .zone = (uint32_t)zone, .offset = (uint64_t)off, .tag = (uint64_t)tag};
  if (op != ZKV_OP_FLUSH) {
    if (!(r.buf = zkv_jni_buffer(env, buf, pos, len))) return -EINVAL;
    r.len = (size_t)len;
  }
  return zkv_queue_submit(QUEUE(q), &r);
}

JNI_EXPORT jint JNICALL Java_io_zkv_device_AsyncQueue_nReap(JNIEnv *env, jclass c, jlong q, jobject out, jint min,
                                                            jint max, jlong timeout) {
  (void)c;
  zkv_completion *o = (zkv_completion *)(void *)zkv_jni_buffer(env, out, 0, (jlong)max * (jlong)sizeof(zkv_completion));
  if (!o || max < 0) return -EINVAL;
  return zkv_queue_reap(QUEUE(q), o, min, max, timeout);
}

JNI_EXPORT jstring JNICALL Java_io_zkv_device_ZonedDeviceLastError_nLastError(JNIEnv *env, jclass c) {
  (void)c;
  return (*env)->NewStringUTF(env, zkv_dev_last_error());
}

JNI_EXPORT jstring JNICALL Java_io_zkv_device_ZonedDeviceLastError_nStatusMessage(JNIEnv *env, jclass c, jint code) {
  (void)c;
  return (*env)->NewStringUTF(env, zkv_status_message(code));
}

/* ---- NVMe admin commands (nvme:, and the emulator's plm profile; PLM) ---- */

JNI_EXPORT jint JNICALL Java_io_zkv_device_ZonedDevice_nAdmin(JNIEnv *env, jclass c, jlong h, jint opcode, jint nsid,
                                                              jint cdw10, jint cdw11, jint cdw12, jint cdw13,
                                                              jobject buf, jint len, jintArray out) {
  (void)c;
  zkv_admin_cmd cmd = {.opcode = (uint8_t)opcode,
                       .nsid = (uint32_t)nsid,
                       .cdw10 = (uint32_t)cdw10,
                       .cdw11 = (uint32_t)cdw11,
                       .cdw12 = (uint32_t)cdw12,
                       .cdw13 = (uint32_t)cdw13};
  if (len > 0 && !(cmd.buf = zkv_jni_buffer(env, buf, 0, len))) return -EINVAL;
  cmd.len = len > 0 ? (uint32_t)len : 0;
  int rc = zkv_dev_nvme_admin(DEV(h), &cmd);
  jint v[2] = {(jint)cmd.result, cmd.status};
  (*env)->SetIntArrayRegion(env, out, 0, 2, v);
  return rc;
}

/* JNI binding of the zone file system's inspection API (io.zkv.fs.ZoneFsInspector), used by the
 * zkv command line: mkfs, a read-only mount, and what it finds. Slow paths: arrays and strings. */
#include <stdio.h>
#include <string.h>

#include "boundary.h"
#include "jni_util.h"
#include "zonefs.h"

#define FS(h) ((zfs *)(intptr_t)(h))
#define DEV(h) ((zkv_dev *)(intptr_t)(h))

static __thread char last_error[512];

JNI_EXPORT jstring JNICALL Java_io_zkv_fs_ZoneFsInspector_nLastError(JNIEnv *env, jclass c) {
  (void)c;
  return (*env)->NewStringUTF(env, last_error);
}

JNI_EXPORT jint JNICALL Java_io_zkv_fs_ZoneFsInspector_nMkfs(JNIEnv *env, jclass c, jlong dev, jint meta_zones) {
  (void)env, (void)c;
  zfs_options o = {.meta_zones = (uint32_t)meta_zones};
  return zfs_mkfs(DEV(dev), &o, last_error, sizeof last_error);
}

JNI_EXPORT jlong JNICALL Java_io_zkv_fs_ZoneFsInspector_nOpen(JNIEnv *env, jclass c, jlong dev) {
  (void)env, (void)c;
  int rc = 0;
  zfs *fs = zfs_mount_flags(DEV(dev), ZFS_MOUNT_READONLY, &rc, last_error, sizeof last_error);
  return fs ? (jlong)(intptr_t)fs : (jlong)rc;
}

JNI_EXPORT void JNICALL Java_io_zkv_fs_ZoneFsInspector_nClose(JNIEnv *env, jclass c, jlong fs) {
  (void)env, (void)c;
  zfs_unmount(FS(fs));
}

/* The superblock as a ZKV_BND_SUPERBLOCK buffer in `out` (direct); returns its length or -errno. */
JNI_EXPORT jint JNICALL Java_io_zkv_fs_ZoneFsInspector_nSuperblock(JNIEnv *env, jclass c, jlong fs, jobject out) {
  (void)c;
  zfs_superblock sb;
  zfs_superblock_get(FS(fs), &sb);
  zkv_bnd_superblock r = {sb.version,   sb.flags,    sb.sequence,   sb.block_size,       sb.nr_zones,
                          sb.zone_size, sb.zone_cap, sb.meta_zones, sb.finish_threshold, {0}};
  memcpy(r.uuid, sb.uuid, sizeof r.uuid);
  void *dst = (*env)->GetDirectBufferAddress(env, out);
  jlong cap = (*env)->GetDirectBufferCapacity(env, out);
  if (!dst || cap < 0) return -EINVAL;
  return zkv_boundary_write_single(dst, (size_t)cap, ZKV_BND_SUPERBLOCK, ZKV_SUPERBLOCK_VERSION, &r, sizeof r);
}

/* The file system's counters (those since format above all) as a ZKV_BND_ZONE_STATS buffer. */
JNI_EXPORT jint JNICALL Java_io_zkv_fs_ZoneFsInspector_nStats(JNIEnv *env, jclass c, jlong fs, jobject out) {
  (void)c;
  zfs_stats s;
  zfs_stats_get(FS(fs), &s);
  zkv_bnd_zone_stats v;
  zkv_boundary_zone_stats(&s, &v);
  void *dst = (*env)->GetDirectBufferAddress(env, out);
  jlong cap = (*env)->GetDirectBufferCapacity(env, out);
  if (!dst || cap < 0) return -EINVAL;
  return zkv_boundary_write_single(dst, (size_t)cap, ZKV_BND_ZONE_STATS, ZKV_STATS_VERSION, &v, sizeof v);
}

/* state, sequence; returns the message */
JNI_EXPORT jstring JNICALL Java_io_zkv_fs_ZoneFsInspector_nMetaStatus(JNIEnv *env, jclass c, jlong fs, jint zone,
                                                                      jlongArray out) {
  (void)c;
  zfs_meta_status ms;
  if (zone < 0 || zfs_meta_status_get(FS(fs), (uint32_t)zone, &ms)) return NULL;
  jlong v[2] = {ms.state, (jlong)ms.sequence};
  (*env)->SetLongArrayRegion(env, out, 0, 2, v);
  return (*env)->NewStringUTF(env, ms.message);
}

JNI_EXPORT jstring JNICALL Java_io_zkv_fs_ZoneFsInspector_nLogEnd(JNIEnv *env, jclass c, jlong fs) {
  (void)c;
  return (*env)->NewStringUTF(env, zfs_log_end(FS(fs)));
}

/* Every zone as a ZKV_BND_ZONE_USAGE buffer in `out` (direct); returns its length or -errno. */
JNI_EXPORT jint JNICALL Java_io_zkv_fs_ZoneFsInspector_nZones(JNIEnv *env, jclass c, jlong fs, jobject out) {
  (void)c;
  zfs_superblock sb;
  zfs_superblock_get(FS(fs), &sb);
  void *dst = (*env)->GetDirectBufferAddress(env, out);
  jlong cap = (*env)->GetDirectBufferCapacity(env, out);
  if (!dst || cap < 0) return -EINVAL;
  int n = zkv_boundary_write_section(dst, (size_t)cap, ZKV_BND_ZONE_USAGE, ZKV_ZONE_USAGE_VERSION, sizeof(zkv_bnd_zone),
                                     sb.nr_zones);
  if (n < 0) return n;
  zkv_bnd_zone *zones = zkv_boundary_records(dst);
  for (uint32_t i = 0; i < sb.nr_zones; i++) {
    zfs_zone_info z;
    if (zfs_zone_info_get(FS(fs), i, &z)) return -EIO;
    zkv_boundary_zone(&z, &zones[i]);
  }
  return n;
}

typedef struct file_walk {
  JNIEnv *env;
  jobject list; /* java.util.List<Object[]> */
  jmethodID add;
  jclass string_class, object_class;
  int failed;
} file_walk;

/* Each file becomes Object[]{String[] names, long[] {id, size, lifetime, mtime}, long[] extents}. */
static void add_file(const zfs_file_meta *m, void *arg) {
  file_walk *w = arg;
  JNIEnv *env = w->env;
  if (w->failed) return;
  jobjectArray names = (*env)->NewObjectArray(env, (jsize)m->n_names, w->string_class, NULL);
  jlongArray info = (*env)->NewLongArray(env, 4);
  jlongArray ext = (*env)->NewLongArray(env, (jsize)m->n_extents * 2);
  jobjectArray entry = (*env)->NewObjectArray(env, 3, w->object_class, NULL);
  if (!names || !info || !ext || !entry) {
    w->failed = 1;
    return;
  }
  for (uint32_t i = 0; i < m->n_names; i++) {
    jstring s = (*env)->NewStringUTF(env, m->names[i]);
    (*env)->SetObjectArrayElement(env, names, (jsize)i, s);
    (*env)->DeleteLocalRef(env, s);
  }
  jlong v[4] = {(jlong)m->id, (jlong)m->size, m->lifetime, (jlong)m->mtime};
  (*env)->SetLongArrayRegion(env, info, 0, 4, v);
  for (uint32_t i = 0; i < m->n_extents; i++) {
    jlong e[2] = {(jlong)m->extents[i].start, (jlong)m->extents[i].len};
    (*env)->SetLongArrayRegion(env, ext, (jsize)i * 2, 2, e);
  }
  (*env)->SetObjectArrayElement(env, entry, 0, names);
  (*env)->SetObjectArrayElement(env, entry, 1, info);
  (*env)->SetObjectArrayElement(env, entry, 2, ext);
  (*env)->CallBooleanMethod(env, w->list, w->add, entry);
  if ((*env)->ExceptionCheck(env)) w->failed = 1;
  (*env)->DeleteLocalRef(env, names);
  (*env)->DeleteLocalRef(env, info);
  (*env)->DeleteLocalRef(env, ext);
  (*env)->DeleteLocalRef(env, entry);
}

JNI_EXPORT jint JNICALL Java_io_zkv_fs_ZoneFsInspector_nFiles(JNIEnv *env, jclass c, jlong fs, jobject list) {
  (void)c;
  jclass list_class = (*env)->GetObjectClass(env, list);
  file_walk w = {env,
                 list,
                 (*env)->GetMethodID(env, list_class, "add", "(Ljava/lang/Object;)Z"),
                 (*env)->FindClass(env, "java/lang/String"),
                 (*env)->FindClass(env, "java/lang/Object"),
                 0};
  if (!w.add || !w.string_class || !w.object_class) return -1;
  zfs_walk_files(FS(fs), add_file, &w);
  return w.failed ? -1 : 0;
}

typedef struct problem_walk {
  JNIEnv *env;
  jobject list;
  jmethodID add;
} problem_walk;

static void add_problem(const char *msg, void *arg) {
  problem_walk *w = arg;
  jstring s = (*w->env)->NewStringUTF(w->env, msg);
  if (!s) return;
  (*w->env)->CallBooleanMethod(w->env, w->list, w->add, s);
  (*w->env)->DeleteLocalRef(w->env, s);
}

JNI_EXPORT jint JNICALL Java_io_zkv_fs_ZoneFsInspector_nCheck(JNIEnv *env, jclass c, jlong fs, jobject list) {
  (void)c;
  problem_walk w = {env, list,
                    (*env)->GetMethodID(env, (*env)->GetObjectClass(env, list), "add", "(Ljava/lang/Object;)Z")};
  if (!w.add) return -1;
  return zfs_check(FS(fs), add_problem, &w);
}

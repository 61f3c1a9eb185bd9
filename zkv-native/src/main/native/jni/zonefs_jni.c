/* JNI binding of the zone file system's inspection API (io.zkv.fs.ZoneFsInspector), used by the
 * zkv command line: mkfs, a read-only mount, and what it finds, in typed boundary buffers
 * (jni/boundary.h); fsck's problems and the log's end cross as strings. */
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
  return zkv_jni_write_single(env, out, ZKV_BND_SUPERBLOCK, ZKV_SUPERBLOCK_VERSION, &r, sizeof r);
}

/* The file system's counters (those since format above all) as a ZKV_BND_ZONE_STATS buffer. */
JNI_EXPORT jint JNICALL Java_io_zkv_fs_ZoneFsInspector_nStats(JNIEnv *env, jclass c, jlong fs, jobject out) {
  (void)c;
  zfs_stats s;
  zfs_stats_get(FS(fs), &s);
  zkv_bnd_zone_stats v;
  zkv_boundary_zone_stats(&s, &v);
  return zkv_jni_write_single(env, out, ZKV_BND_ZONE_STATS, ZKV_STATS_VERSION, &v, sizeof v);
}

/* What meta zone `zone` holds as a ZKV_BND_META_STATUS buffer in `out`; its length or -errno. */
JNI_EXPORT jint JNICALL Java_io_zkv_fs_ZoneFsInspector_nMetaStatus(JNIEnv *env, jclass c, jlong fs, jint zone,
                                                                   jobject out) {
  (void)c;
  zfs_meta_status ms;
  if (zone < 0 || zfs_meta_status_get(FS(fs), (uint32_t)zone, &ms)) return -EINVAL;
  zkv_bnd_meta_status r = {(uint32_t)ms.state, 0, ms.sequence, {0}};
  snprintf(r.message, sizeof r.message, "%s", ms.message);
  return zkv_jni_write_single(env, out, ZKV_BND_META_STATUS, ZKV_META_STATUS_VERSION, &r, sizeof r);
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

/* The file list (ZKV_BND_FILE_LIST) takes two walks over the files: one counts, one fills. */
typedef struct file_list {
  uint32_t files, names, name_bytes;
  uint64_t extents;
  void *out;              /* NULL while counting */
  const uint32_t *counts; /* filling: what the count found; a file beyond it is not listed */
  int changed;            /* the files changed between the walks (never on a read-only mount) */
} file_list;

static void count_file(const zfs_file_meta *m, void *arg) {
  file_list *l = arg;
  l->files++;
  l->names += m->n_names;
  l->extents += m->n_extents;
  for (uint32_t i = 0; i < m->n_names; i++) l->name_bytes += (uint32_t)strlen(m->names[i]);
}

static void list_file(const zfs_file_meta *m, void *arg) {
  file_list *l = arg;
  uint32_t name_bytes = 0;
  for (uint32_t i = 0; i < m->n_names; i++) name_bytes += (uint32_t)strlen(m->names[i]);
  if (l->changed || l->files >= l->counts[ZKV_LIST_FILES] || l->names + m->n_names > l->counts[ZKV_LIST_NAMES] ||
      l->extents + m->n_extents > l->counts[ZKV_LIST_EXTENTS] ||
      l->name_bytes + name_bytes > l->counts[ZKV_LIST_BYTES]) {
    l->changed = 1;
    return;
  }
  zkv_bnd_fs_file *f = (zkv_bnd_fs_file *)zkv_boundary_section(l->out, ZKV_LIST_FILES) + l->files++;
  *f = (zkv_bnd_fs_file){m->id, m->size, m->mtime, m->lifetime, m->n_names, l->names, m->n_extents, l->extents};
  zkv_bnd_bytes *names = zkv_boundary_section(l->out, ZKV_LIST_NAMES);
  uint8_t *bytes = zkv_boundary_section(l->out, ZKV_LIST_BYTES);
  for (uint32_t i = 0; i < m->n_names; i++) {
    uint32_t len = (uint32_t)strlen(m->names[i]);
    names[l->names++] = (zkv_bnd_bytes){l->name_bytes, (int32_t)len};
    memcpy(bytes + l->name_bytes, m->names[i], len);
    l->name_bytes += len;
  }
  zkv_bnd_extent *ext = zkv_boundary_section(l->out, ZKV_LIST_EXTENTS);
  for (uint32_t i = 0; i < m->n_extents; i++)
    ext[l->extents++] = (zkv_bnd_extent){m->extents[i].start, m->extents[i].len};
}

/* Counts the files and gives the sections' record sizes and counts; -EFBIG beyond 2 GiB. */
static int file_list_shape(zfs *fs, uint32_t sizes[ZKV_LIST_SECTIONS], uint32_t counts[ZKV_LIST_SECTIONS]) {
  file_list l = {0};
  zfs_walk_files(fs, count_file, &l);
  sizes[ZKV_LIST_FILES] = sizeof(zkv_bnd_fs_file), counts[ZKV_LIST_FILES] = l.files;
  sizes[ZKV_LIST_NAMES] = sizeof(zkv_bnd_bytes), counts[ZKV_LIST_NAMES] = l.names;
  sizes[ZKV_LIST_EXTENTS] = sizeof(zkv_bnd_extent), counts[ZKV_LIST_EXTENTS] = (uint32_t)l.extents;
  sizes[ZKV_LIST_BYTES] = 1, counts[ZKV_LIST_BYTES] = l.name_bytes;
  return l.extents > UINT32_MAX || zkv_boundary_sections_size(ZKV_LIST_SECTIONS, sizes, counts) > (size_t)INT32_MAX
             ? -EFBIG
             : 0;
}

/* The bytes the file list takes, or -errno. A read-only mount (the inspector's) does not change, so
 * the list nFiles writes next has this size. */
JNI_EXPORT jint JNICALL Java_io_zkv_fs_ZoneFsInspector_nFileListSize(JNIEnv *env, jclass c, jlong fs) {
  (void)env, (void)c;
  uint32_t sizes[ZKV_LIST_SECTIONS], counts[ZKV_LIST_SECTIONS];
  int rc = file_list_shape(FS(fs), sizes, counts);
  return rc ? rc : (jint)zkv_boundary_sections_size(ZKV_LIST_SECTIONS, sizes, counts);
}

/* Every file as a ZKV_BND_FILE_LIST buffer in `out` (direct): its length, or -errno (-ENOBUFS when
 * `out` is shorter than nFileListSize said). */
JNI_EXPORT jint JNICALL Java_io_zkv_fs_ZoneFsInspector_nFiles(JNIEnv *env, jclass c, jlong fs, jobject out) {
  (void)c;
  uint32_t sizes[ZKV_LIST_SECTIONS], counts[ZKV_LIST_SECTIONS];
  int rc = file_list_shape(FS(fs), sizes, counts);
  if (rc) return rc;
  void *dst = (*env)->GetDirectBufferAddress(env, out);
  jlong cap = (*env)->GetDirectBufferCapacity(env, out);
  if (!dst || cap < 0) return -EINVAL;
  int n = zkv_boundary_write_sections(dst, (size_t)cap, ZKV_BND_FILE_LIST, ZKV_FILE_LIST_VERSION, ZKV_LIST_SECTIONS,
                                      sizes, counts);
  if (n < 0) return n;
  file_list l = {.out = dst, .counts = counts};
  zfs_walk_files(FS(fs), list_file, &l);
  return l.changed || l.files != counts[ZKV_LIST_FILES] ? -EAGAIN : n;
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

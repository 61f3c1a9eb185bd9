/* The zone file system's lookup tables: file name -> file and file id -> file, open-addressing
 * hash tables (linear probing, tombstone-free deletion by backward shift). The keys are not
 * copied: a name key points at the file's own name string, which must outlive its entry. Not
 * thread-safe: the file system's lock guards them. */
#ifndef ZKV_FILE_INDEX_H
#define ZKV_FILE_INDEX_H
#include <stddef.h>
#include <stdint.h>

typedef struct zfs_index_slot {
  uint64_t hash;   /* 0 = empty */
  const char *key; /* name tables; NULL in id tables */
  uint64_t id;     /* id tables */
  void *value;
} zfs_index_slot;

typedef struct zfs_index {
  zfs_index_slot *slots;
  size_t cap; /* a power of two, or 0 */
  size_t count;
} zfs_index;

void zfs_index_free(zfs_index *ix);
void zfs_index_clear(zfs_index *ix);

/* Name tables. put replaces an existing entry of the same name. Return 0 or -ENOMEM. */
int zfs_index_put_name(zfs_index *ix, const char *name, void *value);
void *zfs_index_get_name(const zfs_index *ix, const char *name);
/* Removes the entry of `name` if it maps to `value` (another file may hold the name now). */
void zfs_index_del_name(zfs_index *ix, const char *name, const void *value);

/* Id tables. */
int zfs_index_put_id(zfs_index *ix, uint64_t id, void *value);
void *zfs_index_get_id(const zfs_index *ix, uint64_t id);
void zfs_index_del_id(zfs_index *ix, uint64_t id);
#endif

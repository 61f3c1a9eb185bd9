/* Hash tables of the zone file system's files by name and by id (see file_index.h). */
#include "file_index.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* FNV-1a; the top bit is forced so that 0 can mark an empty slot. */
static uint64_t hash_name(const char *s) {
  uint64_t h = 1469598103934665603ull;
  for (; *s; s++) h = (h ^ (uint8_t)*s) * 1099511628211ull;
  return h | (1ull << 63);
}

/* SplitMix64's finalizer. */
static uint64_t hash_id(uint64_t x) {
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ull;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebull;
  x ^= x >> 31;
  return x | (1ull << 63);
}

void zfs_index_free(zfs_index *ix) {
  free(ix->slots);
  ix->slots = NULL;
  ix->cap = ix->count = 0;
}

void zfs_index_clear(zfs_index *ix) {
  if (ix->slots) memset(ix->slots, 0, ix->cap * sizeof *ix->slots);
  ix->count = 0;
}

static int same(const zfs_index_slot *s, uint64_t hash, const char *key, uint64_t id) {
  return s->hash == hash && (key ? strcmp(s->key, key) == 0 : s->id == id);
}

static zfs_index_slot *lookup(const zfs_index *ix, uint64_t hash, const char *key, uint64_t id) {
  if (!ix->cap) return NULL;
  for (size_t i = hash & (ix->cap - 1);; i = (i + 1) & (ix->cap - 1)) {
    zfs_index_slot *s = &ix->slots[i];
    if (!s->hash) return NULL;
    if (same(s, hash, key, id)) return s;
  }
}

static int grow(zfs_index *ix) {
  size_t cap = ix->cap ? ix->cap * 2 : 64;
  zfs_index_slot *slots = calloc(cap, sizeof *slots);
  if (!slots) return -ENOMEM;
  for (size_t i = 0; i < ix->cap; i++) {
    zfs_index_slot *s = &ix->slots[i];
    if (!s->hash) continue;
    size_t j = s->hash & (cap - 1);
    while (slots[j].hash) j = (j + 1) & (cap - 1);
    slots[j] = *s;
  }
  free(ix->slots);
  ix->slots = slots;
  ix->cap = cap;
  return 0;
}

static int put(zfs_index *ix, uint64_t hash, const char *key, uint64_t id, void *value) {
  zfs_index_slot *found = lookup(ix, hash, key, id);
  if (found) {
    found->key = key;
    found->value = value;
    return 0;
  }
  if ((ix->count + 1) * 4 > ix->cap * 3 && grow(ix)) return -ENOMEM; /* load at most 3/4 */
  size_t i = hash & (ix->cap - 1);
  while (ix->slots[i].hash) i = (i + 1) & (ix->cap - 1);
  ix->slots[i] = (zfs_index_slot){hash, key, id, value};
  ix->count++;
  return 0;
}

/* Backward-shift deletion: later entries of the probe run move up, so no tombstones are needed. */
static void del(zfs_index *ix, zfs_index_slot *s) {
  size_t mask = ix->cap - 1, hole = (size_t)(s - ix->slots);
  for (size_t i = (hole + 1) & mask; ix->slots[i].hash; i = (i + 1) & mask) {
    size_t home = ix->slots[i].hash & mask;
    /* the entry at i may fill the hole if its home is not in (hole, i] (cyclically) */
    if (((i - home) & mask) >= ((i - hole) & mask)) {
      ix->slots[hole] = ix->slots[i];
      hole = i;
    }
  }
  ix->slots[hole] = (zfs_index_slot){0};
  ix->count--;
}

int zfs_index_put_name(zfs_index *ix, const char *name, void *value) {
  return put(ix, hash_name(name), name, 0, value);
}

void *zfs_index_get_name(const zfs_index *ix, const char *name) {
  zfs_index_slot *s = lookup(ix, hash_name(name), name, 0);
  return s ? s->value : NULL;
}

void zfs_index_del_name(zfs_index *ix, const char *name, const void *value) {
  zfs_index_slot *s = lookup(ix, hash_name(name), name, 0);
  if (s && s->value == value) del(ix, s);
}

int zfs_index_put_id(zfs_index *ix, uint64_t id, void *value) { return put(ix, hash_id(id), NULL, id, value); }

void *zfs_index_get_id(const zfs_index *ix, uint64_t id) {
  zfs_index_slot *s = lookup(ix, hash_id(id), NULL, id);
  return s ? s->value : NULL;
}

void zfs_index_del_id(zfs_index *ix, uint64_t id) {
  zfs_index_slot *s = lookup(ix, hash_id(id), NULL, id);
  if (s) del(ix, s);
}

/* The file system's hash tables (zonefs/file_index.c) against a plain model: random puts, gets and
 * deletes of names and ids, through growth and backward-shift deletions. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/timing.h"
#include "file_index.h"
#include "test_util.h"

enum { KEYS = 3000, OPS = 200000 };

static char names[KEYS][24];
static void *model_name[KEYS], *model_id[KEYS];

int main(void) {
  uint64_t rng = 0x1D3A;
  for (int i = 0; i < KEYS; i++) snprintf(names[i], sizeof names[i], "/db/%06d.sst", i);
  zfs_index by_name = {0}, by_id = {0};
  char values[4]; /* distinct non-NULL values */
  for (int op = 0; op < OPS; op++) {
    int k = (int)(zkv_rng_next(&rng) % KEYS);
    void *v = &values[zkv_rng_next(&rng) % 4];
    switch (zkv_rng_next(&rng) % 6) {
      case 0:
      case 1:
        CHECK_EQ(zfs_index_put_name(&by_name, names[k], v), 0);
        model_name[k] = v;
        CHECK_EQ(zfs_index_put_id(&by_id, (uint64_t)k * 7919, v), 0);
        model_id[k] = v;
        break;
      case 2: /* deletes only when the value matches */
        zfs_index_del_name(&by_name, names[k], v);
        if (model_name[k] == v) model_name[k] = NULL;
        break;
      case 3:
        zfs_index_del_id(&by_id, (uint64_t)k * 7919);
        model_id[k] = NULL;
        break;
      default:
        CHECK(zfs_index_get_name(&by_name, names[k]) == model_name[k]);
        CHECK(zfs_index_get_id(&by_id, (uint64_t)k * 7919) == model_id[k]);
    }
  }
  size_t named = 0, ids = 0;
  for (int k = 0; k < KEYS; k++) {
    char copy[24]; /* lookups compare strings, not pointers */
    memcpy(copy, names[k], sizeof copy);
    CHECK(zfs_index_get_name(&by_name, copy) == model_name[k]);
    CHECK(zfs_index_get_id(&by_id, (uint64_t)k * 7919) == model_id[k]);
    named += model_name[k] != NULL, ids += model_id[k] != NULL;
  }
  CHECK_EQ(by_name.count, named);
  CHECK_EQ(by_id.count, ids);
  zfs_index_clear(&by_name);
  CHECK(zfs_index_get_name(&by_name, names[0]) == NULL);
  zfs_index_free(&by_name);
  zfs_index_free(&by_id);
  TEST_DONE("test_file_index");
  return 0;
}

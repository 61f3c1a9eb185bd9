/* Opens a device by URI. Schemes: emu: (the emulator). zbd: and nvme: come with the kernel path. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "emu_internal.h"

zkv_dev *emu_open(const char *path, const zkv_profile *prof, int wcache, int discard, uint64_t seed, int *err);

static int parse_u64(const char *v, uint64_t *out) {
  char *end;
  errno = 0;
  unsigned long long x = strtoull(v, &end, 0);
  if (errno || end == v || *end) return -1;
  *out = x;
  return 0;
}

/* emu:/path/to/file[?profile=zn540&wcache=1&discard=1&seed=42] */
zkv_dev *zkv_dev_open(const char *uri, int *err) {
  *err = -EINVAL;
  if (!uri || strncmp(uri, "emu:", 4) != 0) {
    emu_set_error("unsupported device URI '%s': expected emu:/path (zbd: and nvme: are not built yet)",
                  uri ? uri : "(null)");
    return NULL;
  }
  char *copy = strdup(uri + 4);
  if (!copy) {
    *err = -ENOMEM;
    return NULL;
  }
  char *query = strchr(copy, '?');
  if (query) *query++ = 0;
  const zkv_profile *prof = zkv_profile_find("instant");
  uint64_t wcache = 0, discard = 0, seed = 0;
  zkv_dev *dev = NULL;
  char *save = NULL;
  if (!copy[0]) {
    emu_set_error("device URI '%s' has no path", uri);
    goto out;
  }
  for (char *kv = query ? strtok_r(query, "&", &save) : NULL; kv; kv = strtok_r(NULL, "&", &save)) {
    char *v = strchr(kv, '=');
    if (!v) {
      emu_set_error("device URI option '%s' has no value", kv);
      goto out;
    }
    *v++ = 0;
    if (strcmp(kv, "profile") == 0) {
      if (!(prof = zkv_profile_find(v))) {
        emu_set_error("unknown timing profile '%s' (known: %s)", v, zkv_profile_names());
        goto out;
      }
    } else if (strcmp(kv, "wcache") == 0) {
      if (parse_u64(v, &wcache) || wcache > 1) {
        emu_set_error("wcache must be 0 or 1, not '%s'", v);
        goto out;
      }
    } else if (strcmp(kv, "discard") == 0) {
      if (parse_u64(v, &discard) || discard > 1) {
        emu_set_error("discard must be 0 or 1, not '%s'", v);
        goto out;
      }
    } else if (strcmp(kv, "seed") == 0) {
      if (parse_u64(v, &seed)) {
        emu_set_error("seed must be a number, not '%s'", v);
        goto out;
      }
    } else {
      emu_set_error("unknown device URI option '%s' (known: profile, wcache, discard, seed)", kv);
      goto out;
    }
  }
  emu_set_error("%s", "");
  dev = emu_open(copy, prof, (int)wcache, (int)discard, seed, err);
out:
  free(copy);
  return dev;
}

/* The emulator's device URI: emu:/path?options, parsed into a timing profile and emulator options. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emu_internal.h"

static int parse_u64(const char *v, uint64_t *out) {
  char *end;
  errno = 0;
  unsigned long long x = strtoull(v, &end, 0);
  if (errno || end == v || *end) return -1;
  *out = x;
  return 0;
}

/* emu:/path/to/file[?profile=zn540&wcache=1&discard=0&reorder=0&seed=42&clock=virtual]; discard defaults to 1,
 * reorder to the profile's, clock to real (virtual: the model's own time, for single-threaded model runs);
 * profile=plm also takes sets=N (default 4), timescale=S (default 1) and clock=real|manual */
zkv_dev *emu_dev_open(const char *uri, int *err) {
  *err = -EINVAL;
  char *copy = strdup(uri + 4);
  if (!copy) {
    *err = -ENOMEM;
    return NULL;
  }
  char *query = strchr(copy, '?');
  if (query) *query++ = 0;
  const zkv_profile *prof = zkv_profile_find("instant");
  uint64_t wcache = 0, discard = 1, seed = 0, reorder = UINT64_MAX, sets = 0, timescale = 0;
  int clock = -1; /* 0 real, 1 manual (plm), 2 virtual */
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
    } else if (strcmp(kv, "reorder") == 0) {
      if (parse_u64(v, &reorder) || reorder > 1) {
        emu_set_error("reorder must be 0 or 1, not '%s'", v);
        goto out;
      }
    } else if (strcmp(kv, "seed") == 0) {
      if (parse_u64(v, &seed)) {
        emu_set_error("seed must be a number, not '%s'", v);
        goto out;
      }
    } else if (strcmp(kv, "sets") == 0) {
      if (parse_u64(v, &sets) || sets < 1 || sets > ZKV_PLM_MAX_SETS) {
        emu_set_error("sets must be 1..%d, not '%s'", ZKV_PLM_MAX_SETS, v);
        goto out;
      }
    } else if (strcmp(kv, "timescale") == 0) {
      if (parse_u64(v, &timescale) || timescale < 1 || timescale > 1000) {
        emu_set_error("timescale must be 1..1000, not '%s'", v);
        goto out;
      }
    } else if (strcmp(kv, "clock") == 0) {
      if (strcmp(v, "real") != 0 && strcmp(v, "manual") != 0 && strcmp(v, "virtual") != 0) {
        emu_set_error("clock must be real, virtual or (profile=plm) manual, not '%s'", v);
        goto out;
      }
      clock = strcmp(v, "manual") == 0 ? 1 : strcmp(v, "virtual") == 0 ? 2 : 0;
    } else {
      emu_set_error(
          "unknown device URI option '%s' (known: profile, wcache, discard, reorder, seed, clock; with profile=plm: "
          "sets, timescale)",
          kv);
      goto out;
    }
  }
  if (!prof->nvm_sets && (sets || timescale || clock == 1)) {
    emu_set_error("sets, timescale and clock=manual are options of profile=plm, not of profile=%s", prof->name);
    goto out;
  }
  if (prof->nvm_sets && clock == 2) {
    emu_set_error("clock=virtual is not for profile=plm (its windows have clock=manual)");
    goto out;
  }
  emu_set_error("%s", "");
  emu_options o = {.wcache = (int)wcache,
                   .discard = (int)discard,
                   .reorder = reorder == UINT64_MAX ? (int)prof->reorders : (int)reorder,
                   .seed = seed,
                   .sets = sets ? (uint32_t)sets : prof->nvm_sets,
                   .timescale = timescale ? (uint32_t)timescale : 1,
                   .manual_clock = clock == 1,
                   .virtual_clock = clock == 2};
  dev = emu_open(copy, prof, &o, err);
out:
  free(copy);
  return dev;
}

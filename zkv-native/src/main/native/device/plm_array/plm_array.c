/* The PLM array (plm_array.h, docs/plm.md): opening it on the NVM Sets of a PLM device, closing,
 * zone management, the zone report and statistics. The parts: plm_array_internal.h. */
#define _GNU_SOURCE
#include "plm_array_internal.h"

static int reset_zone(pa_dev *a, uint32_t zone) {
  lzone l = a->lz[zone];
  if (!l.kind) return 0;
  /* The barrier: before any space is freed, everything held is durable (so no file's durability
   * can depend on data a reset could overtake), and the reset is in the journal before the held
   * writes it discards are forgotten. */
  int rc = pa_sync_all(a);
  if (!rc) rc = pa_jappend(a, PA_REC_RESET, zone, (uint32_t)l.kind, l.group, NULL, 0, ZKV_IO_FUA);
  if (rc) return rc;
  lock(a);
  if (l.kind == PA_STRIPE)
    for (uint32_t k = 0; k < a->n; k++) pa_drop_held(a, kv_zone(a, k, l.group));
  pa_unbind(a, zone);
  unlock(a);
  return pa_inner_mgmt_all(a, &l, ZKV_ZONE_RESET);
}

static int finish_zone(pa_dev *a, uint32_t zone, uint64_t w) {
  lzone *l = &a->lz[zone];
  int rc = 0;
  if (!l->kind && (rc = pa_bind_zone(a, zone, ZKV_CLASS_NONE))) return rc;
  if (l->kind == PA_META) return pa_inner_mgmt_all(a, l, ZKV_ZONE_FINISH);
  uint64_t sb = stripe_bytes(a);
  if (w % sb) { /* the last stripe's parity, over its data and zeros */
    uint64_t s = w / sb, c = a->chunk;
    uint8_t *par = pa_stripe_parity(a, l);
    if (!par) return -ENOMEM;
    uint32_t ps = parity_set(a, s);
    rc = pa_put_piece(a, ps, kv_zone(a, ps, l->group), s * c, par, c, 0);
    free(par);
    if (rc) return rc;
  }
  if ((rc = pa_jappend(a, PA_REC_FINISH, zone, 0, 0, NULL, 0, ZKV_IO_FUA))) return rc;
  l->finish_pending = 1;
  pa_finish_inner_if_done(a, kv_zone(a, 0, l->group));
  return 0;
}

static int pa_zone_mgmt(zkv_dev *d, uint32_t zone, int action) {
  pa_dev *a = PA(d);
  pthread_mutex_lock(&a->wmu);
  lock(a);
  int rc = a->dead ? -ENODEV : 0;
  zs_entry before = zone < a->zs.geo.nr_zones ? a->zs.zones[zone] : (zs_entry){0};
  if (!rc) rc = zs_mgmt(&a->zs, zone, action);
  unlock(a);
  if (!rc && action == ZKV_ZONE_RESET) rc = reset_zone(a, zone), a->stats.resets++;
  if (!rc && action == ZKV_ZONE_FINISH && before.cond != ZKV_ZONE_FULL)
    rc = finish_zone(a, zone, before.written), a->stats.finishes++;
  pthread_mutex_unlock(&a->wmu);
  return rc;
}

static int pa_report(zkv_dev *d, uint32_t first, zkv_zone *out, uint32_t n) {
  pa_dev *a = PA(d);
  const zkv_geometry *g = &a->zs.geo;
  lock(a);
  int k = 0;
  if (a->dead) k = -ENODEV;
  for (uint32_t z = first; k >= 0 && z < g->nr_zones && (uint32_t)k < n; z++, k++) {
    zs_entry *e = &a->zs.zones[z];
    uint64_t start = (uint64_t)z * g->zone_size;
    out[k] = (zkv_zone){.start = start, .cap = g->zone_cap, .wp = start + e->written, .cond = e->cond, .index = z};
  }
  if (k >= 0) a->stats.reports++;
  unlock(a);
  return k;
}

/* ---------- open, close, stats, queues ---------- */

static void free_all(pa_dev *a) {
  if (a->sets)
    for (uint32_t i = 1; i <= a->n; i++)
      while (a->sets[i].head) {
        held_write *h = a->sets[i].head;
        a->sets[i].head = h->next;
        free(h);
      }
  if (a->lz)
    for (uint32_t l = 0; l < a->zs.geo.nr_zones; l++) free(a->lz[l].stripe);
  free(a->lz);
  free(a->sets);
  free(a->meta_owner);
  free(a->stripe_owner);
  free(a->on_dev);
  free(a->zs.zones);
  zkv_dev_close(a->inner);
  pthread_mutex_destroy(&a->mu);
  pthread_cond_destroy(&a->reads_done);
  pthread_mutex_destroy(&a->wmu);
  free(a);
}

static void pa_close(zkv_dev *d) {
  pa_dev *a = PA(d);
  pthread_mutex_lock(&a->wmu);
  /* Held writes are journaled: durable, and replayed at the next open. */
  if (!a->dead && zkv_dev_flush(a->inner) != -ENODEV) (void)pa_sync_all(a);
  pthread_mutex_unlock(&a->wmu);
  free_all(a);
}

static int parse_size(const char *v, uint64_t *out) {
  char *end;
  errno = 0;
  unsigned long long x = strtoull(v, &end, 0);
  if (errno || end == v) return -1;
  if (*end == 'k' || *end == 'K')
    x <<= 10, end++;
  else if (*end == 'm' || *end == 'M')
    x <<= 20, end++;
  if (*end) return -1;
  *out = x;
  return 0;
}

/* plmarray:[chunk=N&hold=N&isolate=0|1&defer=0|1&rebuild=0|1@]emu:/path?profile=plm&sets=N..., or @URI,URI,... */
static int parse_options(pa_dev *a, const char *uri, const char **inner, uint64_t *chunk, uint64_t *hold) {
  const char *rest = uri + strlen("plmarray:"), *at = strchr(rest, '@'), *colon = strchr(rest, ':');
  *inner = rest;
  if (!at || (colon && colon < at)) return 0;
  *inner = at + 1;
  char *opts = strndup(rest, (size_t)(at - rest)), *save = NULL;
  if (!opts) return -ENOMEM;
  int rc = 0;
  for (char *kv = strtok_r(opts, "&", &save); !rc && kv; kv = strtok_r(NULL, "&", &save)) {
    char *v = strchr(kv, '=');
    if (v) *v++ = 0;
    uint64_t *dst = strcmp(kv, "chunk") == 0 ? chunk : strcmp(kv, "hold") == 0 ? hold : NULL;
    int *flag = strcmp(kv, "isolate") == 0   ? &a->isolate
                : strcmp(kv, "defer") == 0   ? &a->defer
                : strcmp(kv, "rebuild") == 0 ? &a->rebuild
                                             : NULL;
    if (flag && v && (strcmp(v, "0") == 0 || strcmp(v, "1") == 0)) {
      *flag = *v == '1';
    } else if (flag || !dst || !v || parse_size(v, dst)) {
      zkv_set_error(
          "plmarray option '%s' is not chunk=BYTES, hold=BYTES (k and m suffixes allowed), isolate=0|1, "
          "defer=0|1 or rebuild=0|1",
          kv);
      rc = -EINVAL;
    }
  }
  free(opts);
  return rc;
}

/* The NVM Sets of the device composed: an emulated PLM device's, or one per listed namespace. */
static uint32_t count_sets(zkv_dev *inner) {
  if (set_concat_is(inner)) return set_concat_members(inner);
  zkv_emu_plm_stats st;
  uint32_t n = 0;
  while (n < ZKV_PLM_MAX_SETS && zkv_emu_plm_stats_get(inner, n + 1, &st) == 0) n++;
  return n;
}

/* Set i's zones and window at open. A drive's window comes from its log page 0Ah (PLM may have
 * been left on); without PLM it is off. */
static int describe_set(zkv_dev *inner, uint32_t i, pa_set *out) {
  *out = (pa_set){.id = i + 1, .win = WIN_PLM_OFF};
  if (!set_concat_is(inner)) {
    zkv_emu_plm_stats st;
    int rc = zkv_emu_plm_stats_get(inner, i + 1, &st);
    out->first_zone = st.first_zone, out->nr_zones = st.nr_zones, out->win = (int)st.window;
    return rc;
  }
  int rc = set_concat_member(inner, i, &out->first_zone, &out->nr_zones);
  if (rc || !set_concat_plm(inner)) return rc;
  uint8_t *page = aligned_alloc(4096, 4096);
  if (!page) return -ENOMEM;
  /* 512 bytes (NUMDL 127), RAE (bit 15: the set's events stay for the driver), LSI = the set (the
   * concatenation translates it to the drive's) */
  zkv_admin_cmd cmd = {.opcode = NVME_ADMIN_GET_LOG_PAGE,
                       .cdw10 = 0x0A | (1u << 15) | (127u << 16),
                       .cdw11 = (i + 1) << 16,
                       .buf = page,
                       .len = 512};
  int win = (rc = zkv_dev_nvme_admin(inner, &cmd)) ? -1 : pa_window_in_log(page);
  if (win >= 0) out->win = win;
  free(page);
  if (rc) zkv_set_error("plmarray: reading NVM Set %u's log page 0Ah failed: %s", i + 1, zkv_status_message(rc));
  if (!rc && i == 0 && out->win != WIN_PLM_OFF) {
    zkv_set_error(
        "plmarray: NVM Set 1, the meta set (WAL, metadata, journal), has PLM on; the array keeps it off: "
        "disable it (Set Features 13h) first");
    rc = -EINVAL;
  }
  return rc;
}

/* The array's open (or active) zone limit from the device's, 0 for none; at least 1. The journal
 * keeps a zone, two while it rotates. One device's limit is shared by all sets: a stripe group
 * keeps one zone on every kv-set (a meta group n - 1 < n). A drive's namespaces each have their
 * own (the smallest is given): the meta set's, which holds the journal and n - 1 zones per meta
 * group, is the bound. */
static uint32_t logical_limit(const pa_dev *a, uint32_t inner) {
  if (!inner) return 0;
  if (set_concat_is(a->inner)) return inner > 2 + a->ndata ? (inner - 2) / a->ndata : 1;
  return inner > a->n + 2 ? (inner - 2) / a->n : 1;
}

zkv_dev *plm_array_open(const char *uri, int *err) {
  const char *inner_uri;
  uint64_t chunk = DEFAULT_CHUNK, hold = 0;
  pa_dev *a = calloc(1, sizeof *a);
  if (!a) {
    *err = -ENOMEM;
    return NULL;
  }
  pthread_mutex_init(&a->mu, NULL);
  pthread_cond_init(&a->reads_done, NULL);
  pthread_mutex_init(&a->wmu, NULL);
  a->isolate = a->defer = a->rebuild = 1;
  if ((*err = parse_options(a, uri, &inner_uri, &chunk, &hold))) {
    free_all(a);
    return NULL;
  }
  int listed = strchr(inner_uri, ',') != NULL;
  if (!listed && strncmp(inner_uri, "emu:", 4) != 0) {
    zkv_set_error(
        "plmarray: composes the NVM Sets of an emulated PLM device (emu:...?profile=plm) or the "
        "namespaces of a drive, one per NVM Set, listed with commas (nvme:/dev/ng0n1,nvme:/dev/ng0n2,...), "
        "not '%s'",
        inner_uri);
    *err = -EINVAL;
    free_all(a);
    return NULL;
  }
  if (!(a->inner = listed ? set_concat_open(inner_uri, err) : zkv_dev_open(inner_uri, err))) {
    free_all(a);
    return NULL;
  }
  a->ig = a->inner->geo;
  uint32_t nsets = count_sets(a->inner);
  *err = -EINVAL;
  if (nsets < MIN_SETS) {
    zkv_set_error(nsets ? "plmarray: needs at least %d NVM Sets (a meta set and three kv-sets, so that parity has two "
                          "data chunks); the device has %u"
                        : "plmarray: needs a device with NVM Sets (profile=plm, at least %d); this one has %u",
                  MIN_SETS, nsets);
    goto fail;
  }
  if (chunk == 0 || chunk % a->ig.lba_size || a->ig.zone_cap % chunk) {
    zkv_set_error("plmarray: chunk=%llu must be a multiple of the LBA size (%u) dividing the zone capacity (%llu)",
                  (unsigned long long)chunk, a->ig.lba_size, (unsigned long long)a->ig.zone_cap);
    goto fail;
  }
  a->n = nsets - 1, a->ndata = a->n - 1, a->chunk = chunk, a->slots = a->ig.zone_cap / chunk;
  if (!(a->sets = calloc(nsets, sizeof *a->sets))) goto nomem;
  uint32_t min_kv = UINT32_MAX;
  for (uint32_t i = 0; i < nsets; i++) {
    if ((*err = describe_set(a->inner, i, &a->sets[i]))) goto fail;
    if (i && a->sets[i].nr_zones < min_kv) min_kv = a->sets[i].nr_zones;
  }
  *err = -EINVAL;
  if (a->sets[0].nr_zones < 2 + a->ndata) {
    zkv_set_error("plmarray: the meta set (NVM Set 1) has %u zones; it needs 2 for the journal and %u per meta zone",
                  a->sets[0].nr_zones, a->ndata);
    goto fail;
  }
  a->meta_groups = (a->sets[0].nr_zones - 2) / a->ndata;
  a->stripe_groups = min_kv;
  uint32_t nl = a->meta_groups + a->stripe_groups;
  /* The journal's snapshot holds a record per logical zone and the whole buffer, twice over. */
  uint64_t room = a->ig.zone_cap > (uint64_t)(2 * nl + 2) * a->ig.lba_size
                      ? (a->ig.zone_cap - (uint64_t)(2 * nl + 2) * a->ig.lba_size) / 4
                      : 0;
  if (!hold) hold = DEFAULT_HOLD < room ? DEFAULT_HOLD : room;
  if (hold > room || hold < chunk) {
    zkv_set_error(
        "plmarray: hold=%llu must be between the chunk (%llu) and a quarter of the journal zone's room "
        "(%llu)",
        (unsigned long long)hold, (unsigned long long)chunk, (unsigned long long)room);
    goto fail;
  }
  a->hold_cap = hold;
  for (uint32_t i = 0; i < nsets; i++) a->sets[i].st.hold_capacity = hold;
  zkv_geometry *g = &a->zs.geo;
  *g = a->ig;
  g->nr_zones = nl;
  g->zone_cap = a->ndata * a->ig.zone_cap;
  g->zone_size = a->ndata * a->ig.zone_size;
  g->max_open = logical_limit(a, a->ig.max_open);
  g->max_active = logical_limit(a, a->ig.max_active);
  g->flags = a->isolate ? ZKV_GEO_CLASS_BOUND_ZONES : 0; /* a zone's first write binds it to its group */
  g->meta_class_zones = a->isolate ? a->meta_groups : 0;
  a->base.geo = *g;
  a->base.be = &zkv_plm_array_backend;
  a->base.profile = a->inner->profile;
  a->jzone[0] = a->sets[0].first_zone, a->jzone[1] = a->sets[0].first_zone + 1;
  if (!(a->zs.zones = calloc(nl, sizeof *a->zs.zones)) || !(a->lz = calloc(nl, sizeof *a->lz)) ||
      !(a->meta_owner = malloc(sizeof(uint32_t) * a->meta_groups + 1)) ||
      !(a->stripe_owner = malloc(sizeof(uint32_t) * a->stripe_groups)) ||
      !(a->on_dev = calloc(a->ig.nr_zones, sizeof *a->on_dev)))
    goto nomem;
  memset(a->meta_owner, 0xFF, sizeof(uint32_t) * a->meta_groups);
  memset(a->stripe_owner, 0xFF, sizeof(uint32_t) * a->stripe_groups);
  if ((*err = pa_recover(a))) {
    zkv_set_error("plmarray: recovering %s failed: %s", inner_uri, zkv_status_message(*err));
    goto fail;
  }
  *err = 0;
  return &a->base;
nomem:
  *err = -ENOMEM;
fail:
  free_all(a);
  return NULL;
}

static zkv_dev *pa_made_of(zkv_dev *d) { return PA(d)->inner; }

int zkv_plm_array_stats_get(zkv_dev *d, uint32_t nvm_set, zkv_plm_array_stats *out) {
  if (!d || d->be != &zkv_plm_array_backend) return -EOPNOTSUPP;
  pa_dev *a = PA(d);
  if (nvm_set < 1 || nvm_set > a->n + 1) return -EINVAL;
  lock(a);
  *out = a->sets[nvm_set - 1].st;
  out->window = a->sets[nvm_set - 1].win == WIN_ENTERING_DTWIN ? WIN_NDWIN : (uint32_t)a->sets[nvm_set - 1].win;
  unlock(a);
  return 0;
}

static int pa_stats(zkv_dev *d, zkv_dev_stats *out) {
  pa_dev *a = PA(d);
  lock(a);
  *out = a->stats;
  unlock(a);
  return 0;
}

const zkv_backend zkv_plm_array_backend = {
    .scheme = "plmarray",
    .close = pa_close,
    .report = pa_report,
    .zone_mgmt = pa_zone_mgmt,
    .write = pa_write,
    .append = pa_append,
    .read = pa_read,
    .flush = pa_flush,
    .queue_create = sync_queue_create,
    .synchronous_queues = 1,
    .queue_destroy = sync_queue_destroy,
    .queue_submit = sync_queue_submit,
    .queue_reap = sync_queue_reap,
    .queue_inflight = sync_queue_inflight,
    .stats = pa_stats,
    .admin = pa_admin,
    .zone_class = pa_zone_class,
    .made_of = pa_made_of,
};

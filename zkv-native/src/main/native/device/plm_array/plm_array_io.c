/* The PLM array's reads and writes: a chunk on a kv-set outside its DTWIN is rebuilt from the
 * other sets; writes are striped over the kv-sets with rotating parity (docs/plm.md). */
#define _GNU_SOURCE
#include "plm_array_internal.h"

typedef struct read_part {
  uint32_t z, set; /* inner zone; its kv-set (0-based) */
  uint64_t rel, n;
  uint8_t *out;
  int xor_into; /* reconstruction: XOR into `out` instead of copying */
} read_part;

/* A rebuild's parts are read in parallel (one after the other they would cost n - 1 read times,
 * twice a direct read's with three kv-sets), into `tmp` (room for np chunks), then XORed. */
static int do_parts(pa_dev *a, read_part *p, int np, uint8_t *tmp) {
  uint64_t off[DEV_READ_PARALLEL_MAX];
  uint8_t *dst[DEV_READ_PARALLEL_MAX];
  size_t len[DEV_READ_PARALLEL_MAX];
  int k = 0, together = np <= DEV_READ_PARALLEL_MAX;
  for (int i = 0; i < np; i++) {
    if (!p[i].n) continue;
    if (!p[i].xor_into || !together) {
      uint8_t *to = p[i].xor_into ? tmp : p[i].out;
      int rc = zkv_dev_read(a->inner, izone_start(a, p[i].z) + p[i].rel, to, p[i].n);
      if (rc) return rc;
      if (p[i].xor_into)
        for (uint64_t j = 0; j < p[i].n; j++) p[i].out[j] ^= tmp[j];
      continue;
    }
    off[k] = izone_start(a, p[i].z) + p[i].rel, dst[k] = tmp + (uint64_t)k * a->chunk, len[k] = p[i].n;
    k++;
  }
  int rc = k ? dev_read_parallel(a->inner, k, off, dst, len) : 0;
  for (int i = 0, m = 0; !rc && i < np; i++)
    if (p[i].n && p[i].xor_into && together) {
      for (uint64_t j = 0; j < p[i].n; j++) p[i].out[j] ^= dst[m][j];
      m++;
    }
  return rc;
}

/* Reads [rel, rel + len) of striped logical zone `zone`, chunk by chunk. Whether a chunk is in the
 * open stripe is decided with the write pointer of that moment: a writer may complete the stripe
 * (and start the next in the memory copy) between chunks. */
static int read_stripe(pa_dev *a, uint32_t zone, uint64_t rel, uint8_t *out, uint64_t len) {
  uint64_t c = a->chunk, sb = stripe_bytes(a);
  uint8_t *tmp = malloc(c * (a->n < DEV_READ_PARALLEL_MAX ? a->n : DEV_READ_PARALLEL_MAX)), *scratch = malloc(c);
  read_part *parts = malloc(sizeof *parts * (a->n + 1));
  int rc = tmp && scratch && parts ? 0 : -ENOMEM;
  while (!rc && len) {
    uint64_t k = rel / c, s = k / a->ndata, in = rel % c, n = c - in < len ? c - in : len;
    uint32_t p = (uint32_t)(k % a->ndata), d = data_set(a, s, p);
    int np = 0, buffered = 0;
    lock(a);
    const lzone *l = &a->lz[zone];
    uint64_t written = a->zs.zones[zone].written;
    pa_set *ds = &a->sets[1 + d];
    int others_dt = 1;
    for (uint32_t e = 0; e < a->n; e++)
      if (e != d && a->sets[1 + e].win != WIN_DTWIN) others_dt = 0;
    /* A complete stripe's parity covers its chunks wherever they are (device or buffer), so a
     * chunk partly held (its set draining, or in lockdown) is rebuilt too unless the buffer has all
     * of it: a direct read would wait behind that set's internal work or lockdown. */
    int outside = a->rebuild && (ds->win == WIN_NDWIN || ds->win == WIN_ENTERING_DTWIN),
        open_stripe = (s + 1) * sb > written;
    uint32_t dz = kv_zone(a, d, l->group);
    int all_held = outside && pa_holds_zone(ds, dz) && pa_plan_piece(a, dz, s * c + in, n, out, &buffered) == 0;
    int rebuild = outside && others_dt && !open_stripe && !all_held;
    if (outside && open_stripe && l->stripe) { /* the open stripe's data is in memory (for its parity) */
      memcpy(out, l->stripe + p * c + in, n);
      ds->st.reads_from_buffer++;
    } else if (all_held) {
      ds->st.reads_from_buffer++;
    } else if (rebuild) { /* XOR of the other chunks of the stripe (data and parity) */
      memset(out, 0, n);
      for (uint32_t e = 0; e < a->n; e++) {
        if (e == d) continue;
        uint32_t z = kv_zone(a, e, l->group);
        uint64_t dev = pa_plan_piece(a, z, s * c + in, n, scratch, &buffered);
        for (uint64_t j = dev; j < n; j++) out[j] ^= scratch[j];
        parts[np++] = (read_part){.z = z, .set = e, .rel = s * c + in, .n = dev, .out = out, .xor_into = 1};
      }
      ds->st.reads_reconstructed++;
    } else {
      uint32_t z = kv_zone(a, d, l->group);
      uint64_t dev = pa_plan_piece(a, z, s * c + in, n, out, &buffered);
      parts[np++] = (read_part){.z = z, .set = d, .rel = s * c + in, .n = dev, .out = out};
      if (dev)
        ds->st.reads_direct++;
      else if (buffered)
        ds->st.reads_from_buffer++;
    }
    /* Counted until they complete: a set leaving DTWIN waits for them first (UDT, pa_admin). */
    for (int i = 0; i < np; i++)
      if (parts[i].n) a->sets[1 + parts[i].set].reads_out++;
    unlock(a);
    rc = do_parts(a, parts, np, tmp);
    lock(a);
    for (int i = 0; i < np; i++)
      if (parts[i].n && --a->sets[1 + parts[i].set].reads_out == 0) pthread_cond_broadcast(&a->reads_done);
    unlock(a);
    rel += n, out += n, len -= n;
  }
  free(tmp);
  free(scratch);
  free(parts);
  return rc;
}

static int read_meta(pa_dev *a, const lzone *l, uint64_t rel, uint8_t *out, uint64_t len) {
  uint64_t cap = a->ig.zone_cap;
  while (len) {
    uint32_t m = (uint32_t)(rel / cap);
    uint64_t in = rel % cap, n = cap - in < len ? cap - in : len;
    int rc = zkv_dev_read(a->inner, izone_start(a, meta_zone(a, l->group, m)) + in, out, n);
    if (rc) return rc;
    rel += n, out += n, len -= n;
  }
  return 0;
}

int pa_read(zkv_dev *d, uint64_t offset, void *buf, size_t len) {
  pa_dev *a = PA(d);
  lock(a);
  int rc = a->dead ? -ENODEV : zs_check_read(&a->zs, offset, len);
  uint32_t zone = (uint32_t)(offset / a->zs.geo.zone_size);
  uint64_t rel = offset % a->zs.geo.zone_size, w = rc ? 0 : a->zs.zones[zone].written;
  lzone l = rc ? (lzone){0} : a->lz[zone];
  unlock(a);
  if (rc) return rc;
  /* Above the write pointer: zeros (for a finished zone, what was never written reads as zeros). */
  uint64_t valid = rel >= w ? 0 : (w - rel < len ? w - rel : len);
  memset((uint8_t *)buf + valid, 0, len - valid);
  if (valid && l.kind == PA_STRIPE) rc = read_stripe(a, zone, rel, buf, valid);
  if (valid && l.kind == PA_META) rc = read_meta(a, &l, rel, buf, valid);
  if (!rc) {
    lock(a);
    a->stats.reads++, a->stats.bytes_read += len;
    unlock(a);
  }
  return rc;
}

/* ---------- binding ---------- */

/* Binds empty logical zone l: the class's kind of group if one is free, else the other kind,
 * except that with isolate=1 SST data (ZKV_CLASS_INTERNAL) never goes to the meta set, where a
 * Get would read from a set whose PLM is off: the zone file system keeps within the stripe
 * groups' share (meta_class_zones), so running out is refused, not worked around. The WAL may
 * overflow into stripe groups (it is written, rarely read). */
int pa_bind_zone(pa_dev *a, uint32_t l, int cls) {
  int first = a->isolate && (cls == ZKV_CLASS_WAL || cls == ZKV_CLASS_META) ? PA_META : PA_STRIPE;
  int kinds = a->isolate && cls == ZKV_CLASS_INTERNAL ? 1 : 2;
  for (int attempt = 0; attempt < kinds; attempt++) {
    int want = attempt == 0 ? first : first == PA_META ? PA_STRIPE : PA_META;
    uint32_t *owner = want == PA_META ? a->meta_owner : a->stripe_owner;
    uint32_t groups = want == PA_META ? a->meta_groups : a->stripe_groups;
    for (uint32_t g = 0; g < groups; g++) {
      if (owner[g] != UINT32_MAX) continue;
      int rc = pa_jappend(a, PA_REC_BIND, l, (uint32_t)want, g, NULL, 0, ZKV_IO_FUA);
      if (rc) return rc;
      if (want == PA_STRIPE && !(a->lz[l].stripe = calloc(1, stripe_bytes(a)))) return -ENOMEM;
      lock(a);
      owner[g] = l;
      a->lz[l].kind = want, a->lz[l].group = g;
      unlock(a);
      return 0;
    }
  }
  if (kinds == 1)
    zkv_set_error(
        "plmarray: zone %u's first write is SST data and all %u stripe groups are bound (it may not go to "
        "the meta set)",
        l, a->stripe_groups);
  return -ENOSPC; /* with two kinds, cannot happen: there are as many logical zones as groups */
}

int pa_zone_class(zkv_dev *d, uint32_t zone) {
  pa_dev *a = PA(d);
  lock(a);
  int kind = a->lz[zone].kind;
  unlock(a);
  return kind == PA_META ? ZKV_CLASS_WAL : kind == PA_STRIPE ? ZKV_CLASS_INTERNAL : ZKV_CLASS_NONE;
}

void pa_unbind(pa_dev *a, uint32_t l) {
  lzone *z = &a->lz[l];
  if (z->kind == PA_META) a->meta_owner[z->group] = UINT32_MAX;
  if (z->kind == PA_STRIPE) a->stripe_owner[z->group] = UINT32_MAX;
  free(z->stripe);
  *z = (lzone){0};
}

/* ---------- writes ---------- */

/* The parity of the stripe being written (missing data counts as zeros). */
uint8_t *pa_stripe_parity(const pa_dev *a, const lzone *z) {
  uint8_t *par = calloc(1, a->chunk);
  if (par)
    for (uint32_t q = 0; q < a->ndata; q++)
      for (uint64_t j = 0; j < a->chunk; j++) par[j] ^= z->stripe[q * a->chunk + j];
  return par;
}

static int write_stripe(pa_dev *a, uint32_t l, uint64_t rel, const uint8_t *buf, uint64_t len, int flags) {
  lzone *z = &a->lz[l];
  uint64_t c = a->chunk, sb = stripe_bytes(a);
  while (len) {
    uint64_t k = rel / c, s = k / a->ndata, in = rel % c, n = c - in < len ? c - in : len;
    uint32_t p = (uint32_t)(k % a->ndata), d = data_set(a, s, p);
    lock(a); /* readers of the open stripe copy it under mu */
    memcpy(z->stripe + p * c + in, buf, n);
    unlock(a);
    int rc = pa_put_piece(a, d, kv_zone(a, d, z->group), s * c + in, buf, n, flags);
    if (rc) return rc;
    rel += n, buf += n, len -= n;
    if (rel % sb == 0) { /* the stripe is complete: its parity */
      uint8_t *par = pa_stripe_parity(a, z);
      if (!par) return -ENOMEM;
      uint32_t ps = parity_set(a, s);
      rc = pa_put_piece(a, ps, kv_zone(a, ps, z->group), s * c, par, c, flags);
      free(par);
      lock(a);
      memset(z->stripe, 0, sb);
      unlock(a);
      if (rc) return rc;
    }
  }
  return 0;
}

static int write_meta(pa_dev *a, uint32_t l, uint64_t rel, const uint8_t *buf, uint64_t len, int flags) {
  uint64_t cap = a->ig.zone_cap;
  while (len) {
    uint32_t m = (uint32_t)(rel / cap);
    uint64_t in = rel % cap, n = cap - in < len ? cap - in : len;
    int rc = pa_inner_write(a, meta_zone(a, a->lz[l].group, m), in, buf, n, flags);
    if (rc) return rc;
    a->sets[0].st.writes_direct++;
    rel += n, buf += n, len -= n;
  }
  return 0;
}

static int64_t do_write(pa_dev *a, uint32_t zone, uint64_t rel, const void *buf, size_t len, int flags, int append) {
  pthread_mutex_lock(&a->wmu);
  lock(a);
  int rc = a->dead ? -ENODEV : 0;
  uint64_t assigned = 0;
  if (!rc) rc = zs_write(&a->zs, zone, rel, len, append, &assigned);
  int bound = !rc && a->lz[zone].kind;
  unlock(a);
  if (!rc && !bound && (rc = pa_bind_zone(a, zone, (flags & ZKV_IO_CLASS_MASK) >> ZKV_IO_CLASS_SHIFT))) {
    lock(a); /* nothing was written: the zone is empty again */
    zs_set(&a->zs, zone, ZKV_ZONE_EMPTY, 0);
    unlock(a);
  }
  if (!rc) {
    rc = a->lz[zone].kind == PA_STRIPE ? write_stripe(a, zone, assigned, buf, len, flags)
                                       : write_meta(a, zone, assigned, buf, len, flags);
  }
  if (!rc) {
    lock(a);
    if (append)
      a->stats.appends++, a->stats.bytes_appended += len;
    else
      a->stats.writes++, a->stats.bytes_written += len;
    unlock(a);
  }
  pthread_mutex_unlock(&a->wmu);
  return rc ? rc : (int64_t)((uint64_t)zone * a->zs.geo.zone_size + assigned);
}

int pa_write(zkv_dev *d, uint64_t offset, const void *buf, size_t len, int flags) {
  pa_dev *a = PA(d);
  int64_t rc =
      do_write(a, (uint32_t)(offset / a->zs.geo.zone_size < UINT32_MAX ? offset / a->zs.geo.zone_size : UINT32_MAX),
               offset % a->zs.geo.zone_size, buf, len, flags, 0);
  return rc < 0 ? (int)rc : 0;
}

int64_t pa_append(zkv_dev *d, uint32_t zone, const void *buf, size_t len, int flags) {
  return do_write(PA(d), zone, 0, buf, len, flags, 1);
}

int pa_flush(zkv_dev *d) {
  pa_dev *a = PA(d);
  pthread_mutex_lock(&a->wmu);
  int rc = a->dead ? -ENODEV : pa_sync_all(a);
  a->stats.flushes++;
  pthread_mutex_unlock(&a->wmu);
  return rc;
}

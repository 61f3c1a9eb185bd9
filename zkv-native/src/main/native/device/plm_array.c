/* The PLM array: the NVM Sets of one PLM device composed into one zoned device (plm_array.h,
 * docs/plm.md, journal format docs/formats/plm-array.md).
 *
 * Locks: `wmu` serialises everything that changes the device (writes, zone management, flushes,
 * admin commands, drains); `mu` guards the state readers consult (bindings, held writes, bytes on
 * each inner zone, windows). A read plans under `mu` (copying held data out of the buffer) and
 * reads the inner device without it, so reads never wait behind a write's device time. */
#define _GNU_SOURCE
#include "plm_array.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "crc32c.h"
#include "emu_internal.h"
#include "le_bytes.h"
#include "set_concat.h"
#include "sync_queue.h"
#include "zone_state.h"

#define DEFAULT_CHUNK (64u * 1024)
#define DEFAULT_HOLD (64ull << 20)
#define MIN_SETS 4 /* the meta set and three kv-sets: two data chunks and a parity chunk */

typedef struct held_write {
  struct held_write *next;
  uint32_t zone; /* inner zone */
  int journaled;
  uint64_t rel; /* inner zone-relative offset */
  uint64_t len;
  uint8_t data[];
} held_write;

/* A set's window as the array sees it: the NVMe window codes (Feature 14h, log page 0Ah), PLM off,
 * and the time an NDWIN ends with a DTWIN request the device has not completed yet (the rest of
 * the NDWIN minimum, then the lockdown). */
enum pa_window { WIN_PLM_OFF = 0, WIN_DTWIN = 1, WIN_NDWIN = 2, WIN_ENTERING_DTWIN = 3 };

typedef struct pa_set {
  uint32_t id, first_zone, nr_zones;
  int win;            /* enum pa_window */
  int host_nd;        /* the NDWIN is one the host asked for (not one a write or the device started) */
  uint32_t reads_out; /* device reads planned for this set and not yet completed */
  held_write *head, *tail;
  zkv_plm_array_stats st;
} pa_set;

typedef struct lzone {
  int kind; /* enum pa_kind */
  int finish_pending;
  uint32_t group;
  uint8_t *stripe; /* PA_STRIPE: the data of the stripe being written, for its parity */
} lzone;

typedef struct pa_dev {
  zkv_dev base;
  zkv_dev *inner;
  zkv_geometry ig;
  uint32_t n, ndata; /* kv-sets, data chunks per stripe (n - 1) */
  pa_set *sets;      /* [0] the meta set, [1..n] the kv-sets */
  uint64_t chunk, slots;
  uint32_t meta_groups, stripe_groups;
  uint32_t *meta_owner, *stripe_owner; /* the logical zone bound to each group, UINT32_MAX: free */
  lzone *lz;
  zs_table zs;
  uint64_t *on_dev; /* per inner zone: bytes on the device (held ones are past them) */
  uint64_t hold_cap, held_total;
  /* The mechanisms of the ablation ladder (docs/plm.md), each on by default: WAL and metadata on
   * the meta set; writes for a set in DTWIN held until its NDWIN; reads of a set outside DTWIN
   * rebuilt from the others. */
  int isolate, defer, rebuild;
  uint32_t jzone[2];
  int jcur;
  uint64_t jwp, gen, seq;
  pthread_mutex_t mu, wmu;
  pthread_cond_t reads_done; /* a set's reads_out fell to 0 */
  zkv_dev_stats stats;
  int dead;
} pa_dev;

static pa_dev *PA(zkv_dev *d) { return (pa_dev *)d; }
static void lock(pa_dev *a) { pthread_mutex_lock(&a->mu); }
static void unlock(pa_dev *a) { pthread_mutex_unlock(&a->mu); }

/* ---------- layout ---------- */

/* Stripe s: data position p (0..ndata-1) lives on kv-set data_set(s, p); parity on s % n. */
static uint32_t parity_set(const pa_dev *a, uint64_t s) { return (uint32_t)(s % a->n); }
static uint32_t data_set(const pa_dev *a, uint64_t s, uint32_t p) {
  uint32_t ps = parity_set(a, s);
  return p < ps ? p : p + 1;
}
/* kv-set index k (0-based) -> its inner zone of stripe group g. */
static uint32_t kv_zone(const pa_dev *a, uint32_t k, uint32_t g) { return a->sets[1 + k].first_zone + g; }
/* Meta group g, member m -> inner zone (the meta set's first two zones hold the journal). */
static uint32_t meta_zone(const pa_dev *a, uint32_t g, uint32_t m) {
  return a->sets[0].first_zone + 2 + g * a->ndata + m;
}
static uint64_t izone_start(const pa_dev *a, uint32_t z) { return (uint64_t)z * a->ig.zone_size; }
static pa_set *set_of_izone(pa_dev *a, uint32_t z) {
  for (uint32_t i = 0; i <= a->n; i++)
    if (z >= a->sets[i].first_zone && z < a->sets[i].first_zone + a->sets[i].nr_zones) return &a->sets[i];
  return &a->sets[0];
}
static uint64_t stripe_bytes(const pa_dev *a) { return a->ndata * a->chunk; }

/* ---------- journal (meta set zones 0 and 1) ---------- */

static int jwrite(pa_dev *a, int type, uint32_t x, uint32_t y, uint64_t c, const void *payload, uint64_t len,
                  int flags) {
  uint32_t lba = a->ig.lba_size;
  uint64_t total = lba + len;
  if (a->jwp + total > a->ig.zone_cap) return -ENOSPC;
  uint8_t *b = calloc(1, total);
  if (!b) return -ENOMEM;
  put32(b, PA_JOURNAL_MAGIC);
  put16(b + 4, PA_JOURNAL_VERSION);
  put16(b + 6, (uint16_t)type);
  put64(b + 8, a->seq);
  put64(b + 16, a->gen);
  put32(b + 24, x);
  put32(b + 28, y);
  put64(b + 32, c);
  put32(b + 40, (uint32_t)len);
  if (len) memcpy(b + lba, payload, len);
  uint32_t crc = zkv_crc32c(0, b, 44);
  put32(b + 44, len ? zkv_crc32c(crc, b + lba, len) : crc);
  int rc = zkv_dev_write(a->inner, izone_start(a, a->jzone[a->jcur]) + a->jwp, b, total, flags);
  free(b);
  if (rc) return rc;
  a->jwp += total, a->seq++;
  a->sets[0].st.journal_bytes += total;
  return 0;
}

/* Starts a new generation in the other journal zone: the bindings, pending finishes and every
 * held write, durable before the old zone is reset. */
static int jrotate(pa_dev *a) {
  int rc = zkv_dev_flush(a->inner); /* drained data is durable: its journal records may go */
  int next = !a->jcur;
  if (!rc) rc = zkv_dev_zone_mgmt(a->inner, a->jzone[next], ZKV_ZONE_RESET);
  if (rc) return rc;
  a->jcur = next, a->jwp = 0, a->gen++, a->seq = 0;
  uint64_t records = 0; /* in the HEAD: a snapshot cut short by a power cut is not taken */
  for (uint32_t l = 0; l < a->zs.geo.nr_zones; l++) records += (a->lz[l].kind != 0) + a->lz[l].finish_pending;
  for (uint32_t i = 1; i <= a->n; i++) records += a->sets[i].st.held_writes;
  if ((rc = jwrite(a, PA_REC_HEAD, 0, 0, records, NULL, 0, 0))) return rc;
  for (uint32_t l = 0; !rc && l < a->zs.geo.nr_zones; l++) {
    if (a->lz[l].kind) rc = jwrite(a, PA_REC_BIND, l, (uint32_t)a->lz[l].kind, a->lz[l].group, NULL, 0, 0);
    if (!rc && a->lz[l].finish_pending) rc = jwrite(a, PA_REC_FINISH, l, 0, 0, NULL, 0, 0);
  }
  for (uint32_t i = 1; !rc && i <= a->n; i++)
    for (held_write *h = a->sets[i].head; !rc && h; h = h->next) {
      rc = jwrite(a, PA_REC_HELD, h->zone, 0, h->rel, h->data, h->len, 0);
      h->journaled = 1;
    }
  if (!rc) rc = zkv_dev_flush(a->inner);
  if (!rc) rc = zkv_dev_zone_mgmt(a->inner, a->jzone[!next], ZKV_ZONE_RESET);
  return rc;
}

static int jappend(pa_dev *a, int type, uint32_t x, uint32_t y, uint64_t c, const void *payload, uint64_t len,
                   int flags) {
  int rc = jwrite(a, type, x, y, c, payload, len, flags);
  if (rc != -ENOSPC) return rc;
  if ((rc = jrotate(a))) return rc; /* durable, with every held write already */
  if (type == PA_REC_HELD) return 0;
  return jwrite(a, type, x, y, c, payload, len, flags);
}

/* ---------- held writes ---------- */

static int inner_write(pa_dev *a, uint32_t z, uint64_t rel, const void *buf, uint64_t len, int flags) {
  int rc = zkv_dev_write(a->inner, izone_start(a, z) + rel, buf, len, flags & ZKV_IO_FUA);
  if (rc) return rc;
  lock(a);
  a->on_dev[z] = rel + len;
  pa_set *s = set_of_izone(a, z);
  if (s != &a->sets[0] && s->win != WIN_PLM_OFF && !s->host_nd) s->st.writes_unscheduled++;
  if ((s->win == WIN_DTWIN || s->win == WIN_ENTERING_DTWIN) && s != &a->sets[0])
    s->win = WIN_NDWIN, s->host_nd = 0; /* a write ends a DTWIN, or the one being entered (the device says so too) */
  unlock(a);
  return 0;
}

static void finish_inner_if_done(pa_dev *a, uint32_t z);

/* Writes out what set s holds, oldest first (the set's window allows it, or the buffer is full). */
static int drain(pa_dev *a, pa_set *s) {
  while (s->head) {
    held_write *h = s->head;
    /* FUA: a drained write lost while a later one survives would leave a hole below the write
     * pointer that the journal could no longer fill. */
    int rc = inner_write(a, h->zone, h->rel, h->data, h->len, ZKV_IO_FUA);
    if (rc) return rc;
    lock(a);
    s->head = h->next;
    if (!s->head) s->tail = NULL;
    s->st.held_bytes -= h->len, s->st.held_writes--, s->st.bytes_drained += h->len;
    a->held_total -= h->len;
    unlock(a);
    uint32_t z = h->zone;
    free(h);
    finish_inner_if_done(a, z);
  }
  return 0;
}

static int holds_zone(const pa_set *s, uint32_t z) {
  for (held_write *h = s->head; h; h = h->next)
    if (h->zone == z) return 1;
  return 0;
}

/* A kv-set's part of stripe-group writes: straight to the device unless the set is in DTWIN (or
 * still has older held data, which must land first). */
static int put_piece(pa_dev *a, uint32_t k, uint32_t z, uint64_t rel, const void *buf, uint64_t len, int flags) {
  pa_set *s = &a->sets[1 + k];
  int rc;
  if (((s->win != WIN_DTWIN && s->win != WIN_ENTERING_DTWIN) || !a->defer) && !s->head) {
    s->st.writes_direct++;
    return inner_write(a, z, rel, buf, len, flags);
  }
  if (a->held_total + len > a->hold_cap) { /* full: write through, breaking the set's DTWIN */
    s->st.writes_forced++;
    if ((rc = drain(a, s))) return rc;
    return inner_write(a, z, rel, buf, len, flags);
  }
  held_write *h = malloc(sizeof *h + len);
  if (!h) return -ENOMEM;
  *h = (held_write){.zone = z, .rel = rel, .len = len};
  memcpy(h->data, buf, len);
  lock(a);
  if (s->tail)
    s->tail->next = h;
  else
    s->head = h;
  s->tail = h;
  s->st.held_bytes += len, s->st.held_writes++, s->st.writes_held++;
  a->held_total += len;
  unlock(a);
  if (!(flags & ZKV_IO_FUA)) return 0;
  /* Durable now, through the journal (a rotation on the way writes it in its snapshot). */
  if ((rc = jappend(a, PA_REC_HELD, z, 0, rel, buf, len, ZKV_IO_FUA))) return rc;
  h->journaled = 1;
  return 0;
}

/* ---------- reads ---------- */

/* One piece of an inner zone to fill `out` from: [rel, rel + len). Under mu: copies what the
 * buffer holds and returns how many leading bytes are to be read from the device. */
static uint64_t plan_piece(pa_dev *a, uint32_t z, uint64_t rel, uint64_t len, uint8_t *out, int *buffered) {
  uint64_t dev_end = a->on_dev[z];
  uint64_t from_dev = rel >= dev_end ? 0 : (dev_end - rel < len ? dev_end - rel : len);
  memset(out + from_dev, 0, len - from_dev);
  pa_set *s = set_of_izone(a, z);
  for (held_write *h = s->head; h && from_dev < len; h = h->next) {
    if (h->zone != z) continue;
    uint64_t lo = h->rel > rel ? h->rel : rel, hi = h->rel + h->len < rel + len ? h->rel + h->len : rel + len;
    if (lo < hi) memcpy(out + (lo - rel), h->data + (lo - h->rel), hi - lo), *buffered = 1;
  }
  return from_dev;
}

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
    int all_held = outside && holds_zone(ds, dz) && plan_piece(a, dz, s * c + in, n, out, &buffered) == 0;
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
        uint64_t dev = plan_piece(a, z, s * c + in, n, scratch, &buffered);
        for (uint64_t j = dev; j < n; j++) out[j] ^= scratch[j];
        parts[np++] = (read_part){.z = z, .set = e, .rel = s * c + in, .n = dev, .out = out, .xor_into = 1};
      }
      ds->st.reads_reconstructed++;
    } else {
      uint32_t z = kv_zone(a, d, l->group);
      uint64_t dev = plan_piece(a, z, s * c + in, n, out, &buffered);
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

static int pa_read(zkv_dev *d, uint64_t offset, void *buf, size_t len) {
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
static int bind_zone(pa_dev *a, uint32_t l, int cls) {
  int first = a->isolate && (cls == ZKV_CLASS_WAL || cls == ZKV_CLASS_META) ? PA_META : PA_STRIPE;
  int kinds = a->isolate && cls == ZKV_CLASS_INTERNAL ? 1 : 2;
  for (int attempt = 0; attempt < kinds; attempt++) {
    int want = attempt == 0 ? first : first == PA_META ? PA_STRIPE : PA_META;
    uint32_t *owner = want == PA_META ? a->meta_owner : a->stripe_owner;
    uint32_t groups = want == PA_META ? a->meta_groups : a->stripe_groups;
    for (uint32_t g = 0; g < groups; g++) {
      if (owner[g] != UINT32_MAX) continue;
      int rc = jappend(a, PA_REC_BIND, l, (uint32_t)want, g, NULL, 0, ZKV_IO_FUA);
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

static int pa_zone_class(zkv_dev *d, uint32_t zone) {
  pa_dev *a = PA(d);
  lock(a);
  int kind = a->lz[zone].kind;
  unlock(a);
  return kind == PA_META ? ZKV_CLASS_WAL : kind == PA_STRIPE ? ZKV_CLASS_INTERNAL : ZKV_CLASS_NONE;
}

static void unbind(pa_dev *a, uint32_t l) {
  lzone *z = &a->lz[l];
  if (z->kind == PA_META) a->meta_owner[z->group] = UINT32_MAX;
  if (z->kind == PA_STRIPE) a->stripe_owner[z->group] = UINT32_MAX;
  free(z->stripe);
  *z = (lzone){0};
}

/* ---------- writes ---------- */

/* The parity of the stripe being written (missing data counts as zeros). */
static uint8_t *stripe_parity(const pa_dev *a, const lzone *z) {
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
    int rc = put_piece(a, d, kv_zone(a, d, z->group), s * c + in, buf, n, flags);
    if (rc) return rc;
    rel += n, buf += n, len -= n;
    if (rel % sb == 0) { /* the stripe is complete: its parity */
      uint8_t *par = stripe_parity(a, z);
      if (!par) return -ENOMEM;
      uint32_t ps = parity_set(a, s);
      rc = put_piece(a, ps, kv_zone(a, ps, z->group), s * c, par, c, flags);
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
    int rc = inner_write(a, meta_zone(a, a->lz[l].group, m), in, buf, n, flags);
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
  if (!rc && !bound && (rc = bind_zone(a, zone, (flags & ZKV_IO_CLASS_MASK) >> ZKV_IO_CLASS_SHIFT))) {
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

static int pa_write(zkv_dev *d, uint64_t offset, const void *buf, size_t len, int flags) {
  pa_dev *a = PA(d);
  int64_t rc =
      do_write(a, (uint32_t)(offset / a->zs.geo.zone_size < UINT32_MAX ? offset / a->zs.geo.zone_size : UINT32_MAX),
               offset % a->zs.geo.zone_size, buf, len, flags, 0);
  return rc < 0 ? (int)rc : 0;
}

static int64_t pa_append(zkv_dev *d, uint32_t zone, const void *buf, size_t len, int flags) {
  return do_write(PA(d), zone, 0, buf, len, flags, 1);
}

/* Journals every held write not yet journaled and flushes the device: after it, everything
 * written before is durable (on its set, or in the journal). Caller holds wmu. */
static int sync_all(pa_dev *a) {
  int rc = 0;
  for (uint32_t i = 1; !rc && i <= a->n; i++)
    for (held_write *h = a->sets[i].head; !rc && h; h = h->next) {
      if (h->journaled) continue;
      rc = jappend(a, PA_REC_HELD, h->zone, 0, h->rel, h->data, h->len, 0);
      h->journaled = 1; /* after a rotation the snapshot has it anyway */
    }
  return rc ? rc : zkv_dev_flush(a->inner);
}

static int pa_flush(zkv_dev *d) {
  pa_dev *a = PA(d);
  pthread_mutex_lock(&a->wmu);
  int rc = a->dead ? -ENODEV : sync_all(a);
  a->stats.flushes++;
  pthread_mutex_unlock(&a->wmu);
  return rc;
}

/* ---------- zone management ---------- */

static void finish_inner_if_done(pa_dev *a, uint32_t z) {
  /* A finished logical zone whose held data has drained: its inner zones can be finished now. */
  for (uint32_t l = 0; l < a->zs.geo.nr_zones; l++) {
    lzone *x = &a->lz[l];
    if (!x->finish_pending || x->kind != PA_STRIPE) continue;
    int mine = 0, pending = 0;
    for (uint32_t k = 0; k < a->n; k++) {
      uint32_t iz = kv_zone(a, k, x->group);
      mine |= iz == z;
      pending |= holds_zone(&a->sets[1 + k], iz);
    }
    if (!mine || pending) continue;
    for (uint32_t k = 0; k < a->n; k++) (void)zkv_dev_zone_mgmt(a->inner, kv_zone(a, k, x->group), ZKV_ZONE_FINISH);
    x->finish_pending = 0;
  }
}

static int inner_mgmt_all(pa_dev *a, const lzone *l, int action) {
  int rc = 0;
  uint32_t members = l->kind == PA_STRIPE ? a->n : a->ndata;
  for (uint32_t m = 0; !rc && m < members; m++) {
    uint32_t z = l->kind == PA_STRIPE ? kv_zone(a, m, l->group) : meta_zone(a, l->group, m);
    rc = zkv_dev_zone_mgmt(a->inner, z, action);
    if (!rc && action == ZKV_ZONE_RESET) {
      lock(a);
      a->on_dev[z] = 0;
      unlock(a);
    }
  }
  return rc;
}

/* Drops the held writes of inner zone z (its data is being discarded by a reset). */
static void drop_held(pa_dev *a, uint32_t z) {
  pa_set *s = set_of_izone(a, z);
  held_write **pp = &s->head, *last = NULL;
  while (*pp) {
    held_write *h = *pp;
    if (h->zone == z) {
      *pp = h->next;
      s->st.held_bytes -= h->len, s->st.held_writes--;
      a->held_total -= h->len;
      free(h);
    } else {
      last = h;
      pp = &h->next;
    }
  }
  s->tail = last;
}

static int reset_zone(pa_dev *a, uint32_t zone) {
  lzone l = a->lz[zone];
  if (!l.kind) return 0;
  /* The barrier: before any space is freed, everything held is durable (so no file's durability
   * can depend on data a reset could overtake), and the reset is in the journal before the held
   * writes it discards are forgotten. */
  int rc = sync_all(a);
  if (!rc) rc = jappend(a, PA_REC_RESET, zone, (uint32_t)l.kind, l.group, NULL, 0, ZKV_IO_FUA);
  if (rc) return rc;
  lock(a);
  if (l.kind == PA_STRIPE)
    for (uint32_t k = 0; k < a->n; k++) drop_held(a, kv_zone(a, k, l.group));
  unbind(a, zone);
  unlock(a);
  return inner_mgmt_all(a, &l, ZKV_ZONE_RESET);
}

static int finish_zone(pa_dev *a, uint32_t zone, uint64_t w) {
  lzone *l = &a->lz[zone];
  int rc = 0;
  if (!l->kind && (rc = bind_zone(a, zone, ZKV_CLASS_NONE))) return rc;
  if (l->kind == PA_META) return inner_mgmt_all(a, l, ZKV_ZONE_FINISH);
  uint64_t sb = stripe_bytes(a);
  if (w % sb) { /* the last stripe's parity, over its data and zeros */
    uint64_t s = w / sb, c = a->chunk;
    uint8_t *par = stripe_parity(a, l);
    if (!par) return -ENOMEM;
    uint32_t ps = parity_set(a, s);
    rc = put_piece(a, ps, kv_zone(a, ps, l->group), s * c, par, c, 0);
    free(par);
    if (rc) return rc;
  }
  if ((rc = jappend(a, PA_REC_FINISH, zone, 0, 0, NULL, 0, ZKV_IO_FUA))) return rc;
  l->finish_pending = 1;
  finish_inner_if_done(a, kv_zone(a, 0, l->group));
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

/* ---------- admin: forwarded, with the windows observed ---------- */

static int is_window_request(const zkv_admin_cmd *cmd, int window) {
  return admin_sets_feature(cmd, 0x14) && (int)(cmd->cdw12 & 7) == window;
}

static int is_plm_config(const zkv_admin_cmd *cmd) { return admin_sets_feature(cmd, 0x13); }

/* The window a Set Features command puts its set in (PLM on starts in NDWIN), or -1. */
static int window_set_by(const zkv_admin_cmd *cmd) {
  if (admin_sets_feature(cmd, 0x14)) return (int)(cmd->cdw12 & 7);
  if (is_plm_config(cmd)) return (cmd->cdw12 & 1) ? WIN_NDWIN : WIN_PLM_OFF;
  return -1;
}

/* The window in a log page 0Ah (Status bits 2:0), or -1 for a code the spec does not define. */
static int window_in_log(const void *page) {
  int w = ((const uint8_t *)page)[0] & 7;
  return w <= WIN_NDWIN ? w : -1;
}

static int forward(pa_dev *a, zkv_admin_cmd *cmd) { return a->dead ? -ENODEV : zkv_dev_nvme_admin(a->inner, cmd); }

/* After a command succeeded: the window it set, or the one a log page shows (a DTWIN the device
 * ended on its own: its maximum, a full internal queue), becomes the set's; outside DTWIN its held
 * writes go to the device now. The window driver reads the log pages at its decisions. */
static int observe_window(pa_dev *a, pa_set *s, const zkv_admin_cmd *cmd) {
  int win = window_set_by(cmd);
  if (admin_is_log(cmd, 0x0A)) {
    uint32_t id = cmd->cdw11 >> 16;
    s = id >= 1 && id <= a->n + 1 ? &a->sets[id - 1] : NULL;
    if (s) win = window_in_log(cmd->buf); /* -1: not a window the spec defines: keep the array's view */
    /* Read while this set's DTWIN request waits in the device (another thread), the page shows the
     * NDWIN that request is ending: the array's view (lockdown) stays. */
    if (s && win == WIN_NDWIN && s->win == WIN_ENTERING_DTWIN) win = -1;
  }
  if (!s || win < 0) return 0;
  lock(a);
  /* An NDWIN the host asked for (a window request, or PLM turned on), or one it finds in a log */
  s->host_nd = win == WIN_NDWIN && (cmd->opcode == NVME_ADMIN_SET_FEATURES || (s->win == WIN_NDWIN && s->host_nd));
  s->win = win;
  unlock(a);
  return win != WIN_DTWIN && s != &a->sets[0] ? drain(a, s) : 0; /* NDWIN (or PLM off): held writes go now */
}

/* Leaving NDWIN: what this set holds must land before (the device's DTWIN is write-free). The
 * device completes the request after its NDWIN minimum and the lockdown: meanwhile other sets'
 * writes go on (the array's write lock is released), this set's are held and its reads rebuilt.
 * Called with wmu held; returns with it released. */
static int enter_dtwin(pa_dev *a, pa_set *s, zkv_admin_cmd *cmd) {
  int prev = s->win, prev_host_nd = s->host_nd;
  int rc = drain(a, s);
  if (rc) {
    pthread_mutex_unlock(&a->wmu);
    return rc;
  }
  lock(a);
  s->win = WIN_ENTERING_DTWIN, s->host_nd = 0;
  unlock(a);
  pthread_mutex_unlock(&a->wmu);
  rc = forward(a, cmd);
  pthread_mutex_lock(&a->wmu);
  lock(a);
  if (s->win == WIN_ENTERING_DTWIN && rc) s->win = prev, s->host_nd = prev_host_nd;
  if (s->win == WIN_ENTERING_DTWIN) s->win = WIN_DTWIN; /* unless a write already ended it */
  unlock(a);
  if (rc && s->head) (void)drain(a, s);
  pthread_mutex_unlock(&a->wmu);
  return rc;
}

/* Leaving DTWIN (an NDWIN request, or PLM turned on or off): reads stop going to the set before
 * the device can start its internal work, and those already on their way complete first
 * (Vigil-KV's UDT); marked only once the command had returned, a driver thread descheduled in
 * between let reads wait behind that work, and reads planned just before it did so anyway.
 * Returns the window to restore if the command fails. */
static int stop_reads_before_leaving(pa_dev *a, pa_set *s, const zkv_admin_cmd *cmd) {
  lock(a);
  int before = s->win;
  if (s->win == WIN_DTWIN) s->win = window_set_by(cmd) == WIN_PLM_OFF ? WIN_PLM_OFF : WIN_NDWIN;
  while (s->reads_out) pthread_cond_wait(&a->reads_done, &a->mu);
  unlock(a);
  return before;
}

/* The PLM admin commands, forwarded to the device with the array's view of each set's window
 * kept in step (docs/plm.md, "Window scheduling"). */
static int pa_admin(zkv_dev *d, zkv_admin_cmd *cmd) {
  pa_dev *a = PA(d);
  uint32_t set = cmd->cdw11 & 0xFFFF;
  pa_set *s = set >= 1 && set <= a->n + 1 ? &a->sets[set - 1] : NULL, *kv = s && s != &a->sets[0] ? s : NULL;
  if (s == &a->sets[0] && is_plm_config(cmd) && window_set_by(cmd) == WIN_NDWIN) {
    zkv_set_error("NVM Set %u is the plmarray's meta set (WAL, metadata, journal): its PLM stays off", set);
    return -EINVAL;
  }
  pthread_mutex_lock(&a->wmu);
  if (kv && is_window_request(cmd, WIN_DTWIN)) {
    if (kv->win != WIN_DTWIN) return enter_dtwin(a, kv, cmd);
    int rc = drain(a, kv); /* there already: nothing to wait for, forwarded as any other command */
    if (rc) {
      pthread_mutex_unlock(&a->wmu);
      return rc;
    }
  }
  int before =
      kv && (is_window_request(cmd, WIN_NDWIN) || is_plm_config(cmd)) ? stop_reads_before_leaving(a, kv, cmd) : -1;
  int rc = forward(a, cmd);
  if (rc && before >= 0) {
    lock(a);
    kv->win = before;
    unlock(a);
  }
  if (!rc) rc = observe_window(a, s, cmd); /* a log page names its set in the LSI, not here */
  pthread_mutex_unlock(&a->wmu);
  return rc;
}

/* ---------- recovery ---------- */

static int write_zeros(pa_dev *a, uint32_t z, uint64_t to) {
  uint64_t from = a->on_dev[z];
  if (to <= from) return 0;
  uint8_t *zero = calloc(1, to - from);
  if (!zero) return -ENOMEM;
  int rc = inner_write(a, z, from, zero, to - from, 0);
  free(zero);
  return rc;
}

/* Applies a journaled held write straight to its zone: what is already there is skipped, a gap
 * before it (unsynced data lost with the power) becomes zeros. */
static int apply_held(pa_dev *a, uint32_t z, uint64_t rel, const uint8_t *data, uint64_t len) {
  if (rel + len <= a->on_dev[z]) return 0;
  int rc = write_zeros(a, z, rel);
  uint64_t skip = a->on_dev[z] - rel;
  return rc ? rc : inner_write(a, z, rel + skip, data + skip, len - skip, 0);
}

/* The logical length of striped group g from its zones' write pointers; then pads what a lost
 * unsynced write left missing with zeros and writes any missing parity, so the stripes below the
 * length are whole again, and reloads the open stripe's data. */
static int recover_stripe(pa_dev *a, uint32_t l, uint64_t *written) {
  lzone *x = &a->lz[l];
  uint64_t c = a->chunk, sb = stripe_bytes(a), len = 0, cap = a->zs.geo.zone_cap;
  for (uint32_t k = 0; k < a->n; k++) {
    uint64_t w = a->on_dev[kv_zone(a, k, x->group)], end;
    if (!w) continue;
    uint64_t s = (w - 1) / c;
    if (k == parity_set(a, s)) {
      end = (s + 1) * sb;
    } else {
      uint32_t p = k < parity_set(a, s) ? k : k - 1;
      end = (s * a->ndata + p) * c + (w - s * c);
    }
    if (end > len) len = end;
  }
  if (len > cap) len = cap;
  int rc = 0;
  uint8_t *par = malloc(c), *tmp = malloc(c);
  if (!par || !tmp) rc = -ENOMEM;
  for (uint64_t s = 0; !rc && s * sb < len; s++) {
    int whole = (s + 1) * sb <= len;
    for (uint32_t p = 0; !rc && p < a->ndata; p++) {
      uint64_t pos = s * sb + p * c, have = len <= pos ? 0 : (len - pos < c ? len - pos : c);
      if (have) rc = write_zeros(a, kv_zone(a, data_set(a, s, p), x->group), s * c + have);
    }
    uint32_t pz = kv_zone(a, parity_set(a, s), x->group);
    if (!rc && whole && a->on_dev[pz] < (s + 1) * c) {
      memset(par, 0, c);
      for (uint32_t p = 0; !rc && p < a->ndata; p++) {
        rc = zkv_dev_read(a->inner, izone_start(a, kv_zone(a, data_set(a, s, p), x->group)) + s * c, tmp, c);
        for (uint64_t j = 0; !rc && j < c; j++) par[j] ^= tmp[j];
      }
      uint64_t have = a->on_dev[pz] - s * c; /* a torn parity write kept this much */
      if (!rc) rc = inner_write(a, pz, s * c + have, par + have, c - have, 0);
    }
    if (!rc && !whole) /* the open stripe's data, for its parity */
      for (uint32_t p = 0; !rc && p < a->ndata; p++)
        rc = zkv_dev_read(a->inner, izone_start(a, kv_zone(a, data_set(a, s, p), x->group)) + s * c, x->stripe + p * c,
                          c);
  }
  free(par);
  free(tmp);
  *written = len;
  return rc;
}

typedef struct jrec {
  int type, dead;
  uint32_t x, y;
  uint64_t c, len;
  const uint8_t *payload;
} jrec;

/* The valid records of journal zone j (a torn tail ends them); *gen = 0 when the zone holds no
 * complete snapshot (its HEAD says how many records the snapshot has). */
static int journal_parse(pa_dev *a, int j, uint8_t **bufp, jrec **out, size_t *n, uint64_t *gen) {
  uint32_t lba = a->ig.lba_size, z = a->jzone[j];
  uint64_t end = a->on_dev[z], pos = 0, seq = 0, snapshot = 0;
  *gen = 0, *n = 0, *out = NULL, *bufp = NULL;
  if (!end) return 0;
  uint8_t *buf = malloc(end);
  jrec *r = calloc(end / lba + 1, sizeof *r);
  if (!buf || !r) {
    free(buf);
    free(r);
    return -ENOMEM;
  }
  int rc = zkv_dev_read(a->inner, izone_start(a, z), buf, end);
  while (!rc && pos + lba <= end) {
    uint8_t *h = buf + pos;
    uint64_t len = get32(h + 40);
    if (get32(h) != PA_JOURNAL_MAGIC || get16(h + 4) != PA_JOURNAL_VERSION || get64(h + 8) != seq ||
        pos + lba + len > end || (seq && get64(h + 16) != *gen))
      break;
    uint32_t crc = zkv_crc32c(0, h, 44);
    if (len) crc = zkv_crc32c(crc, h + lba, len);
    if (crc != get32(h + 44)) break; /* a torn tail: the records before it are the journal */
    r[*n] = (jrec){.type = get16(h + 6),
                   .x = get32(h + 24),
                   .y = get32(h + 28),
                   .c = get64(h + 32),
                   .len = len,
                   .payload = h + lba};
    if (seq == 0) {
      if (r[0].type != PA_REC_HEAD) break;
      *gen = get64(h + 16), snapshot = r[0].c;
    }
    (*n)++, pos += lba + len, seq++;
  }
  if (*n < snapshot + 1) *gen = 0; /* the rotation that wrote it did not finish */
  *bufp = buf, *out = r;
  return rc;
}

/* Replays the journal: bindings and pending finishes into memory, then the held writes no later
 * reset cancelled, straight to their zones. */
static int journal_replay(pa_dev *a, jrec *r, size_t n) {
  int rc = 0;
  for (size_t i = 1; !rc && i < n; i++) {
    uint32_t x = r[i].x, y = r[i].y;
    uint64_t c = r[i].c;
    if (r[i].type == PA_REC_BIND && x < a->zs.geo.nr_zones && (y == PA_META || y == PA_STRIPE) &&
        c < (y == PA_META ? a->meta_groups : a->stripe_groups)) {
      uint32_t *owner = y == PA_META ? a->meta_owner : a->stripe_owner;
      if (owner[c] != UINT32_MAX) unbind(a, owner[c]);
      unbind(a, x);
      owner[c] = x;
      a->lz[x].kind = (int)y, a->lz[x].group = (uint32_t)c;
      if (y == PA_STRIPE && !(a->lz[x].stripe = calloc(1, stripe_bytes(a)))) rc = -ENOMEM;
    } else if (r[i].type == PA_REC_RESET && x < a->zs.geo.nr_zones) {
      if (a->lz[x].kind) unbind(a, x);
      for (size_t k = 1; y == PA_STRIPE && k < i; k++)
        for (uint32_t m = 0; m < a->n; m++)
          if (r[k].type == PA_REC_HELD && r[k].x == kv_zone(a, m, (uint32_t)c)) r[k].dead = 1;
    } else if (r[i].type == PA_REC_FINISH && x < a->zs.geo.nr_zones) {
      a->lz[x].finish_pending = 1;
    }
  }
  for (size_t i = 1; !rc && i < n; i++)
    if (r[i].type == PA_REC_HELD && !r[i].dead && r[i].x < a->ig.nr_zones && r[i].c + r[i].len <= a->ig.zone_cap)
      rc = apply_held(a, r[i].x, r[i].c, r[i].payload, r[i].len);
  return rc;
}

static int recover(pa_dev *a) {
  uint32_t nz = a->ig.nr_zones;
  zkv_zone *rep = malloc(sizeof *rep * nz);
  if (!rep) return -ENOMEM;
  int n = zkv_dev_report(a->inner, 0, rep, nz), rc = n == (int)nz ? 0 : (n < 0 ? n : -EIO);
  for (uint32_t z = 0; !rc && z < nz; z++)
    a->on_dev[z] = rep[z].cond == ZKV_ZONE_FULL ? a->ig.zone_cap : rep[z].wp - rep[z].start;
  free(rep);
  uint8_t *b[2] = {NULL, NULL};
  jrec *r[2] = {NULL, NULL};
  size_t nr[2] = {0, 0};
  uint64_t g[2] = {0, 0};
  for (int j = 0; !rc && j < 2; j++) rc = journal_parse(a, j, &b[j], &r[j], &nr[j], &g[j]);
  a->jcur = g[1] > g[0];
  a->gen = g[a->jcur];
  if (!rc && a->gen) rc = journal_replay(a, r[a->jcur], nr[a->jcur]);
  for (int j = 0; j < 2; j++) free(b[j]), free(r[j]);
  /* Groups no zone is bound to are empty (a reset the power cut overtook is done now). */
  for (uint32_t k = 0; !rc && k < a->stripe_groups; k++)
    if (a->stripe_owner[k] == UINT32_MAX) {
      lzone x = {.kind = PA_STRIPE, .group = k};
      rc = inner_mgmt_all(a, &x, ZKV_ZONE_RESET);
    }
  for (uint32_t k = 0; !rc && k < a->meta_groups; k++)
    if (a->meta_owner[k] == UINT32_MAX) {
      lzone x = {.kind = PA_META, .group = k};
      rc = inner_mgmt_all(a, &x, ZKV_ZONE_RESET);
    }
  /* Zones finished in the journal: their inner zones are finished now (nothing is held). */
  for (uint32_t l = 0; !rc && l < a->zs.geo.nr_zones; l++)
    if (a->lz[l].finish_pending && a->lz[l].kind) {
      lzone x = a->lz[l];
      uint64_t w = 0;
      if (x.kind == PA_STRIPE) rc = recover_stripe(a, l, &w); /* parity of the stripes below first */
      uint64_t sb = stripe_bytes(a), c = a->chunk, s = w / sb;
      uint32_t pz = x.kind == PA_STRIPE ? kv_zone(a, parity_set(a, s), x.group) : 0;
      if (!rc && x.kind == PA_STRIPE && w % sb && a->on_dev[pz] < (s + 1) * c) { /* the last one's */
        uint8_t *par = stripe_parity(a, &a->lz[l]);
        uint64_t have = a->on_dev[pz] > s * c ? a->on_dev[pz] - s * c : 0;
        rc = !par ? -ENOMEM : write_zeros(a, pz, s * c);
        if (!rc) rc = inner_write(a, pz, s * c + have, par + have, c - have, 0);
        free(par);
      }
      if (!rc) rc = inner_mgmt_all(a, &x, ZKV_ZONE_FINISH);
      uint32_t members = x.kind == PA_STRIPE ? a->n : a->ndata;
      for (uint32_t m = 0; !rc && m < members; m++)
        a->on_dev[x.kind == PA_STRIPE ? kv_zone(a, m, x.group) : meta_zone(a, x.group, m)] = a->ig.zone_cap;
    }
  for (uint32_t l = 0; !rc && l < a->zs.geo.nr_zones; l++) {
    lzone *x = &a->lz[l];
    a->lz[l].finish_pending = 0;
    uint64_t w = 0;
    if (x->kind == PA_STRIPE) rc = recover_stripe(a, l, &w);
    if (x->kind == PA_META)
      for (uint32_t m = 0; m < a->ndata; m++) w += a->on_dev[meta_zone(a, x->group, m)];
    uint32_t cond = w == a->zs.geo.zone_cap ? ZKV_ZONE_FULL : w ? ZKV_ZONE_CLOSED : ZKV_ZONE_EMPTY;
    a->zs.zones[l] = (zs_entry){.written = w, .cond = cond};
  }
  zs_recount(&a->zs);
  /* A fresh generation: the old zone may end in a torn record that later appends would follow. */
  return rc ? rc : jrotate(a);
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
  if (!a->dead && zkv_dev_flush(a->inner) != -ENODEV) (void)sync_all(a);
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
  int win = (rc = zkv_dev_nvme_admin(inner, &cmd)) ? -1 : window_in_log(page);
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
  if ((*err = recover(a))) {
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

zkv_dev *plm_array_inner(zkv_dev *d) { return d && d->be == &zkv_plm_array_backend ? PA(d)->inner : d; }

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
    .queue_destroy = sync_queue_destroy,
    .queue_submit = sync_queue_submit,
    .queue_reap = sync_queue_reap,
    .queue_inflight = sync_queue_inflight,
    .stats = pa_stats,
    .admin = pa_admin,
    .zone_class = pa_zone_class,
};

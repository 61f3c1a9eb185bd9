/* The PLM array's recovery at open: the journal (plm_array_journal.c) replayed, held writes
 * applied, stripes made whole and pending finishes carried out. */
#define _GNU_SOURCE
#include "plm_array_internal.h"

static int write_zeros(pa_dev *a, uint32_t z, uint64_t to) {
  uint64_t from = a->on_dev[z];
  if (to <= from) return 0;
  uint8_t *zero = calloc(1, to - from);
  if (!zero) return -ENOMEM;
  int rc = pa_inner_write(a, z, from, zero, to - from, 0);
  free(zero);
  return rc;
}

/* Applies a journaled held write straight to its zone: what is already there is skipped, a gap
 * before it (unsynced data lost with the power) becomes zeros. */
static int apply_held(pa_dev *a, uint32_t z, uint64_t rel, const uint8_t *data, uint64_t len) {
  if (rel + len <= a->on_dev[z]) return 0;
  int rc = write_zeros(a, z, rel);
  uint64_t skip = a->on_dev[z] - rel;
  return rc ? rc : pa_inner_write(a, z, rel + skip, data + skip, len - skip, 0);
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
      if (!rc) rc = pa_inner_write(a, pz, s * c + have, par + have, c - have, 0);
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
      if (owner[c] != UINT32_MAX) pa_unbind(a, owner[c]);
      pa_unbind(a, x);
      owner[c] = x;
      a->lz[x].kind = (int)y, a->lz[x].group = (uint32_t)c;
      if (y == PA_STRIPE && !(a->lz[x].stripe = calloc(1, stripe_bytes(a)))) rc = -ENOMEM;
    } else if (r[i].type == PA_REC_RESET && x < a->zs.geo.nr_zones) {
      if (a->lz[x].kind) pa_unbind(a, x);
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

int pa_recover(pa_dev *a) {
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
      rc = pa_inner_mgmt_all(a, &x, ZKV_ZONE_RESET);
    }
  for (uint32_t k = 0; !rc && k < a->meta_groups; k++)
    if (a->meta_owner[k] == UINT32_MAX) {
      lzone x = {.kind = PA_META, .group = k};
      rc = pa_inner_mgmt_all(a, &x, ZKV_ZONE_RESET);
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
        uint8_t *par = pa_stripe_parity(a, &a->lz[l]);
        uint64_t have = a->on_dev[pz] > s * c ? a->on_dev[pz] - s * c : 0;
        rc = !par ? -ENOMEM : write_zeros(a, pz, s * c);
        if (!rc) rc = pa_inner_write(a, pz, s * c + have, par + have, c - have, 0);
        free(par);
      }
      if (!rc) rc = pa_inner_mgmt_all(a, &x, ZKV_ZONE_FINISH);
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
  return rc ? rc : pa_jrotate(a);
}

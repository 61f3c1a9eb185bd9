/* The PLM array's held writes: a write for a kv-set in its DTWIN waits in a bounded buffer
 * (journaled) and is drained to the set in its NDWIN. */
#define _GNU_SOURCE
#include "plm_array_internal.h"

/* ---------- held writes ---------- */

int pa_inner_write(pa_dev *a, uint32_t z, uint64_t rel, const void *buf, uint64_t len, int flags) {
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

/* ---------- zone management ---------- */

int pa_inner_mgmt_all(pa_dev *a, const lzone *l, int action) {
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

void pa_finish_inner_if_done(pa_dev *a, uint32_t z) {
  /* A finished logical zone whose held data has drained: its inner zones can be finished now. */
  for (uint32_t l = 0; l < a->zs.geo.nr_zones; l++) {
    lzone *x = &a->lz[l];
    if (!x->finish_pending || x->kind != PA_STRIPE) continue;
    int mine = 0, pending = 0;
    for (uint32_t k = 0; k < a->n; k++) {
      uint32_t iz = kv_zone(a, k, x->group);
      mine |= iz == z;
      pending |= pa_holds_zone(&a->sets[1 + k], iz);
    }
    if (!mine || pending) continue;
    for (uint32_t k = 0; k < a->n; k++) (void)zkv_dev_zone_mgmt(a->inner, kv_zone(a, k, x->group), ZKV_ZONE_FINISH);
    x->finish_pending = 0;
  }
}

/* Writes out what set s holds, oldest first (the set's window allows it, or the buffer is full). */
int pa_drain(pa_dev *a, pa_set *s) {
  while (s->head) {
    held_write *h = s->head;
    /* FUA: a drained write lost while a later one survives would leave a hole below the write
     * pointer that the journal could no longer fill. */
    int rc = pa_inner_write(a, h->zone, h->rel, h->data, h->len, ZKV_IO_FUA);
    if (rc) return rc;
    lock(a);
    s->head = h->next;
    if (!s->head) s->tail = NULL;
    s->st.held_bytes -= h->len, s->st.held_writes--, s->st.bytes_drained += h->len;
    a->held_total -= h->len;
    unlock(a);
    uint32_t z = h->zone;
    free(h);
    pa_finish_inner_if_done(a, z);
  }
  return 0;
}

int pa_holds_zone(const pa_set *s, uint32_t z) {
  for (held_write *h = s->head; h; h = h->next)
    if (h->zone == z) return 1;
  return 0;
}

/* A kv-set's part of stripe-group writes: straight to the device unless the set is in DTWIN (or
 * still has older held data, which must land first). */
int pa_put_piece(pa_dev *a, uint32_t k, uint32_t z, uint64_t rel, const void *buf, uint64_t len, int flags) {
  pa_set *s = &a->sets[1 + k];
  int rc;
  if (((s->win != WIN_DTWIN && s->win != WIN_ENTERING_DTWIN) || !a->defer) && !s->head) {
    s->st.writes_direct++;
    return pa_inner_write(a, z, rel, buf, len, flags);
  }
  if (a->held_total + len > a->hold_cap) { /* full: write through, breaking the set's DTWIN */
    s->st.writes_forced++;
    if ((rc = pa_drain(a, s))) return rc;
    return pa_inner_write(a, z, rel, buf, len, flags);
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
  if ((rc = pa_jappend(a, PA_REC_HELD, z, 0, rel, buf, len, ZKV_IO_FUA))) return rc;
  h->journaled = 1;
  return 0;
}

/* ---------- reads ---------- */

/* One piece of an inner zone to fill `out` from: [rel, rel + len). Under mu: copies what the
 * buffer holds and returns how many leading bytes are to be read from the device. */
uint64_t pa_plan_piece(pa_dev *a, uint32_t z, uint64_t rel, uint64_t len, uint8_t *out, int *buffered) {
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

/* Drops the held writes of inner zone z (its data is being discarded by a reset). */
void pa_drop_held(pa_dev *a, uint32_t z) {
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

/* Journals every held write not yet journaled and flushes the device: after it, everything
 * written before is durable (on its set, or in the journal). Caller holds wmu. */
int pa_sync_all(pa_dev *a) {
  int rc = 0;
  for (uint32_t i = 1; !rc && i <= a->n; i++)
    for (held_write *h = a->sets[i].head; !rc && h; h = h->next) {
      if (h->journaled) continue;
      rc = pa_jappend(a, PA_REC_HELD, h->zone, 0, h->rel, h->data, h->len, 0);
      h->journaled = 1; /* after a rotation the snapshot has it anyway */
    }
  return rc ? rc : zkv_dev_flush(a->inner);
}

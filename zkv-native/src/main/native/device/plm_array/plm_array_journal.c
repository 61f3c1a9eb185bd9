/* The PLM array's journal (docs/formats/plm-array.md): records of bindings, held writes, resets
 * and finishes, written and rotated; their replay at open is plm_array_recover.c. */
#define _GNU_SOURCE
#include "plm_array_internal.h"

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

int pa_jrotate(pa_dev *a) {
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

int pa_jappend(pa_dev *a, int type, uint32_t x, uint32_t y, uint64_t c, const void *payload, uint64_t len, int flags) {
  int rc = jwrite(a, type, x, y, c, payload, len, flags);
  if (rc != -ENOSPC) return rc;
  if ((rc = pa_jrotate(a))) return rc; /* durable, with every held write already */
  if (type == PA_REC_HELD) return 0;
  return jwrite(a, type, x, y, c, payload, len, flags);
}

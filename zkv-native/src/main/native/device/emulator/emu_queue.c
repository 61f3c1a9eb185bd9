/* Asynchronous queues of the emulator. A request's data moves when it is submitted (as a real
 * device DMAs the buffer after the doorbell) and the request completes once its modeled deadline
 * has passed. Validation failures (zone full, ...) come back as completions, as an NVMe device
 * reports them.
 *
 * Reordering is part of the model, not left to host scheduling (which made it vanish on a busy
 * host). Appends to one zone complete in an order the model decides from its draws alone, never
 * from the host's clock: each gets an order key, its submission on a modelled clock (advanced by
 * the closed loop's spacing at that QD, zkv_timing) plus, when the queue reorders (URI reorder=, on
 * by default for profiles of devices that do), its modelled latency with the drawn tail factor, so
 * an append that drew a long latency completes after later ones, as on the device. With reorder=1
 * an append submitted while appends to the same zone are in flight in this queue may also, by
 * seeded draws, take the offset of the one assigned just before it (that one moves up; both buffers
 * are still the caller's until completion) and, where the profile models no latency (instant),
 * complete before the last one submitted. With
 * reorder=0 a queue's appends to a zone complete, and get offsets, in submission order. Other
 * requests complete in deadline order. The draws depend only on the seed and the set of requests in
 * flight at each submission.
 *
 * Why not io_uring for the backing file: on this kernel (6.18) io_uring punts buffered writes to
 * its worker threads, measured at 66.5 us per 8 KiB write on tmpfs and 71 us on ext4 versus ~3 us
 * for pwrite, which would swamp the 15-17 us service times being modeled. io_uring is used where it
 * belongs, on the kernel device paths (nvme:). */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "emu_internal.h"

/* Probabilities of the two reorderings, per append that has a same-zone append in flight. The
 * QEMU guest completed 45-184 of 256 appends queued 32 deep out of order (docs/device.md). */
#define OFFSET_SWAP_PPM 125000u
#define OVERTAKE_PPM 250000u

typedef struct slot {
  emu_io io;
  const void *buf; /* appends: the caller's buffer, rewritten when an offset swap moves it */
  uint64_t tag;
  int64_t early_result; /* a validation failure, reported at the first reap */
  uint64_t key;         /* appends: completion order among the zone's appends in flight, then by seq */
  int64_t seq;
  uint8_t used, begun;
} slot;

typedef struct emu_queue {
  zkv_queue base;
  emu_dev *dev;
  uint32_t depth, inflight;
  slot *slots;
  uint32_t *free_list, n_free;
  uint64_t rng;         /* reordering draws */
  uint64_t timing_rng;  /* the timing draws of this queue's requests */
  uint64_t model_clock; /* modelled submission time of the appends, ns (order keys) */
  int64_t next_seq;
  uint64_t *chain_times; /* scratch of order_deadlines, `depth` long */
  int32_t *chain_members;
} emu_queue;

zkv_queue *emu_queue_create(zkv_dev *dev, uint32_t depth, int *err) {
  if (depth == 0 || depth > 4096) {
    *err = -EINVAL;
    return NULL;
  }
  emu_queue *q = calloc(1, sizeof *q);
  if (!q || !(q->slots = calloc(depth, sizeof *q->slots)) || !(q->free_list = calloc(depth, sizeof *q->free_list)) ||
      !(q->chain_times = calloc(depth, sizeof *q->chain_times)) ||
      !(q->chain_members = calloc(depth, sizeof *q->chain_members))) {
    if (q) free(q->slots), free(q->free_list), free(q->chain_times), free(q->chain_members);
    free(q);
    *err = -ENOMEM;
    return NULL;
  }
  q->base.dev = dev;
  q->dev = (emu_dev *)dev;
  q->depth = depth;
  for (uint32_t i = 0; i < depth; i++) q->free_list[q->n_free++] = depth - 1 - i;
  pthread_mutex_lock(&q->dev->mu);
  q->rng = q->dev->reorder_seed + 0x9E3779B97F4A7C15ull * q->dev->queues_made++;
  q->timing_rng = q->rng ^ 0x71A11ull;
  pthread_mutex_unlock(&q->dev->mu);
  return &q->base;
}

uint32_t emu_queue_inflight(zkv_queue *q) { return ((emu_queue *)q)->inflight; }

static int draw(emu_queue *q, uint32_t ppm) { return q->dev->reorder && zkv_rng_next(&q->rng) % 1000000u < ppm; }

static int same_zone_append(const slot *s, uint32_t zone) {
  return s->used && s->begun && s->io.op == ZKV_OP_APPEND && s->io.zone == zone;
}

/* The append in flight whose data ends where `b`'s begins (the one assigned just before it) takes
 * the place after `b`. Runs with dev->mu held; the caller rewrites both buffers. */
static slot *swap_offsets(emu_queue *q, slot *b) {
  for (uint32_t i = 0; i < q->depth; i++) {
    slot *t = &q->slots[i];
    if (t == b || !same_zone_append(t, b->io.zone) || t->io.file_off + t->io.len != b->io.file_off) continue;
    if (!draw(q, OFFSET_SWAP_PPM)) return NULL;
    b->io.file_off = t->io.file_off;
    b->io.result = t->io.result;
    t->io.file_off += b->io.len;
    t->io.result += (int64_t)b->io.len;
    emu_nd_move(q->dev, b->io.nd_id, -(int64_t)t->io.len);
    emu_nd_move(q->dev, t->io.nd_id, (int64_t)b->io.len);
    return t;
  }
  return NULL;
}

static int by_deadline(const void *x, const void *y) {
  uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
  return a < b ? -1 : a > b;
}

/* Whether a completes before b among one zone's appends. */
static int orders_before(const slot *a, const slot *b) { return a->key != b->key ? a->key < b->key : a->seq < b->seq; }

/* Appends to a zone complete in their keys' order; their modelled completion times are dealt out
 * along that order, earliest first, so that the order costs no time: waiting for a slower append
 * ahead made queued appends slower than the profile (zn540 QD4-16 at 0.83-0.87 of the papers'
 * IOPS). The times as a set, hence throughput, stay the model's, and because the keys follow the
 * modelled latencies, so do the tails (docs/timing-model.md). */
static void order_deadlines(emu_queue *q, uint32_t zone) {
  uint64_t *times = q->chain_times;
  int32_t *members = q->chain_members;
  uint32_t n = 0;
  for (uint32_t i = 0; i < q->depth; i++) {
    slot *s = &q->slots[i];
    if (!same_zone_append(s, zone)) continue;
    uint32_t k = n++; /* insertion sort by key: n is a queue depth */
    while (k > 0 && orders_before(s, &q->slots[members[k - 1]])) members[k] = members[k - 1], k--;
    members[k] = (int32_t)i;
    times[n - 1] = s->io.deadline;
  }
  qsort(times, n, sizeof *times, by_deadline);
  for (uint32_t k = 0; k < n; k++) q->slots[members[k]].io.deadline = times[k];
}

/* The order key of a new append `b` (begun, not yet among the zone's appends in flight). */
static void enqueue_completion(emu_queue *q, slot *b) {
  q->model_clock += b->io.spacing_ns;
  b->key = q->model_clock + (q->dev->reorder ? b->io.model_latency_ns : 0);
  b->seq = 2 * q->next_seq++;
  slot *last = NULL; /* the last one submitted of the zone's appends in flight */
  for (uint32_t i = 0; i < q->depth; i++) {
    slot *t = &q->slots[i];
    if (t != b && same_zone_append(t, b->io.zone) && (!last || t->seq > last->seq)) last = t;
  }
  /* Without a modelled latency (instant) the keys give submission order; the seeded overtake makes
   * the reordering there. With one, the drawn latencies order the completions (an overtake on top
   * would hand the last one this append's later time and double the tail at QD2). */
  if (last && !b->io.model_latency_ns && draw(q, OVERTAKE_PPM) && !orders_before(b, last))
    b->key = last->key, b->seq = last->seq - 1;
}

int emu_queue_submit(zkv_queue *base, const zkv_request *r) {
  emu_queue *q = (emu_queue *)base;
  if (!q->n_free) return -EBUSY;
  if (r->op < ZKV_OP_READ || r->op > ZKV_OP_FLUSH) return -EINVAL;
  uint32_t idx = q->free_list[--q->n_free];
  slot *s = &q->slots[idx];
  memset(s, 0, sizeof *s);
  s->used = 1;
  s->tag = r->tag;
  s->buf = r->buf;
  s->io = (emu_io){
      .op = r->op, .flags = r->flags, .zone = r->zone, .offset = r->offset, .len = r->len, .rng = &q->timing_rng};
  q->inflight++;
  emu_dev *dev = q->dev;
  slot *moved = NULL;
  pthread_mutex_lock(&dev->mu);
  int rc = emu_io_begin(dev, &s->io);
  if (!rc && r->op == ZKV_OP_APPEND) {
    moved = swap_offsets(q, s);
    enqueue_completion(q, s);
    s->begun = 1;
    order_deadlines(q, s->io.zone);
  }
  pthread_mutex_unlock(&dev->mu);
  if (rc) {
    s->early_result = rc;
    return 0;
  }
  s->begun = 1;
  if (r->op == ZKV_OP_READ)
    s->early_result = emu_read_data(dev, &s->io, 0, r->buf, s->io.len);
  else if (r->op != ZKV_OP_FLUSH)
    s->early_result = emu_write_data(dev, r->buf, r->len, s->io.file_off);
  if (moved && !moved->early_result) /* one thread per queue: its data landed at submission */
    moved->early_result = emu_write_data(dev, moved->buf, moved->io.len, moved->io.file_off);
  if (s->io.cut_keep) emu_cut_during(dev, &s->io);
  return 0;
}

/* Ends a request. `asked` is when the caller asked for completions: one whose deadline had passed
 * by then was not waited for, so the host was not late with it however long it stayed unreaped
 * (ZWAL reaps its appends when its window needs room, not as they complete); it is observed at its
 * deadline. One the caller waited for is observed now: how late a waiting thread woke up. */
static void finish(emu_queue *q, uint32_t idx, zkv_completion *out, uint64_t asked) {
  slot *s = &q->slots[idx];
  int64_t res = s->early_result;
  if (s->begun) {
    uint64_t seen = s->io.deadline && s->io.deadline <= asked ? s->io.deadline : 0;
    pthread_mutex_lock(&q->dev->mu);
    res = emu_io_end_seen(q->dev, &s->io, s->early_result, seen);
    pthread_mutex_unlock(&q->dev->mu);
  }
  out->tag = s->tag;
  out->result = res;
  s->used = 0;
  q->free_list[q->n_free++] = idx;
  q->inflight--;
}

/* The in-flight request with the earliest deadline (failed ones first; among one zone's appends
 * with equal deadlines, the first in their order), or -1. */
static int64_t earliest(emu_queue *q, uint64_t *deadline) {
  int64_t best = -1;
  for (uint32_t i = 0; i < q->depth; i++) {
    slot *s = &q->slots[i];
    if (!s->used) continue;
    uint64_t d = s->begun ? s->io.deadline : 0;
    if (best < 0 || d < *deadline) {
      best = i, *deadline = d;
    } else if (d == *deadline) {
      slot *b = &q->slots[best];
      if (s->begun && b->begun && s->io.op == ZKV_OP_APPEND && same_zone_append(b, s->io.zone) && orders_before(s, b))
        best = i;
    }
  }
  return best;
}

int emu_queue_reap(zkv_queue *base, zkv_completion *out, int min, int max, int64_t timeout_ns) {
  emu_queue *q = (emu_queue *)base;
  int n = 0;
  uint64_t asked = zkv_now_ns();
  uint64_t give_up = timeout_ns < 0 ? UINT64_MAX : emu_now(q->dev) + (uint64_t)timeout_ns;
  if (min > max) min = max;
  while (n < max) {
    uint64_t deadline = 0, now = emu_now(q->dev);
    int64_t idx = earliest(q, &deadline);
    if (idx < 0) break;
    if (deadline <= now) {
      finish(q, (uint32_t)idx, &out[n++], asked);
      continue;
    }
    if (n >= min || now >= give_up) break;
    emu_wait_until(q->dev, deadline < give_up ? deadline : give_up);
  }
  return n;
}

void emu_queue_destroy(zkv_queue *base) {
  emu_queue *q = (emu_queue *)base;
  zkv_completion c;
  uint64_t d = 0;
  uint64_t asked = zkv_now_ns();
  for (int64_t idx; (idx = earliest(q, &d)) >= 0;) finish(q, (uint32_t)idx, &c, asked);
  free(q->slots);
  free(q->free_list);
  free(q->chain_times);
  free(q->chain_members);
  free(q);
}

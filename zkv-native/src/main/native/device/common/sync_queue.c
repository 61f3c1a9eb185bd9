/* Synchronous queues (sync_queue.h). */
#include "sync_queue.h"

#include <errno.h>
#include <stdlib.h>

typedef struct sync_queue {
  zkv_queue base;
  uint32_t depth, n, head;
  zkv_completion *done;
} sync_queue;

zkv_queue *sync_queue_create(zkv_dev *d, uint32_t depth, int *err) {
  sync_queue *q = calloc(1, sizeof *q);
  if (!q || !(q->done = calloc(depth, sizeof *q->done))) {
    free(q);
    *err = -ENOMEM;
    return NULL;
  }
  q->base.dev = d, q->depth = depth;
  return &q->base;
}

void sync_queue_destroy(zkv_queue *q) {
  free(((sync_queue *)q)->done);
  free(q);
}

int sync_queue_submit(zkv_queue *qq, const zkv_request *r) {
  sync_queue *q = (sync_queue *)qq;
  if (q->n == q->depth) return -EBUSY;
  if (r->op < ZKV_OP_READ || r->op > ZKV_OP_FLUSH) return -EINVAL;
  zkv_dev *d = qq->dev;
  const zkv_backend *be = d->be;
  int64_t res = r->op == ZKV_OP_READ     ? be->read(d, r->offset, r->buf, r->len)
                : r->op == ZKV_OP_WRITE  ? be->write(d, r->offset, r->buf, r->len, r->flags)
                : r->op == ZKV_OP_APPEND ? be->append(d, r->zone, r->buf, r->len, r->flags)
                                         : be->flush(d);
  q->done[(q->head + q->n++) % q->depth] = (zkv_completion){.tag = r->tag, .result = res};
  return 0;
}

int sync_queue_reap(zkv_queue *qq, zkv_completion *out, int min, int max, int64_t timeout_ns) {
  (void)min, (void)timeout_ns; /* everything submitted has completed */
  sync_queue *q = (sync_queue *)qq;
  int k = 0;
  for (; k < max && q->n; k++, q->n--, q->head = (q->head + 1) % q->depth) out[k] = q->done[q->head];
  return k;
}

uint32_t sync_queue_inflight(zkv_queue *q) { return ((sync_queue *)q)->n; }

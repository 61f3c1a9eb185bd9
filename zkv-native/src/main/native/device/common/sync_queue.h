/* A queue for backends whose requests run synchronously at submission (plmarray:, and the
 * namespaces it composes): each request calls the backend's own read, write, append or flush and
 * its completion waits in a ring to be reaped. */
#ifndef ZKV_SYNC_QUEUE_H
#define ZKV_SYNC_QUEUE_H
#include "backend.h"

zkv_queue *sync_queue_create(zkv_dev *dev, uint32_t depth, int *err);
void sync_queue_destroy(zkv_queue *q);
int sync_queue_submit(zkv_queue *q, const zkv_request *req);
int sync_queue_reap(zkv_queue *q, zkv_completion *out, int min, int max, int64_t timeout_ns);
uint32_t sync_queue_inflight(zkv_queue *q);
#endif

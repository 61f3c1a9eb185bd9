/* The synchronous calls of the kernel-device backends (nvme:, zbd:): each request on an io_uring
 * ring (kdev_queue.c) borrowed from the device's pool, and closing a device with its pool. */
#define _GNU_SOURCE
#include <sched.h>
#include <stdlib.h>
#include <unistd.h>

#include "kdev.h"

int kdev_sync_submit(kdev *d, const zkv_request *r, zkv_queue **ring) {
  zkv_queue *q = NULL;
  *ring = NULL;
  pthread_mutex_lock(&d->pool_mu);
  if (d->pool_len) q = d->pool[--d->pool_len];
  pthread_mutex_unlock(&d->pool_mu);
  if (!q) {
    int err = 0;
    if (!(q = kq_create(&d->base, 1, &err))) return err;
  }
  int rc = kq_submit(q, r);
  *ring = q;
  return rc;
}

int64_t kdev_sync_wait(kdev *d, zkv_queue *q, int submitted) {
  zkv_completion c = {0};
  int64_t res = submitted;
  /* Never return while the request is in flight: the device still writes into the caller's buffer
   * (kq_reap without a time limit returns only with the completion). */
  if (submitted == 0) {
    while (kq_reap(q, &c, 1, 1, -1) != 1) sched_yield();
    res = c.result;
  }
  pthread_mutex_lock(&d->pool_mu);
  if (d->pool_len == d->pool_cap) {
    uint32_t cap = d->pool_cap ? d->pool_cap * 2 : 8;
    zkv_queue **p = realloc(d->pool, cap * sizeof *p);
    if (p) d->pool = p, d->pool_cap = cap;
  }
  if (d->pool_len < d->pool_cap) {
    d->pool[d->pool_len++] = q;
    q = NULL;
  }
  pthread_mutex_unlock(&d->pool_mu);
  if (q) kq_destroy(q);
  return res;
}

int64_t kdev_sync(kdev *d, const zkv_request *r) {
  zkv_queue *q = NULL;
  int rc = kdev_sync_submit(d, r, &q);
  return q ? kdev_sync_wait(d, q, rc) : rc;
}

void kdev_pool_free(kdev *d) {
  for (uint32_t i = 0; i < d->pool_len; i++) kq_destroy(d->pool[i]);
  free(d->pool);
  d->pool = NULL;
  d->pool_len = d->pool_cap = 0;
}

int kdev_write(zkv_dev *dev, uint64_t offset, const void *buf, size_t len, int flags) {
  zkv_request r = {.op = ZKV_OP_WRITE, .flags = flags, .offset = offset, .buf = (void *)buf, .len = len};
  return (int)kdev_sync((kdev *)dev, &r);
}

int64_t kdev_append(zkv_dev *dev, uint32_t zone, const void *buf, size_t len, int flags) {
  zkv_request r = {.op = ZKV_OP_APPEND, .flags = flags, .zone = zone, .buf = (void *)buf, .len = len};
  return kdev_sync((kdev *)dev, &r);
}

int kdev_read(zkv_dev *dev, uint64_t offset, void *buf, size_t len) {
  zkv_request r = {.op = ZKV_OP_READ, .offset = offset, .buf = buf, .len = len};
  return (int)kdev_sync((kdev *)dev, &r);
}

int kdev_flush(zkv_dev *dev) {
  zkv_request r = {.op = ZKV_OP_FLUSH};
  return (int)kdev_sync((kdev *)dev, &r);
}

void kdev_close(zkv_dev *dev) { kdev_free((kdev *)dev); }

int kdev_is(const zkv_dev *dev) { return dev->be->close == kdev_close; }
uint32_t kdev_nsid(const zkv_dev *dev) { return kdev_is(dev) ? ((const kdev *)dev)->nsid : 0; }

void kdev_free(kdev *d) {
  if (!d) return;
  kdev_pool_free(d);
  if (d->ng_fd >= 0) close(d->ng_fd);
  if (d->blk_fd >= 0) close(d->blk_fd);
  pthread_mutex_destroy(&d->pool_mu);
  if (d->append_locks)
    for (unsigned i = 0; i < KDEV_APPEND_LOCKS; i++) pthread_mutex_destroy(&d->append_locks[i]);
  free(d->append_locks);
  free(d->path);
  free(d);
}

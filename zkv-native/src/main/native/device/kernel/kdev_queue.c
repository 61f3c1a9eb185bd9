/* io_uring queues of the kernel-device backends. nvme: sends every request as an NVMe command
 * (IORING_OP_URING_CMD / NVME_URING_CMD_IO on a SQE128 + CQE32 ring, the assigned LBA of an append
 * in the big CQE); zbd: reads, writes and flushes the block device with O_DIRECT and appends
 * through its ng device. Reads and writes above the largest transfer go out as several commands:
 * a write's pieces are linked (IOSQE_IO_LINK) so they reach the zone in order; the request
 * completes when its last piece does, with the error of its first failed piece. (A link breaks
 * only on a negative result: after a piece fails with an NVMe status the later ones are still
 * issued and fail as Zone Invalid Write, so nothing lands out of order.)
 *
 * A passthrough command the kernel refuses with EFAULT (before it reaches the device: an NVMe
 * completion never carries EFAULT) is issued again from that piece on, up to KQ_RESUBMITS times: Debian 12's Linux 6.1
 * fails the pages pinning of a linked write's later piece with EFAULT about once in 200 fresh 1 MiB writes under QEMU
 * (the buffer is valid and mapped; the same command then succeeds). The device never saw the refused piece, and a
 * write's later pieces were cancelled with it (the link breaks), so the zone's write pointer stands at the refused
 * piece's start.
 *
 * liburing 2.3 has no uring_cmd helper, so the SQEs are filled by hand. */
#define _GNU_SOURCE
#include <errno.h>
#include <liburing.h>
#include <linux/nvme_ioctl.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "common/timing.h"
#include "kdev.h"

#define PIECE_BITS 20
#define RING_ENTRIES 128u
#define KQ_RESUBMITS 4u

typedef struct kslot {
  zkv_request req;
  uint32_t left; /* pieces not completed */
  uint32_t err_piece;
  int err;                 /* error of the first failed piece (lowest index), 0 if none */
  uint32_t resubmit_piece; /* lowest piece the kernel refused before the device saw it */
  uint8_t resubmit, resubmits;
  int64_t result; /* appends: assigned byte offset */
  void *bounce;   /* zbd: aligned copy of a misaligned buffer */
  uint8_t used;
} kslot;

typedef struct kq {
  zkv_queue base;
  kdev *d;
  struct io_uring ring;
  int big; /* SQE128 + CQE32 */
  uint32_t depth, inflight;
  uint32_t cq_entries, pieces; /* pieces (commands) in the kernel: never more than the CQ holds */
  kslot *slots;
  uint32_t *free_list, n_free;
  uint32_t *ready, ready_head, ready_len; /* slots with a known result, FIFO */
  uint32_t *again, again_len;             /* slots to issue again (refused pieces), FIFO */
} kq;

zkv_queue *kq_create(zkv_dev *dev, uint32_t depth, int *err) {
  kdev *d = (kdev *)dev;
  kq *q = calloc(1, sizeof *q);
  if (!q || !(q->slots = calloc(depth, sizeof *q->slots)) || !(q->free_list = calloc(depth, sizeof *q->free_list)) ||
      !(q->ready = calloc(depth, sizeof *q->ready)) || !(q->again = calloc(depth, sizeof *q->again))) {
    if (q) free(q->slots), free(q->free_list), free(q->ready);
    free(q);
    *err = -ENOMEM;
    return NULL;
  }
  q->base.dev = dev;
  q->d = d;
  q->depth = depth;
  q->big = d->ng_fd >= 0;
  uint32_t entries = depth * 2 > RING_ENTRIES ? depth * 2 : RING_ENTRIES;
  if (entries > 4096) entries = 4096;
  /* A CQ for every command a full queue of split requests can have in flight, so no completion
   * ever depends on the kernel's overflow list (prepare() refuses more). */
  struct io_uring_params p = {.flags = IORING_SETUP_CQSIZE | (q->big ? IORING_SETUP_SQE128 | IORING_SETUP_CQE32 : 0),
                              .cq_entries = entries * 8 > 32768 ? 32768 : entries * 8};
  int rc = io_uring_queue_init_params(entries, &q->ring, &p);
  q->cq_entries = p.cq_entries;
  if (rc < 0) {
    zkv_set_error("%s: cannot create an io_uring%s: %s", d->path, q->big ? " with 128-byte SQEs (Linux >= 5.19)" : "",
                  strerror(-rc));
    free(q->slots), free(q->free_list), free(q->ready), free(q->again), free(q);
    *err = rc;
    return NULL;
  }
  for (uint32_t i = 0; i < depth; i++) q->free_list[q->n_free++] = depth - 1 - i;
  return &q->base;
}

uint32_t kq_inflight(zkv_queue *base) { return ((kq *)base)->inflight; }

static void make_ready(kq *q, uint32_t idx) { q->ready[(q->ready_head + q->ready_len++) % q->depth] = idx; }

static struct io_uring_sqe *sqe_get(kq *q) {
  struct io_uring_sqe *s = io_uring_get_sqe(&q->ring);
  if (!s) {
    io_uring_submit(&q->ring);
    s = io_uring_get_sqe(&q->ring);
  }
  if (s) memset(s, 0, q->big ? 128 : sizeof *s);
  return s;
}

static void nvme_cmd(kq *q, struct io_uring_sqe *s, uint8_t opcode, uint64_t slba, uint32_t nlb, void *buf,
                     uint32_t len, int flags) {
  s->opcode = IORING_OP_URING_CMD;
  s->fd = q->d->ng_fd;
  s->cmd_op = NVME_URING_CMD_IO;
  struct nvme_uring_cmd *c = (struct nvme_uring_cmd *)(void *)s->cmd;
  c->opcode = opcode;
  c->nsid = q->d->nsid;
  c->addr = (uint64_t)(uintptr_t)buf;
  c->data_len = len;
  c->cdw10 = (uint32_t)slba;
  c->cdw11 = (uint32_t)(slba >> 32);
  if (nlb) c->cdw12 = (nlb - 1) | ((flags & ZKV_IO_FUA) ? NVME_RW_FUA : 0);
}

/* A kernel-space address: the kernel refuses a user buffer there (access_ok) before the command
 * is built. nvme_refuse_pieces (tests) hands it to the kernel in place of a piece's buffer. */
#define KQ_REFUSED_ADDRESS 0xffffffffff000000ull

static int refuse_piece(kdev *d) {
  uint32_t n = atomic_load_explicit(&d->refuse_pieces, memory_order_relaxed);
  while (n && !atomic_compare_exchange_weak(&d->refuse_pieces, &n, n - 1)) {}
  return n != 0;
}

/* The NVMe commands a read or write is split into. */
static size_t pieces_of(const kdev *d, const zkv_request *r) { return (r->len + d->max_xfer - 1) / d->max_xfer; }

/* Queues the NVMe commands of a read or write from piece `first` on (a write's linked); returns 0
 * or -EBUSY with nothing queued. */
static int queue_pieces(kq *q, uint32_t idx, size_t first) {
  kslot *sl = &q->slots[idx];
  const zkv_request *r = &sl->req;
  kdev *d = q->d;
  size_t pieces = pieces_of(d, r);
  if (io_uring_sq_space_left(&q->ring) < pieces - first) io_uring_submit(&q->ring); /* a chain in one submit */
  /* Nothing may stay queued on failure: a half chain would go out with the next submit, into a
   * buffer the caller has taken back, and complete another request's slot. */
  if (io_uring_sq_space_left(&q->ring) < pieces - first) return -EBUSY;
  for (size_t i = first; i < pieces; i++) {
    size_t off = i * d->max_xfer, len = r->len - off < d->max_xfer ? r->len - off : d->max_xfer;
    struct io_uring_sqe *s = sqe_get(q);
    if (!s) return -EBUSY; /* cannot happen: the ring has room for the whole chain */
    void *buf = (uint8_t *)r->buf + off;
    if (i > 0 && refuse_piece(d)) buf = (void *)(uintptr_t)KQ_REFUSED_ADDRESS;
    nvme_cmd(q, s, r->op == ZKV_OP_READ ? NVME_CMD_READ : NVME_CMD_WRITE, (r->offset + off) >> d->lba_shift,
             (uint32_t)(len >> d->lba_shift), buf, (uint32_t)len, r->flags);
    if (r->op == ZKV_OP_WRITE && i + 1 < pieces) s->flags |= IOSQE_IO_LINK;
    io_uring_sqe_set_data64(s, (uint64_t)idx << PIECE_BITS | i);
  }
  sl->left = (uint32_t)(pieces - first);
  q->pieces += (uint32_t)(pieces - first);
  return 0;
}

/* Queues an append or a flush as one NVMe command; returns 0 or -EBUSY with nothing queued. */
static int queue_single(kq *q, uint32_t idx) {
  kslot *sl = &q->slots[idx];
  const zkv_request *r = &sl->req;
  struct io_uring_sqe *s = sqe_get(q);
  if (!s) return -EBUSY;
  if (r->op == ZKV_OP_FLUSH)
    nvme_cmd(q, s, NVME_CMD_FLUSH, 0, 0, NULL, 0, 0);
  else
    nvme_cmd(q, s, NVME_CMD_ZONE_APPEND, ((uint64_t)r->zone * q->d->base.geo.zone_size) >> q->d->lba_shift,
             (uint32_t)(r->len >> q->d->lba_shift), r->buf, (uint32_t)r->len, r->flags);
  io_uring_sqe_set_data64(s, (uint64_t)idx << PIECE_BITS);
  sl->left = 1;
  q->pieces++;
  return 0;
}

/* Prepares the SQEs of one request; returns 0 or a negative code (nothing was queued then). */
static int prepare(kq *q, uint32_t idx) {
  kslot *sl = &q->slots[idx];
  const zkv_request *r = &sl->req;
  kdev *d = q->d;
  uint64_t tag = (uint64_t)idx << PIECE_BITS;
  int use_nvme = d->kind == KDEV_NVME || r->op == ZKV_OP_APPEND;
  if (q->pieces >= q->cq_entries) return -EBUSY;
  if (!use_nvme) { /* zbd: one block-layer request, which the kernel splits itself */
    void *buf = r->buf;
    if (r->op != ZKV_OP_FLUSH && ((uintptr_t)buf % d->base.geo.lba_size)) {
      if (posix_memalign(&sl->bounce, 4096, r->len)) return -ENOMEM;
      if (r->op == ZKV_OP_WRITE) memcpy(sl->bounce, buf, r->len);
      buf = sl->bounce;
    }
    struct io_uring_sqe *s = sqe_get(q);
    if (!s) return -EBUSY;
    if (r->op == ZKV_OP_READ)
      io_uring_prep_read(s, d->blk_fd, buf, (unsigned)r->len, r->offset);
    else if (r->op == ZKV_OP_WRITE) {
      io_uring_prep_write(s, d->blk_fd, buf, (unsigned)r->len, r->offset);
      if (r->flags & ZKV_IO_FUA) s->rw_flags = RWF_DSYNC;
    } else
      io_uring_prep_fsync(s, d->blk_fd, 0);
    io_uring_sqe_set_data64(s, tag);
    sl->left = 1;
    q->pieces++;
    return 0;
  }
  if (r->op == ZKV_OP_FLUSH || r->op == ZKV_OP_APPEND) return queue_single(q, idx);
  size_t pieces = pieces_of(d, r);
  if (pieces >= (1u << PIECE_BITS) || pieces > q->ring.sq.ring_entries) {
    zkv_set_error("%s: a request of %zu bytes needs %zu commands; this queue takes at most %u", d->path, r->len, pieces,
                  q->ring.sq.ring_entries);
    return -E2BIG;
  }
  if (q->pieces + pieces > q->cq_entries) return -EBUSY;
  return queue_pieces(q, idx, 0);
}

int kq_submit(zkv_queue *base, const zkv_request *r) {
  kq *q = (kq *)base;
  kdev *d = q->d;
  if (!q->n_free) return -EBUSY;
  if (r->op < ZKV_OP_READ || r->op > ZKV_OP_FLUSH) return -EINVAL;
  uint32_t idx = q->free_list[--q->n_free];
  kslot *sl = &q->slots[idx];
  memset(sl, 0, sizeof *sl);
  sl->used = 1;
  sl->req = *r;
  q->inflight++;
  int rc = kdev_check(d, r);
  if (!rc && r->op == ZKV_OP_APPEND && d->append_emulated) { /* runs now, completes at the next reap */
    int64_t at = d->append_emulated(d, r);
    if (at >= 0) {
      sl->result = at;
      make_ready(q, idx);
      return 0;
    }
    rc = (int)at;
  }
  const zkv_geometry *g = &d->base.geo;
  /* A write past the capacity fails, but split into commands (by us or the block layer) its
   * first parts would land: refuse it whole, with the status the device would give. */
  if (!rc && r->op == ZKV_OP_WRITE && r->offset % g->zone_size + r->len > g->zone_cap)
    rc = kdev_diagnose(d, r, ZKV_ERR(ZKV_NVME_ZONE_BOUNDARY_ERROR));
  if (!rc) {
    rc = prepare(q, idx);
    if (rc == -EBUSY) { /* the ring is full for now: refuse the request, as a full queue does */
      free(sl->bounce);
      sl->used = 0;
      q->free_list[q->n_free++] = idx;
      q->inflight--;
      return -EBUSY;
    }
  }
  if (rc) {
    sl->err = rc;
    sl->left = 0;
    make_ready(q, idx);
    return 0;
  }
  int sub = io_uring_submit(&q->ring);
  if (sub < 0) { /* the SQEs stay queued and go out with the next submit or wait */
    zkv_set_error("%s: io_uring submit failed: %s", d->path, strerror(-sub));
  }
  return 0;
}

/* Issues again, oldest first, the requests whose pieces have all completed and that the kernel
 * refused (see the file comment), each from its lowest refused piece on, while the CQ has room for
 * their commands (prepare()'s rule) and the SQ takes them. Called after harvesting, never from
 * inside it: the completions being harvested still hold their CQ entries. Returns how many went. */
static uint32_t issue_again(kq *q) {
  uint32_t done = 0;
  while (done < q->again_len) {
    uint32_t idx = q->again[done];
    kslot *sl = &q->slots[idx];
    int split = sl->req.op == ZKV_OP_READ || sl->req.op == ZKV_OP_WRITE;
    size_t pieces = split ? pieces_of(q->d, &sl->req) : 1;
    size_t first = split ? sl->resubmit_piece : 0;
    if (q->pieces + (pieces - first) > q->cq_entries) break;
    if (split ? queue_pieces(q, idx, first) : queue_single(q, idx)) break; /* SQ full: later */
    sl->resubmit = 0;
    sl->resubmits++;
    sl->err = 0; /* only later pieces failed (a write's were cancelled with the refused one) */
    done++;
  }
  if (done) {
    memmove(q->again, q->again + done, (q->again_len - done) * sizeof *q->again);
    q->again_len -= done;
    io_uring_submit(&q->ring); /* a failed submit leaves them queued for the next one */
  }
  return done;
}

static void complete_piece(kq *q, struct io_uring_cqe *cqe) {
  uint64_t data = io_uring_cqe_get_data64(cqe);
  if (q->pieces) q->pieces--;
  uint32_t idx = (uint32_t)(data >> PIECE_BITS), piece = (uint32_t)(data & ((1u << PIECE_BITS) - 1));
  if (idx >= q->depth || !q->slots[idx].used || !q->slots[idx].left) return;
  kslot *sl = &q->slots[idx];
  kdev *d = q->d;
  int nvme = d->kind == KDEV_NVME || sl->req.op == ZKV_OP_APPEND;
  int code;
  if (nvme)
    code = kdev_nvme_code(cqe->res);
  else if (cqe->res < 0)
    code = cqe->res;
  else
    code = sl->req.op != ZKV_OP_FLUSH && (size_t)cqe->res != sl->req.len ? -EIO : 0;
  if (nvme && code == -EFAULT && sl->resubmits < KQ_RESUBMITS) {
    if (!sl->resubmit || piece < sl->resubmit_piece) sl->resubmit = 1, sl->resubmit_piece = piece;
  } else if (code && (!sl->err || piece < sl->err_piece)) {
    sl->err = code, sl->err_piece = piece;
  }
  if (!code && sl->req.op == ZKV_OP_APPEND) sl->result = (int64_t)(cqe->big_cqe[0] << d->lba_shift);
  if (--sl->left == 0) {
    /* refused whole: issue again, unless an earlier piece's real failure decides the request */
    if (sl->resubmit && !(sl->err && sl->err_piece < sl->resubmit_piece))
      q->again[q->again_len++] = idx;
    else
      make_ready(q, idx);
  }
}

static int harvest(kq *q) {
  struct io_uring_cqe *cqe;
  int n = 0;
  while (io_uring_peek_cqe(&q->ring, &cqe) == 0) {
    complete_piece(q, cqe);
    io_uring_cqe_seen(&q->ring, cqe);
    n++;
  }
  return n;
}

/* The result of a request whose pieces all completed; frees its slot. */
static void finish(kq *q, zkv_completion *out) {
  uint32_t idx = q->ready[q->ready_head];
  q->ready_head = (q->ready_head + 1) % q->depth;
  q->ready_len--;
  kslot *sl = &q->slots[idx];
  kdev *d = q->d;
  int64_t res = sl->err ? sl->err : sl->result;
  if (d->kind == KDEV_ZBD && sl->req.op != ZKV_OP_APPEND && res < 0) res = kdev_block_status(d, &sl->req, res);
  if (sl->bounce) {
    if (res >= 0 && sl->req.op == ZKV_OP_READ) memcpy(sl->req.buf, sl->bounce, sl->req.len);
    free(sl->bounce);
  }
  kdev_count(d, &sl->req, res);
  out->tag = sl->req.tag;
  out->result = res;
  sl->used = 0;
  q->free_list[q->n_free++] = idx;
  q->inflight--;
}

int kq_reap(zkv_queue *base, zkv_completion *out, int min, int max, int64_t timeout_ns) {
  kq *q = (kq *)base;
  int n = 0;
  if (min > max) min = max;
  uint64_t give_up = timeout_ns < 0 ? UINT64_MAX : zkv_now_ns() + (uint64_t)timeout_ns;
  while (n < max) {
    if (q->ready_len) {
      finish(q, &out[n++]);
      continue;
    }
    if (harvest(q)) continue;
    if (q->again_len && issue_again(q)) continue;
    if (n >= min || q->inflight == 0) break;
    /* What a failed submit left queued goes out first; while the kernel refuses it, never block in
     * a wait whose completions could not come. */
    if (io_uring_sq_ready(&q->ring) && io_uring_submit(&q->ring) < 0) {
      if (timeout_ns >= 0 && zkv_now_ns() >= give_up) break;
      sched_yield();
      continue;
    }
    struct io_uring_cqe *cqe;
    int rc;
    if (timeout_ns < 0) {
      rc = io_uring_wait_cqe(&q->ring, &cqe);
    } else {
      uint64_t now = zkv_now_ns();
      if (now >= give_up) break;
      struct __kernel_timespec ts = {.tv_sec = (long long)((give_up - now) / 1000000000u),
                                     .tv_nsec = (long long)((give_up - now) % 1000000000u)};
      rc = io_uring_wait_cqe_timeout(&q->ring, &cqe, &ts);
    }
    if (rc < 0 && rc != -EINTR && rc != -ETIME) sched_yield(); /* transient (EAGAIN, EBUSY): wait again */
  }
  return n;
}

void kq_destroy(zkv_queue *base) {
  kq *q = (kq *)base;
  zkv_completion c;
  while (q->inflight) { /* wait for what is in flight: the device still owns those buffers */
    if (q->ready_len) {
      finish(q, &c);
      continue;
    }
    if (harvest(q)) continue;
    if (q->again_len && issue_again(q)) continue;
    if (io_uring_sq_ready(&q->ring) && io_uring_submit(&q->ring) < 0) {
      sched_yield();
      continue;
    }
    struct io_uring_cqe *cqe;
    if (io_uring_wait_cqe(&q->ring, &cqe) < 0) sched_yield(); /* retry: never free what is in flight */
  }
  io_uring_queue_exit(&q->ring);
  free(q->slots);
  free(q->free_list);
  free(q->ready);
  free(q->again);
  free(q);
}

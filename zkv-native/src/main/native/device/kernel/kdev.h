/* Internals shared by the kernel-device backends: nvme: (NVMe passthrough on /dev/ngXnY) and
 * zbd: (the zoned block device /dev/nvmeXnY, appends through its ng device). Both move data on
 * io_uring rings; synchronous calls borrow a ring from a per-device pool. The files, each calling
 * only those before it:
 *   kdev.c        NVMe status codes, passthrough commands, request checks, error diagnosis,
 *                 opening helpers, Identify geometry, the ng device's zone report, I/O counters
 *   kdev_queue.c  the io_uring queues (kq_*); a zbd: device's emulated append through the hook
 *                 its backend sets (kdev.append_emulated)
 *   kdev_sync.c   synchronous calls on pooled rings, closing a device
 *   nvme.c        the nvme: backend
 *   zbd.c         the zbd: backend */
#ifndef ZKV_KDEV_H
#define ZKV_KDEV_H
#include <pthread.h>
#include <stdatomic.h>

#include "common/backend.h"

/* NVMe opcodes (NVM and Zoned Namespace command sets, admin set). */
#define NVME_CMD_FLUSH 0x00
#define NVME_CMD_WRITE 0x01
#define NVME_CMD_READ 0x02
#define NVME_CMD_ZONE_MGMT_SEND 0x79
#define NVME_CMD_ZONE_MGMT_RECV 0x7A
#define NVME_CMD_ZONE_APPEND 0x7D
#define NVME_RW_FUA (1u << 30) /* CDW12 bit 30 of Read/Write/Zone Append */
#define NVME_CSI_ZNS 0x02

/* Zone descriptors of a Zone Management Receive report (64 bytes each after a 64-byte header). */
#define ZNS_REPORT_HEADER 64u
#define ZNS_DESCRIPTOR 64u

enum kdev_kind { KDEV_NVME = 1, KDEV_ZBD = 2 };
#define KDEV_APPEND_LOCKS 64u

typedef struct kdev {
  zkv_dev base;
  int kind;
  char *path;
  int ng_fd;     /* NVMe generic char device: I/O (nvme:) and appends (both); -1 if none */
  uint32_t nsid; /* namespace of ng_fd */
  int blk_fd;    /* zbd: the zoned block device, O_DIRECT; -1 for nvme: */
  uint32_t lba_shift;
  uint32_t max_xfer;             /* bytes one NVMe command may move */
  pthread_mutex_t *append_locks; /* zbd: without an ng device: KDEV_APPEND_LOCKS, by zone */
  /* zbd: without an ng device, a zone append emulated at submit (zbd.c), the assigned offset or a
   * code; NULL when appends go to the device. Set by the backend, so the queue knows none. */
  int64_t (*append_emulated)(struct kdev *d, const zkv_request *r);
  pthread_mutex_t pool_mu;
  zkv_queue **pool; /* idle rings for synchronous calls */
  uint32_t pool_len, pool_cap;
  _Atomic uint64_t st[10]; /* zkv_dev_stats fields, in order */
  /* Tests only (nvme_refuse_pieces): later pieces of split requests to hand the kernel with an
   * address it refuses before the device sees them (EFAULT). */
  _Atomic uint32_t refuse_pieces;
} kdev;

enum { ST_BW, ST_BA, ST_BR, ST_W, ST_A, ST_R, ST_RESET, ST_FINISH, ST_FLUSH, ST_REPORT };

/* Tests only: the next n pieces after the first of split nvme: reads and writes are handed to the
 * kernel with an address it refuses (EFAULT) before the device sees them, as Linux 6.1 refuses
 * some pages pinnings (kdev_queue.c). -ENOTSUP if dev is not an nvme: device. */
int nvme_refuse_pieces(zkv_dev *dev, uint32_t n);

/* -(ZKV_ZNS_BASE | status) for an NVMe status (as the kernel returns it: SCT << 8 | SC with the
 * More/DNR bits above), -errno passed through, 0 for success. */
int kdev_nvme_code(int res);

/* Synchronous NVMe commands through ioctl on fd (admin or I/O); result gets DW0 (and DW1). */
typedef struct kdev_cmd {
  uint8_t opcode;
  uint32_t nsid;
  uint32_t cdw10, cdw11, cdw12, cdw13, cdw14, cdw15;
  void *buf;
  uint32_t len;
  uint64_t result;
  int status; /* raw: > 0 NVMe status, < 0 -errno, 0 ok */
} kdev_cmd;
int kdev_admin(int fd, kdev_cmd *c);
int kdev_io_cmd(int fd, kdev_cmd *c);

/* Request checks that need only the geometry, as the emulator orders them. 0 or a code. */
int kdev_check(const kdev *d, const zkv_request *r);
/* The NVMe status a refused command most likely had, from a zone report taken after the fact
 * (zbd: turns ZNS errors into -EIO; a write past the zone capacity is refused before any part of
 * it is issued). A write refused although the zone would take it now is taken for a Zone Invalid
 * Write: a request that completed meanwhile moved the write pointer. `err` if no rule applies. */
int kdev_diagnose(kdev *d, const zkv_request *r, int err);
/* Reads one zone descriptor (backend-specific). */
int kdev_report_one(kdev *d, uint32_t zone, zkv_zone *out);
/* Whether a block device and an NVMe generic device are the same namespace: the same nsid and, as
 * Identify Namespace reports them, the same NGUID and EUI-64 (a drive that reports neither is
 * matched by nsid and namespace size only). */
int kdev_same_namespace(int blk_fd, int ng_fd, uint32_t ng_nsid);
/* After a Close: an unwritten zone left CLOSED (QEMU) is reset to EMPTY, as the spec's
 * ZSC->ZSE transition and null_blk do. */
int kdev_close_fixup(kdev *d, uint32_t zone);

/* Before a Finish: an EMPTY zone becomes FULL through the active state, so at the active limit
 * the spec (and null_blk) refuse it with Too Many Active Zones; QEMU 7.2 lets it pass, so the
 * backends count active zones themselves (one full report, only for EMPTY zones). */
int kdev_finish_check(kdev *d, uint32_t zone);

/* zbd: the status of a failed block-layer request: the resource errnos mapped back, EIO
 * diagnosed (kdev_diagnose); other results unchanged. */
int64_t kdev_block_status(kdev *d, const zkv_request *r, int64_t res);

/* One synchronous request on a pooled ring (kdev_sync.c); returns the completion result. */
int64_t kdev_sync(kdev *d, const zkv_request *r);
/* The same in two steps, so that requests to several devices run at once: submit takes a ring
 * (*ring, NULL if none could be had) and returns kq_submit's code; wait, given that code, waits
 * for the completion if it was submitted, returns the ring and gives the result (or the code). */
int kdev_sync_submit(kdev *d, const zkv_request *r, zkv_queue **ring);
int64_t kdev_sync_wait(kdev *d, zkv_queue *ring, int submitted);
void kdev_pool_free(kdev *d);
void kdev_count(kdev *d, const zkv_request *r, int64_t res);

/* io_uring queues (kdev_queue.c). */
zkv_queue *kq_create(zkv_dev *dev, uint32_t depth, int *err);
void kq_destroy(zkv_queue *q);
int kq_submit(zkv_queue *q, const zkv_request *req);
int kq_reap(zkv_queue *q, zkv_completion *out, int min, int max, int64_t timeout_ns);
uint32_t kq_inflight(zkv_queue *q);

/* Common backend entry points over kdev_sync. */
int kdev_write(zkv_dev *dev, uint64_t offset, const void *buf, size_t len, int flags);
int64_t kdev_append(zkv_dev *dev, uint32_t zone, const void *buf, size_t len, int flags);
int kdev_read(zkv_dev *dev, uint64_t offset, void *buf, size_t len);
int kdev_flush(zkv_dev *dev);
int kdev_stats(zkv_dev *dev, zkv_dev_stats *out);
void kdev_free(kdev *d);

/* Opening helpers: a kdev of the given kind; the zone capacity read from zone 0. */
kdev *kdev_alloc(const char *path, int kind, const zkv_backend *be);
int kdev_read_zone_cap(kdev *d);
/* /sys/block/NAME/queue/ATTR as a number; -1 when absent. */
long long kdev_sysfs_queue_num(const char *name, const char *attr);

void kdev_close(zkv_dev *dev);
/* Whether a device is an nvme: or zbd: one; its NVMe namespace id (0 for any other). */
int kdev_is(const zkv_dev *dev);
uint32_t kdev_nsid(const zkv_dev *dev);

/* The function table of a kernel backend: everything but the zone commands is shared. */
#define KDEV_BACKEND(name, report_fn, zone_mgmt_fn, admin_fn)                                                     \
  {                                                                                                               \
    .scheme = name, .close = kdev_close, .report = report_fn, .zone_mgmt = zone_mgmt_fn, .write = kdev_write,     \
    .append = kdev_append, .read = kdev_read, .flush = kdev_flush, .queue_create = kq_create,                     \
    .queue_destroy = kq_destroy, .queue_submit = kq_submit, .queue_reap = kq_reap, .queue_inflight = kq_inflight, \
    .stats = kdev_stats, .admin = admin_fn                                                                        \
  }

/* Identify-based geometry of an NVMe zoned namespace (nvme:, and zbd:'s append limit). */
int kdev_identify_geometry(kdev *d, int fd);
/* Zone Management Receive of up to n zones from `first` on the ng device. */
int kdev_nvme_report(kdev *d, uint32_t first, zkv_zone *out, uint32_t n);
#endif

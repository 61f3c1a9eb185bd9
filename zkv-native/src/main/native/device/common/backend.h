/* The backend interface behind the public device API (zkv/device.h): each URI scheme (emu:,
 * nvme:, zbd:) provides one zkv_backend, and device.c dispatches every public call through it.
 * A backend's device struct starts with a zkv_dev, its queue struct with a zkv_queue. */
#ifndef ZKV_BACKEND_H
#define ZKV_BACKEND_H
#include <stdatomic.h>

#include "zkv/device.h"

/* The admin opcodes zkv issues (zkv_dev_nvme_admin). */
#define NVME_ADMIN_GET_LOG_PAGE 0x02
#define NVME_ADMIN_IDENTIFY 0x06
#define NVME_ADMIN_SET_FEATURES 0x09
#define NVME_ADMIN_GET_FEATURES 0x0A

/* An admin command's Feature or Log Page Identifier (CDW10 bits 7:0), and tests on it. */
static inline uint32_t admin_id(const zkv_admin_cmd *cmd) { return cmd->cdw10 & 0xFF; }
static inline int admin_is_log(const zkv_admin_cmd *cmd, uint32_t lid) {
  return cmd->opcode == NVME_ADMIN_GET_LOG_PAGE && admin_id(cmd) == lid;
}
static inline int admin_sets_feature(const zkv_admin_cmd *cmd, uint32_t fid) {
  return cmd->opcode == NVME_ADMIN_SET_FEATURES && admin_id(cmd) == fid;
}

/* The most reads dev_read_parallel submits together. */
#define DEV_READ_PARALLEL_MAX 8

typedef struct zkv_backend {
  const char *scheme; /* "emu", "nvme", "zbd" */
  void (*close)(zkv_dev *dev);
  int (*report)(zkv_dev *dev, uint32_t first, zkv_zone *out, uint32_t n);
  int (*zone_mgmt)(zkv_dev *dev, uint32_t zone, int action);
  int (*write)(zkv_dev *dev, uint64_t offset, const void *buf, size_t len, int flags);
  int64_t (*append)(zkv_dev *dev, uint32_t zone, const void *buf, size_t len, int flags);
  int (*read)(zkv_dev *dev, uint64_t offset, void *buf, size_t len);
  /* zkv_dev_read_part without a bounce copy; NULL: device.c reads into a bounce buffer. */
  int (*read_part)(zkv_dev *dev, uint64_t offset, size_t len, size_t skip, void *out, size_t n);
  int (*flush)(zkv_dev *dev);
  zkv_queue *(*queue_create)(zkv_dev *dev, uint32_t depth, int *err);
  void (*queue_destroy)(zkv_queue *q);
  int (*queue_submit)(zkv_queue *q, const zkv_request *req);
  int (*queue_reap)(zkv_queue *q, zkv_completion *out, int min, int max, int64_t timeout_ns);
  uint32_t (*queue_inflight)(zkv_queue *q);
  int (*stats)(zkv_dev *dev, zkv_dev_stats *out);
  /* An admin command already checked by zkv_dev_nvme_admin (device.c); NULL: not supported. */
  int (*admin)(zkv_dev *dev, zkv_admin_cmd *cmd);
  /* The I/O class a zone is bound to until its reset (ZKV_GEO_CLASS_BOUND_ZONES); NULL: none. */
  int (*zone_class)(zkv_dev *dev, uint32_t zone);
  /* n (<= DEV_READ_PARALLEL_MAX) reads submitted together, all complete on return; NULL: one
   * after the other (dev_read_parallel). */
  int (*read_parallel)(zkv_dev *dev, int n, const uint64_t *offset, uint8_t *const *buf, const size_t *len);
  /* Its queues carry out each request at submit (sync_queue.c): nothing is ever in flight. */
  int synchronous_queues;
  /* The device a composed device is made of (a plmarray: over one device); NULL: none. */
  zkv_dev *(*made_of)(zkv_dev *dev);
} zkv_backend;

struct zkv_dev {
  const zkv_backend *be;
  zkv_geometry geo;    /* filled by the backend at open */
  const char *profile; /* timing profile name, "device" for real hardware */
  /* Errors the device returned (device.c counts them for every backend; zkv_dev_stats.errors):
   * one relaxed atomic add on a failure, nothing on success. */
  _Atomic uint64_t errors;
};

struct zkv_queue {
  zkv_dev *dev;
};

/* The device dev is made of (its NVM Sets, clock and power are that device's); dev itself for a
 * device not made of another. Through the backend table, so a device knows nothing of those built
 * on it. */
static inline zkv_dev *dev_made_of(zkv_dev *dev) { return dev && dev->be->made_of ? dev->be->made_of(dev) : dev; }

/* Reads [offset[i], +len[i]) into buf[i] for each i < n, submitted together where the backend can
 * (a plmarray: rebuild reads the other sets' chunks so, as Vigil-KV's reqd does). */
int dev_read_parallel(zkv_dev *dev, int n, const uint64_t *offset, uint8_t *const *buf, const size_t *len);

/* Sets the calling thread's message for zkv_dev_last_error(). */
void zkv_set_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Backends' open functions (device.c's scheme table): the emulator (emu_uri.c) and plmarray:
 * parse their whole URI, the others get the path after the scheme. */
zkv_dev *emu_dev_open(const char *uri, int *err);
zkv_dev *plm_array_open(const char *uri, int *err);
zkv_dev *nvme_dev_open(const char *path, int *err);
zkv_dev *zbd_dev_open(const char *path, int *err);
extern const zkv_backend zkv_emu_backend;
#endif

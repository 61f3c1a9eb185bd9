/* The public device API: opens a device by URI scheme and dispatches every call to its backend. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"

static __thread char last_error[512];

void zkv_set_error(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(last_error, sizeof last_error, fmt, ap);
  va_end(ap);
}

const char *zkv_dev_last_error(void) { return last_error; }

/* The NVMe statuses zkv knows: the specification's name and what it means for a zkv user. */
static const struct {
  int status;
  const char *name, *sentence;
} nvme_statuses[] = {
    {0x001, "Invalid Command Opcode", "the device does not implement the command"},
    {ZKV_NVME_INVALID_FIELD, "Invalid Field in Command",
     "the device refused a field of the command (unaligned offset or length, an append above ZASL, an unknown "
     "action)"},
    {0x00C, "Command Sequence Error",
     "the command is not allowed in the current state (a PLM window on an NVM Set without Predictable Latency "
     "Mode)"},
    {ZKV_NVME_LBA_OUT_OF_RANGE, "LBA Out of Range", "the address lies past the end of the device"},
    {0x109, "Invalid Log Page", "the device does not provide the requested log page"},
    {ZKV_NVME_ZONE_BOUNDARY_ERROR, "Zone Boundary Error",
     "the request crosses the end of a zone or of its writable capacity"},
    {ZKV_NVME_ZONE_IS_FULL, "Zone Is Full", "the zone is written to its capacity; it takes no data until reset"},
    {ZKV_NVME_ZONE_IS_READ_ONLY, "Zone Is Read Only", "the device made the zone read-only; it can only be read"},
    {ZKV_NVME_ZONE_IS_OFFLINE, "Zone Is Offline", "the device took the zone offline; its data is gone"},
    {ZKV_NVME_ZONE_INVALID_WRITE, "Zone Invalid Write", "the write does not start at the zone's write pointer"},
    {ZKV_NVME_TOO_MANY_ACTIVE_ZONES, "Too Many Active Zones",
     "the device's limit of zones open or closed at once is reached; finish or reset one first"},
    {ZKV_NVME_TOO_MANY_OPEN_ZONES, "Too Many Open Zones",
     "the device's limit of open zones is reached and none can be closed implicitly"},
    {ZKV_NVME_INVALID_ZONE_STATE_TRANSITION, "Invalid Zone State Transition",
     "the zone's condition does not allow this action (e.g. writing a full zone, resetting an offline one)"},
};

/* Host errors whose meaning in zkv is more specific than strerror's. */
static const struct {
  int err;
  const char *sentence;
} zkv_errnos[] = {
    {ENODEV, "the device lost power or is gone; close and reopen it"},
    {EBUSY, "in use: another opener (this process or another) holds it"},
    {ENOSPC, "no space left for data on the device, even after garbage collection"},
    {EUCLEAN, "the zone file system's metadata is damaged"},
    {ENODATA, "no zkv file system on the device"},
    {EROFS, "the file system is mounted read-only"},
};

const char *zkv_status_message(int code) {
  static __thread char buf[320];
  int v = code < 0 ? -code : code;
  if (code >= 0) return "success";
  if (v & ZKV_ZNS_BASE) {
    int status = v & 0xFFFF;
    for (size_t i = 0; i < sizeof nvme_statuses / sizeof *nvme_statuses; i++)
      if (nvme_statuses[i].status == status) {
        snprintf(buf, sizeof buf, "%s (NVMe status 0x%03X): %s", nvme_statuses[i].name, status,
                 nvme_statuses[i].sentence);
        return buf;
      }
    snprintf(buf, sizeof buf, "NVMe status 0x%03X (type %d, code 0x%02X): a status zkv has no name for", status,
             status >> 8, status & 0xFF);
    return buf;
  }
  const char *name = strerrorname_np(v);
  char host[128];
  snprintf(host, sizeof host, "%s (%s)", strerror(v), name ? name : "unknown errno");
  for (size_t i = 0; i < sizeof zkv_errnos / sizeof *zkv_errnos; i++)
    if (zkv_errnos[i].err == v) {
      snprintf(buf, sizeof buf, "%s: %s", host, zkv_errnos[i].sentence);
      return buf;
    }
  snprintf(buf, sizeof buf, "%s", host);
  return buf;
}

/* The admin commands zkv issues, checked here for every backend: Identify, Get Log Page, Get
 * Features, and Set Features of the PLM features 0x13/0x14. The device moves what the command says,
 * whatever buffer it is given: a shorter buffer would be overrun (Identify: 4 KiB; Get Log Page:
 * (NUMD + 1) dwords; PLM Config: 512 bytes). */
int zkv_dev_nvme_admin(zkv_dev *dev, zkv_admin_cmd *cmd) {
  if (!dev->be->admin) {
    zkv_set_error("NVMe admin commands need an nvme: device or an emulated device with profile=plm");
    return -EOPNOTSUPP;
  }
  int allowed = cmd->opcode == NVME_ADMIN_IDENTIFY || cmd->opcode == NVME_ADMIN_GET_LOG_PAGE ||
                cmd->opcode == NVME_ADMIN_GET_FEATURES || cmd->opcode == NVME_ADMIN_SET_FEATURES;
  uint32_t fid = admin_id(cmd);
  if (!allowed || (cmd->opcode == NVME_ADMIN_SET_FEATURES && fid != 0x13 && fid != 0x14)) {
    zkv_set_error("admin opcode 0x%02x (cdw10 0x%x) is not one zkv issues", cmd->opcode, cmd->cdw10);
    return -EPERM;
  }
  uint64_t need = 0;
  if (cmd->opcode == NVME_ADMIN_IDENTIFY) {
    need = 4096;
  } else if (cmd->opcode == NVME_ADMIN_GET_LOG_PAGE) {
    need = (((uint64_t)(cmd->cdw10 >> 16) | ((uint64_t)(cmd->cdw11 & 0xFFFF) << 16)) + 1) * 4;
  } else if (fid == 0x13) {
    need = 512;
  } else if (fid != 0x14) {
    zkv_set_error("Get Features 0x%02x is not one zkv issues", fid);
    return -EPERM;
  }
  if ((need && !cmd->buf) || cmd->len < need) {
    zkv_set_error("admin opcode 0x%02x (cdw10 0x%x) transfers %llu bytes; the buffer has %u", cmd->opcode, cmd->cdw10,
                  (unsigned long long)need, cmd->len);
    return -EINVAL;
  }
  return dev->be->admin(dev, cmd);
}

/* The URI schemes and their backends' open functions (the emulator and plmarray: parse their
 * whole URI, the others get the path after the scheme). */
static const struct {
  const char *scheme;
  int whole_uri;
  zkv_dev *(*open)(const char *uri_or_path, int *err);
} schemes[] = {
    {"emu:", 1, emu_dev_open},
    {"nvme:", 0, nvme_dev_open},
    {"zbd:", 0, zbd_dev_open},
    {"plmarray:", 1, plm_array_open},
};

zkv_dev *zkv_dev_open(const char *uri, int *err) {
  *err = -EINVAL;
  zkv_set_error("%s", "");
  for (size_t i = 0; uri && i < sizeof schemes / sizeof *schemes; i++) {
    size_t n = strlen(schemes[i].scheme);
    if (strncmp(uri, schemes[i].scheme, n) == 0) return schemes[i].open(schemes[i].whole_uri ? uri : uri + n, err);
  }
  zkv_set_error(
      "unsupported device URI '%s': expected emu:/path, nvme:/dev/ngXnY, zbd:/dev/nvmeXnY or "
      "plmarray:emu:/path?profile=plm or plmarray:nvme:/dev/ngXn1,nvme:/dev/ngXn2,...",
      uri ? uri : "(null)");
  return NULL;
}

int zkv_dev_queues_async(zkv_dev *dev) { return !dev->be->synchronous_queues; }

void zkv_dev_close(zkv_dev *dev) {
  if (dev) dev->be->close(dev);
}

int zkv_dev_geometry(zkv_dev *dev, zkv_geometry *out) {
  *out = dev->geo;
  return 0;
}

const char *zkv_dev_profile_name(zkv_dev *dev) { return dev->profile; }

/* Counts a failed call in the device's error counter (zkv_dev_stats.errors) and returns its result. */
static int64_t counted(zkv_dev *dev, int64_t rc) {
  if (rc < 0) atomic_fetch_add_explicit(&dev->errors, 1, memory_order_relaxed);
  return rc;
}

int zkv_dev_report(zkv_dev *dev, uint32_t first, zkv_zone *out, uint32_t n) {
  return (int)counted(dev, dev->be->report(dev, first, out, n));
}

int zkv_dev_zone_class(zkv_dev *dev, uint32_t zone) {
  return dev->be->zone_class && zone < dev->geo.nr_zones ? dev->be->zone_class(dev, zone) : ZKV_CLASS_NONE;
}

int zkv_dev_zone_mgmt(zkv_dev *dev, uint32_t zone, int action) {
  return (int)counted(dev, dev->be->zone_mgmt(dev, zone, action));
}

int zkv_dev_write(zkv_dev *dev, uint64_t offset, const void *buf, size_t len, int flags) {
  return (int)counted(dev, dev->be->write(dev, offset, buf, len, flags));
}

int64_t zkv_dev_append(zkv_dev *dev, uint32_t zone, const void *buf, size_t len, int flags) {
  return counted(dev, dev->be->append(dev, zone, buf, len, flags));
}

int zkv_dev_read(zkv_dev *dev, uint64_t offset, void *buf, size_t len) {
  return (int)counted(dev, dev->be->read(dev, offset, buf, len));
}

int dev_read_parallel(zkv_dev *dev, int n, const uint64_t *offset, uint8_t *const *buf, const size_t *len) {
  if (dev->be->read_parallel && n <= DEV_READ_PARALLEL_MAX)
    return (int)counted(dev, dev->be->read_parallel(dev, n, offset, buf, len));
  for (int i = 0; i < n; i++) {
    int rc = zkv_dev_read(dev, offset[i], buf[i], len[i]);
    if (rc) return rc;
  }
  return 0;
}

int zkv_dev_read_part(zkv_dev *dev, uint64_t offset, size_t len, size_t skip, void *out, size_t n) {
  if (skip > len || n > len - skip) return -EINVAL;
  if (dev->be->read_part) return (int)counted(dev, dev->be->read_part(dev, offset, len, skip, out, n));
  /* block-aligned, as kernel backends' direct I/O prefers (they copy unaligned buffers otherwise) */
  _Alignas(4096) uint8_t stack_bounce[32 << 10];
  uint8_t *bounce = len <= sizeof stack_bounce ? stack_bounce : aligned_alloc(4096, (len + 4095) / 4096 * 4096);
  if (!bounce) return -ENOMEM;
  int rc = (int)counted(dev, dev->be->read(dev, offset, bounce, len));
  if (!rc) memcpy(out, bounce + skip, n);
  if (bounce != stack_bounce) free(bounce);
  return rc;
}

int zkv_dev_flush(zkv_dev *dev) { return (int)counted(dev, dev->be->flush(dev)); }

int zkv_dev_stats_get(zkv_dev *dev, zkv_dev_stats *out) {
  int rc = dev->be->stats(dev, out);
  out->errors = atomic_load_explicit(&dev->errors, memory_order_relaxed);
  return rc;
}

zkv_queue *zkv_queue_create(zkv_dev *dev, uint32_t depth, int *err) {
  if (depth == 0 || depth > 4096) {
    *err = -EINVAL;
    return NULL;
  }
  return dev->be->queue_create(dev, depth, err);
}

void zkv_queue_destroy(zkv_queue *q) {
  if (q) q->dev->be->queue_destroy(q);
}

int zkv_queue_submit(zkv_queue *q, const zkv_request *req) { return q->dev->be->queue_submit(q, req); }

int zkv_queue_reap(zkv_queue *q, zkv_completion *out, int min, int max, int64_t timeout_ns) {
  int n = q->dev->be->queue_reap(q, out, min, max, timeout_ns);
  for (int i = 0; i < n; i++) counted(q->dev, out[i].result);
  return n;
}

uint32_t zkv_queue_inflight(zkv_queue *q) { return q->dev->be->queue_inflight(q); }

/*
 * zkv device layer: one C API over zoned-device backends (emu:, nvme:, zbd:; docs/device.md).
 *
 * Addressing is in bytes (offsets are multiples of the LBA size); an append's assigned LBA is
 * (returned offset / lba_size). Every call that can fail returns a negative code: -errno for
 * host errors (-EIO, -EINVAL, ...) or -(ZKV_ZNS_BASE | nvme_status) for the NVMe ZNS statuses,
 * so hot paths never build strings. zkv_dev_last_error() gives the message of the last slow-path
 * failure (open, format) on the calling thread.
 */
#ifndef ZKV_DEVICE_H
#define ZKV_DEVICE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* NVMe status (SCT << 8 | SC) carried in a negative return as -(ZKV_ZNS_BASE | status). */
#define ZKV_ZNS_BASE 0x10000
#define ZKV_NVME_INVALID_FIELD 0x002
#define ZKV_NVME_LBA_OUT_OF_RANGE 0x080
#define ZKV_NVME_ZONE_BOUNDARY_ERROR 0x1B8
#define ZKV_NVME_ZONE_IS_FULL 0x1B9
#define ZKV_NVME_ZONE_IS_READ_ONLY 0x1BA
#define ZKV_NVME_ZONE_IS_OFFLINE 0x1BB
#define ZKV_NVME_ZONE_INVALID_WRITE 0x1BC
#define ZKV_NVME_TOO_MANY_ACTIVE_ZONES 0x1BD
#define ZKV_NVME_TOO_MANY_OPEN_ZONES 0x1BE
#define ZKV_NVME_INVALID_ZONE_STATE_TRANSITION 0x1BF
#define ZKV_ERR(nvme_status) (-(ZKV_ZNS_BASE | (nvme_status)))

/* Zone conditions, numbered as in the NVMe ZNS zone descriptor (Zone State field >> 4). */
enum zkv_zone_cond {
  ZKV_ZONE_EMPTY = 0x1,
  ZKV_ZONE_IMP_OPEN = 0x2,
  ZKV_ZONE_EXP_OPEN = 0x3,
  ZKV_ZONE_CLOSED = 0x4,
  ZKV_ZONE_READ_ONLY = 0xD,
  ZKV_ZONE_FULL = 0xE,
  ZKV_ZONE_OFFLINE = 0xF,
};

/* Zone Management Send actions (values of the NVMe Zone Send Action field). */
enum zkv_zone_action {
  ZKV_ZONE_CLOSE = 0x1,
  ZKV_ZONE_FINISH = 0x2,
  ZKV_ZONE_OPEN = 0x3,
  ZKV_ZONE_RESET = 0x4,
};

typedef struct zkv_geometry {
  uint32_t lba_size; /* bytes per logical block: 512 or 4096 */
  uint32_t nr_zones;
  uint64_t zone_size;  /* bytes between zone starts */
  uint64_t zone_cap;   /* writable bytes per zone, <= zone_size */
  uint32_t max_open;   /* 0 = no limit */
  uint32_t max_active; /* 0 = no limit */
  uint32_t zasl;       /* largest zone append, bytes */
  uint32_t flags;      /* ZKV_GEO_* */
  /* With ZKV_GEO_CLASS_BOUND_ZONES: at most this many zones hold WAL and metadata
   * (ZKV_CLASS_WAL, ZKV_CLASS_META) at a time, and at most nr_zones - meta_class_zones the other
   * classes; 0 otherwise. */
  uint32_t meta_class_zones;
  uint32_t reserved; /* 0 */
} zkv_geometry;
/* A zone serves the I/O class (ZKV_IO_CLASS) of its first write only, until its reset: a
 * plmarray: with isolate=1 binds it to the meta set (WAL, metadata) or to the kv-sets (the rest)
 * by that write, so a writer of the other class must not be given the zone, and an empty zone
 * takes a class only while that class holds fewer zones than its share (meta_class_zones)
 * (docs/plm.md). */
#define ZKV_GEO_CLASS_BOUND_ZONES 1u

typedef struct zkv_zone {
  uint64_t start; /* byte offset of the zone */
  uint64_t cap;   /* writable bytes */
  uint64_t wp;    /* write pointer, byte offset (start + written) */
  uint32_t cond;  /* enum zkv_zone_cond */
  uint32_t index;
} zkv_zone;

/* I/O flags. */
#define ZKV_IO_FUA 0x1 /* durable on completion even with the volatile write cache on */
/* The I/O class of a write, in bits 4-6 of its flags: what the zone file system knows of the data.
 * The plmarray: device binds an empty zone by the class of its first write (WAL and metadata to
 * the meta set, the rest striped over the kv-sets, docs/plm.md); other backends ignore it. */
#define ZKV_IO_CLASS_SHIFT 4
#define ZKV_IO_CLASS_MASK (7 << ZKV_IO_CLASS_SHIFT)
#define ZKV_IO_CLASS(c) ((c) << ZKV_IO_CLASS_SHIFT)
enum zkv_io_class {
  ZKV_CLASS_NONE = 0,     /* unknown: treated as INTERNAL */
  ZKV_CLASS_INTERNAL = 1, /* flush, compaction, garbage-collection writes (SST data) */
  ZKV_CLASS_WAL = 2,      /* write-ahead log */
  ZKV_CLASS_META = 3,     /* the file system's metadata log */
};

typedef struct zkv_dev zkv_dev;

/* Opens "emu:/path[?profile=NAME&wcache=0|1&discard=0|1&reorder=0|1&seed=N]" (the emulator;
 * profile=plm also takes sets=N, timescale=S and clock=real|manual, docs/device.md),
 * "nvme:/dev/ngXnY" (NVMe passthrough on a zoned namespace's generic device),
 * "zbd:/dev/nvmeXnY" (a zoned block device) or "plmarray:[chunk=N&hold=N@]emu:...?profile=plm"
 * (the NVM Sets of a PLM device composed into one, docs/plm.md). Returns NULL and sets *err. */
zkv_dev *zkv_dev_open(const char *uri, int *err);
void zkv_dev_close(zkv_dev *dev);
const char *zkv_dev_last_error(void);
/* A name and a sentence for any code zkv returns, for messages: "Zone Is Full (NVMe status 0x1B9):
 * ..." or "No space left on device (ENOSPC)". Valid until the calling thread's next call. */
const char *zkv_status_message(int code);
int zkv_dev_geometry(zkv_dev *dev, zkv_geometry *out);
/* Fills up to n descriptors starting at zone `first`; returns how many were filled. */
int zkv_dev_report(zkv_dev *dev, uint32_t first, zkv_zone *out, uint32_t n);
int zkv_dev_zone_mgmt(zkv_dev *dev, uint32_t zone, int action);
/* On a device whose zones serve one class (ZKV_GEO_CLASS_BOUND_ZONES): ZKV_CLASS_WAL for a zone
 * bound to WAL and metadata, ZKV_CLASS_INTERNAL for one bound to the other classes; anywhere
 * else, and for an empty zone, ZKV_CLASS_NONE. */
int zkv_dev_zone_class(zkv_dev *dev, uint32_t zone);
int zkv_dev_write(zkv_dev *dev, uint64_t offset, const void *buf, size_t len, int flags);
/* Zone append: returns the assigned byte offset (>= 0) or a negative code. */
int64_t zkv_dev_append(zkv_dev *dev, uint32_t zone, const void *buf, size_t len, int flags);
int zkv_dev_read(zkv_dev *dev, uint64_t offset, void *buf, size_t len);
/* A read of the LBA-aligned range [offset, offset + len) of which only bytes [skip, skip + n)
 * are wanted, copied to `out` (no alignment needed). The device does, checks and times the whole
 * aligned read as zkv_dev_read does; a backend that can (the emulator) moves only the wanted
 * bytes, the others read into a bounce buffer and copy. For unaligned reads (RocksDB's blocks). */
int zkv_dev_read_part(zkv_dev *dev, uint64_t offset, size_t len, size_t skip, void *out, size_t n);
int zkv_dev_flush(zkv_dev *dev);
const char *zkv_dev_profile_name(zkv_dev *dev);

/* ---- asynchronous submission / completion ---- */
enum zkv_op { ZKV_OP_READ = 0, ZKV_OP_WRITE = 1, ZKV_OP_APPEND = 2, ZKV_OP_FLUSH = 3 };

typedef struct zkv_request {
  int op;          /* enum zkv_op */
  int flags;       /* ZKV_IO_* */
  uint32_t zone;   /* for appends */
  uint64_t offset; /* for reads and writes */
  void *buf;
  size_t len;
  uint64_t tag; /* returned unchanged in the completion */
} zkv_request;

typedef struct zkv_completion {
  uint64_t tag;
  int64_t result; /* appends: assigned offset; others: 0; or a negative code */
} zkv_completion;

typedef struct zkv_queue zkv_queue;

/* A queue is used by one thread at a time; many queues may share a device. */
zkv_queue *zkv_queue_create(zkv_dev *dev, uint32_t depth, int *err);
void zkv_queue_destroy(zkv_queue *q);
/* Returns 0, -EBUSY when `depth` requests are already in flight, or a validation error. */
int zkv_queue_submit(zkv_queue *q, const zkv_request *req);
/* Waits for at least `min` completions (or timeout_ns, < 0 = forever); returns how many. */
int zkv_queue_reap(zkv_queue *q, zkv_completion *out, int min, int max, int64_t timeout_ns);
uint32_t zkv_queue_inflight(zkv_queue *q);
/* Whether the device's queues keep requests in flight (submit returns before the device is done);
 * 0 for one whose queues carry out each request at submit (plmarray:). */
int zkv_dev_queues_async(zkv_dev *dev);

/* ---- NVMe admin commands (Identify, Get Log Page, Get Features, and Set Features of the
 * Predictable Latency Mode features 0x13/0x14; anything else is refused with -EPERM): sent to the
 * controller on nvme:, answered by the model on an emulated device with profile=plm. ---- */
typedef struct zkv_admin_cmd {
  uint8_t opcode;
  uint32_t nsid;
  uint32_t cdw10, cdw11, cdw12, cdw13, cdw14, cdw15;
  void *buf;
  uint32_t len;
  uint32_t result; /* completion DW0 */
  int status;      /* raw: > 0 the NVMe status as the kernel gives it (with DNR 0x4000), < 0 -errno */
} zkv_admin_cmd;
/* Returns 0, -(ZKV_ZNS_BASE | status) or -errno; -EOPNOTSUPP on zbd: and on emulated devices
 * of other profiles. */
int zkv_dev_nvme_admin(zkv_dev *dev, zkv_admin_cmd *cmd);

/* ---- emulator only ---- */
/* Creates the backing file of an emulated device; fails on an existing file or bad geometry. */
int zkv_emu_format(const char *path, const zkv_geometry *geo);

enum zkv_fault_op {
  ZKV_FAULT_READ = 1,
  ZKV_FAULT_WRITE = 2,
  ZKV_FAULT_APPEND = 4,
  ZKV_FAULT_MGMT = 8,
  ZKV_FAULT_FLUSH = 16
};
/* The next `count` operations matching op_mask (and zone, or any zone if zone < 0), after
 * `skip` matching ones pass, fail with `error` (negative). count 0 clears the rule. */
int zkv_emu_inject_error(zkv_dev *dev, int op_mask, int64_t zone, uint32_t skip, uint32_t count, int error);
/* Turns a zone read-only or offline, as a failing device would. */
int zkv_emu_set_zone_condition(zkv_dev *dev, uint32_t zone, int cond);

enum zkv_power_cut_mode {
  ZKV_CUT_DROP_ALL = 0, /* every write not yet durable is lost */
  ZKV_CUT_RANDOM = 1,   /* each non-durable write is kept, lost, or torn (a prefix of its blocks) */
};
/* Emulates losing power: applies the mode to non-durable data (seeded), after which every
 * operation fails with -ENODEV until the device is closed and opened again. Returns the number
 * of non-durable writes that were affected. */
int64_t zkv_emu_power_cut(zkv_dev *dev, int mode, uint64_t seed);
/* Loses power during a write: the write or append matching op_mask (ZKV_FAULT_WRITE/APPEND) and
 * zone (any if negative) after `skip` matching ones passed gets under way, its first keep_blocks
 * blocks land and the rest is lost (a torn write: a prefix of its blocks, keep_blocks 0 loses it),
 * every other non-durable write is lost (ZKV_CUT_DROP_ALL), and it fails with -ENODEV, as
 * everything after it until the device is opened again. One rule; it takes a fault rule's slot
 * (-ENOSPC when none is free). For tests that tear one chosen write at a chosen block. */
int zkv_emu_cut_power_during(zkv_dev *dev, int op_mask, int64_t zone, uint32_t skip, uint32_t keep_blocks);
/* Whether the host honoured the timing profiles, over every emulated device of the process since
 * it started: timed requests completed, how many of them the host observed later than modelled by
 * more than 20 us + 10% of the modelled service time (a busy host: the caller was not running at
 * the deadline), and the worst lateness. */
typedef struct zkv_emu_lateness {
  uint64_t completions, late, worst_late_ns;
} zkv_emu_lateness;
void zkv_emu_lateness_get(zkv_emu_lateness *out);
/* For every synchronous request the calling thread waits for on an emulated device, sink[0]
 * grows by its modelled service time (submission to the model's completion, whatever the host's
 * delays) and sink[1] by one; requests submitted together (a plmarray: rebuild) count once, with
 * their longest. NULL stops it. For benchmarks that set figures the host cannot bend beside
 * wall-time ones: the caller keeps sink[0..1] alive, on this thread, until it passes NULL. */
void zkv_emu_thread_model_time(uint64_t *sink);
/* The emulated device's clock in ns: CLOCK_MONOTONIC, or with the URI option clock=virtual the
 * model's own time, which moves only when a request waits (for single-threaded model runs whose
 * latencies are then exactly the model's, whatever the host). 0 for other devices. */
uint64_t zkv_emu_clock_ns(zkv_dev *dev);

/* The plm profile's NVM Sets (docs/timing-model.md): the model's state of one set (1-based id),
 * for tests and calibration; PlmAdmin reads the standard fields through zkv_dev_nvme_admin. */
#define ZKV_PLM_MAX_SETS 64
typedef struct zkv_emu_plm_stats {
  uint32_t first_zone, nr_zones; /* the set's zones */
  uint32_t window;               /* 0 PLM off, 1 DTWIN, 2 NDWIN */
  uint32_t reserved;
  uint64_t clock_ns;                              /* the window clock now */
  uint64_t backlog_ns, capacity_ns;               /* internal work queued, and what the queue holds */
  uint64_t dirty_bytes;                           /* in the DRAM buffer, flushed by the next lockdown */
  uint64_t last_lockdown_ns, last_lockdown_bytes; /* the last NDWIN -> DTWIN transition */
  uint64_t dtwin_entries, autonomous_exits, writes_in_dtwin;
  uint64_t reads_deterministic, reads_nondeterministic; /* served in DTWIN / outside it */
  uint64_t reads_stalled, max_stall_ns;                 /* reads that waited behind internal work */
  uint64_t reclaim_jobs, gc_jobs;                       /* internal jobs queued so far */
  /* The model's own service times of the reads (submission to modelled completion), [0] in DTWIN,
   * [1] outside it: exact whatever the host's load. */
  uint64_t model_read_sum_ns[2], model_read_max_ns[2], model_reads_over_200us[2];
} zkv_emu_plm_stats;
int zkv_emu_plm_stats_get(zkv_dev *dev, uint32_t nvm_set, zkv_emu_plm_stats *out);
/* clock=manual only: moves the window clock forward. -EOPNOTSUPP otherwise. */
int zkv_emu_plm_advance(zkv_dev *dev, uint64_t ns);

/* The plmarray: device (docs/plm.md): one NVM Set (1-based id) as the array sees it. Polled by the
 * window driver at its decisions (never per I/O). -EOPNOTSUPP on other devices. */
typedef struct zkv_plm_array_stats {
  uint32_t window;                    /* as the array last saw it: 0 PLM off, 1 DTWIN, 2 NDWIN */
  uint32_t held_writes;               /* writes held for this set now */
  uint64_t held_bytes, hold_capacity; /* held for this set now; the buffer's limit (all sets) */
  uint64_t writes_direct, writes_held, bytes_drained;
  uint64_t writes_forced;                                        /* written into a DTWIN because the buffer was full */
  uint64_t reads_direct, reads_reconstructed, reads_from_buffer; /* chunk reads by source */
  uint64_t journal_bytes;                                        /* meta set only: journal written */
  /* kv-sets with PLM on: writes that reached the set outside an NDWIN the host asked for (into a
   * DTWIN, which they ended, or into the NDWIN such a write or the device started) */
  uint64_t writes_unscheduled;
} zkv_plm_array_stats;
int zkv_plm_array_stats_get(zkv_dev *dev, uint32_t nvm_set, zkv_plm_array_stats *out);

/* Counters (host-visible). `errors`: reads, writes, appends, flushes, zone management commands,
 * zone reports and queued requests' completions that returned a negative code since the device was
 * opened (a command the device failed or arguments it refused; a full queue is not counted). */
typedef struct zkv_dev_stats {
  uint64_t bytes_written, bytes_appended, bytes_read;
  uint64_t writes, appends, reads, resets, finishes, flushes, reports;
  uint64_t errors;
} zkv_dev_stats;
int zkv_dev_stats_get(zkv_dev *dev, zkv_dev_stats *out);

#ifdef __cplusplus
}
#endif
#endif

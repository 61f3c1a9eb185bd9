/* Internals of the emulated zoned device shared by its parts, each calling only those before it:
 *   plm.c         the plm profile's NVM Sets, windows and internal work (plm.h)
 *   emu_layout.c  the backing file: header, persistent zone table, format and load, file I/O
 *   emu_power.c   fault rules, writes not durable yet, power cuts
 *   emu_io.c      the clock, requests (checked, timed, carried out), zone management, reports
 *   emu_queue.c   asynchronous queues over emu_io.c's requests
 *   emu.c         opening and closing, PLM admin commands, the backend table
 *   emu_uri.c     the emu: URI and its options
 * Backing-file format: docs/formats/emulated-device.md. */
#ifndef ZKV_EMU_INTERNAL_H
#define ZKV_EMU_INTERNAL_H
#include <pthread.h>
#include <stdatomic.h>

#include "common/backend.h"
#include "common/stripes.h"
#include "common/timing.h"
#include "common/zone_state.h"
#include "plm.h"
#include "zkv/device.h"

#define EMU_MAGIC "ZKVEMU\0\1"
#define EMU_VERSION 1u
#define EMU_HEADER_SIZE 4096u
#define EMU_HEADER_CRC_OFF 72u /* CRC-32C of bytes [0, 72) */
#define EMU_OWNER_PID_OFF 76u
#define EMU_DATA_ALIGN (1u << 20)
#define EMU_MAX_FAULTS 8

/* A write that is not durable yet: lost, torn or kept at a power cut. */
typedef struct nd_rec {
  uint64_t id;
  uint32_t zone;
  uint8_t inflight; /* not completed yet */
  uint8_t cut;      /* a power cut decided its fate; `keep` bytes survive */
  uint64_t rel, len, keep;
} nd_rec;

typedef struct fault_rule {
  int op_mask;
  int64_t zone;
  uint32_t skip, count;
  int error;
  uint32_t cut_keep; /* a power cut during the request (zkv_emu_cut_power_during): blocks kept + 1; 0: an error */
} fault_rule;

typedef struct emu_dev {
  zkv_dev base; /* geometry in base.geo */
  int fd;
  char *path;
  uint64_t data_off;
  void *map;
  size_t map_len;
  zs_table zs;
  const zkv_profile *prof;
  int wcache;
  int discard; /* punch holes on reset */
  int dead;    /* after a power cut (set with an atomic store: unlocked reads look at it) */
  pthread_mutex_t mu;
  zkv_pipe pipe;
  zkv_pipe ceiling; /* per_zone_serial profiles: the write bandwidth all zones share */
  zkv_pipe *zone_pipes;
  int virtual_clock;       /* clock=virtual: time moves only when a request waits (single-threaded) */
  _Atomic uint64_t vclock; /* its time, ns */
  uint64_t rng;
  int reorder;           /* queues reorder concurrent appends to a zone (emu_queue.c) */
  uint64_t reorder_seed; /* each queue's reordering draws from its own stream, from this */
  uint32_t queues_made;
  /* Deadlines of the requests begun and not ended whose deadline had not passed when last looked
   * at: the device's queue depth for the timing model (busy_at, emu_io.c). */
  uint64_t *busy;
  uint32_t n_busy, cap_busy;
  nd_rec *nd;
  size_t nd_len, nd_cap;
  uint64_t nd_next_id;
  fault_rule faults[EMU_MAX_FAULTS];
  zkv_dev_stats stats;
  /* Reads without the device lock (emu_io.c's read_unlocked): on when the profile models no read
   * time and there is no PLM, so a read needs no timing state; taken only while no fault rule can
   * hit a read and the device is alive. They count per thread (a: reads, b: bytes), added to stats
   * on a get, so readers on different cores write no shared cache line. */
  int unlocked_reads;
  _Atomic uint32_t read_fault_rules;
  zkv_stripe unlocked_read_counts[ZKV_STRIPES];
  /* What reads of each zone see: its bytes below `readable` (the rest reads as zeros). A write
   * moves the write pointer when it begins but its bytes reach the backing file after, so reads
   * use this instead: it passes a write only once the write ended (and no write below it is still
   * under way), so a read racing a write sees each block old or new, never half copied (NVMe writes
   * a block atomically). Written under mu, read with acquire loads (unlocked reads too). */
  _Atomic uint64_t *readable;
  uint32_t *writes_under_way; /* per zone, under mu: writes and appends begun and not ended */
  plm_state *plm;             /* profile plm: the NVM Sets' windows and internal work (plm.c) */
  zkv_pipe *set_pipes;        /* profile plm: one throughput pipe per NVM Set (performance isolation) */
} emu_dev;

/* What an emu: URI sets besides the path and the profile. */
typedef struct emu_options {
  int wcache, discard, reorder, virtual_clock;
  uint64_t seed;
  uint32_t sets, timescale; /* profile plm */
  int manual_clock;
} emu_options;
zkv_dev *emu_open(const char *path, const zkv_profile *prof, const emu_options *o, int *err);

/* The backing file (emu_layout.c). Whole-buffer pwrite/pread at `off` (reads beyond the end of
 * the sparse file give zeros); 0 or -errno. */
int emu_write_full(int fd, const void *buf, size_t len, uint64_t off);
int emu_read_full(int fd, void *buf, size_t len, uint64_t off);
/* Takes the backing file for this opener alone; loads its header and zone table into dev. */
int emu_take_ownership(int fd, const char *path);
int emu_load(emu_dev *dev, const char *path);
/* Where reads of the zone stop (emu_dev.readable), published again. With mu held. */
void emu_publish_readable(emu_dev *dev, uint32_t zone);

/* All of these run with dev->mu held. */
/* 0, or the error the next matching fault rule gives the operation; EMU_CUT_DURING for a rule
 * that cuts the power during it (*cut_keep: its blocks kept + 1, for emu_cut_during). */
#define EMU_CUT_DURING 1
int emu_fault_check(emu_dev *dev, int op, int64_t zone, uint32_t *cut_keep);
int emu_nd_add(emu_dev *dev, uint32_t zone, uint64_t rel, uint64_t len, uint64_t *id);
/* Completion of a tracked write: durable now (no cache, or FUA) or kept until a flush. Returns
 * -ENODEV when a power cut overtook it (after re-applying its loss to the backing file). */
int emu_nd_complete(emu_dev *dev, uint64_t id, int fua);
void emu_nd_flush(emu_dev *dev);
/* A reordered append moved by `delta` bytes within its zone. */
void emu_nd_move(emu_dev *dev, uint64_t id, int64_t delta);
/* Zone bytes [rel, rel + len) read as zeros again (a hole punched, or zeros written). */
void emu_punch(emu_dev *dev, uint32_t zone, uint64_t rel, uint64_t len);

/* Validates and schedules one request; on success *deadline and (writes) *nd_id are set and
 * *file_off is where the data goes in the backing file. Returns the assigned offset for appends. */
typedef struct emu_io {
  int op, flags;
  uint32_t zone;
  uint64_t offset;
  size_t len;
  size_t valid; /* reads: bytes below the write pointer */
  uint64_t submitted, deadline, nd_id, file_off;
  uint64_t spacing_ns, model_latency_ns; /* the model's closed-loop view (zkv_timing) */
  uint64_t *rng;                         /* the timing draws' stream: a queue's own, or NULL for the device's */
  int64_t result;
  uint32_t cut_keep; /* a fault rule cuts the power during this write: blocks kept + 1 (emu_cut_during); 0: none */
} emu_io;
/* A write whose fault rule cuts the power during it, once its data is in the backing file: every
 * other non-durable write is lost and this one keeps the rule's first blocks (ZKV_CUT_DROP_ALL
 * otherwise); the request then ends with -ENODEV. Takes mu. */
void emu_cut_during(emu_dev *dev, const emu_io *io);
int emu_io_begin(emu_dev *dev, emu_io *io);
/* Called once the data is in the backing file (or the read done) and the deadline passed. */
int64_t emu_io_end(emu_dev *dev, emu_io *io, int64_t io_res);
/* The same, the completion observed at `seen` (0: now) for the host's lateness (timing.c). */
int64_t emu_io_end_seen(emu_dev *dev, emu_io *io, int64_t io_res, uint64_t seen);
/* Data movement to and from the backing file (no lock needed). */
int emu_write_data(emu_dev *dev, const void *buf, size_t len, uint64_t file_off);
/* Delivers bytes [skip, skip + n) of the read to buf: those below the write pointer (io->valid)
 * from the file, zeros above it. */
int emu_read_data(emu_dev *dev, const struct emu_io *io, size_t skip, void *buf, size_t n);
#define emu_set_error zkv_set_error
/* The device's clock: CLOCK_MONOTONIC, or with clock=virtual the model's own time. */
uint64_t emu_now(emu_dev *dev);
/* Waits until the deadline on the device's clock (a virtual clock just moves there). */
void emu_wait_until(emu_dev *dev, uint64_t deadline);

/* The backend's calls (emu_io.c). */
int emu_write(zkv_dev *dev, uint64_t offset, const void *buf, size_t len, int flags);
int64_t emu_append(zkv_dev *dev, uint32_t zone, const void *buf, size_t len, int flags);
int emu_read(zkv_dev *d, uint64_t offset, void *buf, size_t len);
int emu_read_part(zkv_dev *d, uint64_t offset, size_t len, size_t skip, void *out, size_t n);
int emu_read_parallel(zkv_dev *d, int n, const uint64_t *offset, uint8_t *const *buf, const size_t *len);
int emu_flush(zkv_dev *dev);
int emu_report(zkv_dev *d, uint32_t first, zkv_zone *out, uint32_t n);
int emu_zone_mgmt(zkv_dev *d, uint32_t zone, int action);
int emu_stats(zkv_dev *d, zkv_dev_stats *out);

/* The emulator's queues (emu_queue.c). */
zkv_queue *emu_queue_create(zkv_dev *dev, uint32_t depth, int *err);
void emu_queue_destroy(zkv_queue *q);
int emu_queue_submit(zkv_queue *q, const zkv_request *req);
int emu_queue_reap(zkv_queue *q, zkv_completion *out, int min, int max, int64_t timeout_ns);
uint32_t emu_queue_inflight(zkv_queue *q);
#endif

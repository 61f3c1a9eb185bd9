/* Device timing model: each request gets an absolute completion deadline from a named profile.
 * Latency = size-interpolated base latency, grown with the queue depth (a table over QD 1..64);
 * throughput = a pipe that completes at most one request per `gap` (size-interpolated), either
 * device-wide or per zone (devices that serialize appends within a zone, which then also have a
 * device-wide bandwidth ceiling); the result is multiplied by a seeded lognormal factor of mean 1
 * whose P99 is the published P99/mean at that size and QD (the tail). Sources of every number:
 * docs/timing-model.md. */
#ifndef ZKV_TIMING_H
#define ZKV_TIMING_H
#include <stdint.h>

#define ZKV_TIMING_POINTS 5
typedef struct zkv_curve { /* ns at 4, 8, 16, 32 and 64 KiB; linear in between and beyond; a 0 at 32 or
                              64 KiB continues the segment before it */
  uint32_t ns[ZKV_TIMING_POINTS];
} zkv_curve;

#define ZKV_QD_POINTS 7  /* queue depths 1, 2, 4, 8, 16, 32, 64 */
#define ZKV_TAIL_SIZES 3 /* tail tables at 4, 8 and 16 KiB (larger requests use 16 KiB's) */

typedef struct zkv_profile {
  const char *name;
  zkv_curve write_lat, append_lat, read_lat;
  zkv_curve write_gap, append_gap, read_gap; /* 0 = no throughput limit */
  /* mean latency at QD 1, 2, 4, ... 64 over QD1's, in permille (linear in QD in between, flat
   * beyond 64); all 0: no growth */
  uint16_t growth_permille[ZKV_QD_POINTS];
  /* P99 / mean of the latency at 4, 8, 16 KiB and QD 1 ... 64, permille; the latency is multiplied
   * by a lognormal factor of mean 1 with that P99. All 0: no tail, jitter_ppm applies instead. */
  uint16_t tail_p99_permille[ZKV_TAIL_SIZES][ZKV_QD_POINTS];
  uint32_t jitter_ppm;        /* +- uniform jitter on latency (profiles without a published tail) */
  uint32_t per_zone_serial;   /* appends/writes serialize per zone (gap applies per zone) */
  uint32_t device_write_mbps; /* per_zone_serial devices: the write bandwidth all zones share (MB/s) */
  uint32_t reorders;          /* concurrent appends to a zone are reordered by default (emu_queue.c; URI reorder=) */
  uint64_t report_ns, mgmt_ns, flush_ns;
  uint64_t report_zone_ns; /* a zone report costs report_ns + this per zone reported */
  uint32_t finish_pads;    /* a finish writes the zone's unwritten capacity at the write bandwidth */
  uint32_t nvm_sets;       /* > 0: the default number of NVM Sets with Predictable Latency Mode (plm.c) */
} zkv_profile;

const zkv_profile *zkv_profile_find(const char *name);
const char *zkv_profile_names(void);
uint64_t zkv_curve_at(const zkv_curve *c, uint64_t bytes);
int zkv_profile_is_instant(const zkv_profile *p);

/* Per-device (or per-zone) timing state. */
typedef struct zkv_pipe {
  uint64_t next_slot_ns;
} zkv_pipe;

/* What the model decides for one request. */
typedef struct zkv_timing {
  uint64_t deadline; /* absolute completion time, 0 = at once (instant) */
  /* For ordering appends to one zone without looking at the host's clock (emu_queue.c): the time
   * between submissions a closed loop at this queue depth sees (max of the pipe's gap and the
   * latency / QD), and this request's latency as the closed loop would see it (the larger of the
   * latency and QD gaps, times the drawn tail factor). Both depend only on the profile, the size,
   * the queue depth and the seeded draw. */
  uint64_t spacing_ns, model_latency_ns;
} zkv_timing;

/* Timing of a request of `bytes` submitted at now_ns with `inflight` others in flight; `pipe` is
 * the device's or the zone's pipe, `ceiling` (may be NULL) a second, device-wide one. */
zkv_timing zkv_timing_deadline(const zkv_profile *p, const zkv_curve *lat, const zkv_curve *gap, zkv_pipe *pipe,
                               zkv_pipe *ceiling, uint64_t bytes, uint32_t inflight, uint64_t now_ns, uint64_t *rng);
/* The ns per byte of the profile's sustained write bandwidth (device-wide), 0 when unlimited. */
double zkv_profile_write_ns_per_byte(const zkv_profile *p);
/* The lognormal sigma whose P99 over its mean is `ratio` (>= 1). */
double zkv_tail_sigma(double ratio);

uint64_t zkv_now_ns(void);
/* Accounts a timed request's completion as observed at `observed` (zkv_emu_lateness_get). */
void zkv_timing_observe(uint64_t submitted, uint64_t deadline, uint64_t observed);
/* Waits until the absolute CLOCK_MONOTONIC deadline: sleeps to shortly before, then spins. */
void zkv_wait_until(uint64_t deadline_ns);
uint64_t zkv_rng_next(uint64_t *state);
#endif

/* Device timing model: each request gets an absolute completion deadline from a named profile.
 * Latency = size-interpolated base latency, grown by the number of requests already in flight;
 * throughput = a pipe that completes at most one request per `gap` (size-interpolated), either
 * device-wide or per zone (devices that serialize appends within a zone). Jitter (seeded) lets
 * concurrent requests complete out of order, as NAND dies do. Sources of every number: docs/calibration.md. */
#ifndef ZKV_TIMING_H
#define ZKV_TIMING_H
#include <stdint.h>

#define ZKV_TIMING_POINTS 3
typedef struct zkv_curve { /* ns at 4, 8 and 16 KiB; linear in between and beyond */
  uint32_t ns[ZKV_TIMING_POINTS];
} zkv_curve;

typedef struct zkv_profile {
  const char *name;
  zkv_curve write_lat, append_lat, read_lat;
  zkv_curve write_gap, append_gap, read_gap; /* 0 = no throughput limit */
  uint32_t inflight_growth_ppm;              /* latency grows by this per other request in flight */
  uint32_t jitter_ppm;                       /* +- uniform jitter on latency */
  uint32_t per_zone_serial;                  /* appends/writes serialize per zone (gap applies per zone) */
  uint32_t reorders; /* concurrent appends to a zone are reordered by default (emu_queue.c; URI reorder=) */
  uint64_t report_ns, mgmt_ns, flush_ns;
  uint32_t nvm_sets; /* > 0: the default number of NVM Sets with Predictable Latency Mode (plm.c) */
} zkv_profile;

const zkv_profile *zkv_profile_find(const char *name);
const char *zkv_profile_names(void);
uint64_t zkv_curve_at(const zkv_curve *c, uint64_t bytes);
int zkv_profile_is_instant(const zkv_profile *p);

/* Per-device (or per-zone) timing state. */
typedef struct zkv_pipe {
  uint64_t next_slot_ns;
} zkv_pipe;

/* Deadline for a request of `bytes` submitted at now_ns with `inflight` others in flight. */
uint64_t zkv_timing_deadline(const zkv_profile *p, const zkv_curve *lat, const zkv_curve *gap, zkv_pipe *pipe,
                             uint64_t bytes, uint32_t inflight, uint64_t now_ns, uint64_t *rng);

uint64_t zkv_now_ns(void);
/* Accounts a timed request's completion as observed at `observed` (zkv_emu_lateness_get). */
void zkv_timing_observe(uint64_t submitted, uint64_t deadline, uint64_t observed);
/* Waits until the absolute CLOCK_MONOTONIC deadline: sleeps to shortly before, then spins. */
void zkv_wait_until(uint64_t deadline_ns);
uint64_t zkv_rng_next(uint64_t *state);
#endif

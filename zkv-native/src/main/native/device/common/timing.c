#define _GNU_SOURCE
#include "timing.h"

#include <math.h>
#include <sched.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>

#include "zkv/device.h"

#define US(x) ((uint32_t)((x)*1000.0))

/* Numbers and their derivations: docs/timing-model.md. ZN540 and ConfZNS: the fio tables of the
 * ZWAL artifact (notes/wal-papers-waltz-zwal.md §4.4); PM1731a: WALTZ §2. */
static const zkv_profile PROFILES[] = {
    {.name = "instant"},
    /* WD ZN540. Append QD1 18.6/16.8/26.1 us, write 14.7/15.0/22.6 us (4/8/16 KiB); from 32 KiB on
     * writes and appends take the same time ("32 KiB and larger: similar"), the 16 KiB write plus
     * the extra bytes at the 8 KiB saturation bandwidth (1.22 GB/s). Saturation 135.5K/149.5K IOPS
     * (4/8 KiB); 16 KiB and larger bandwidth-bound like 8 KiB. Mean latency +7.7% per request in flight
     * (8 KiB QD2 18.1 us). Tail: P99/mean of the 4 and 8 KiB append rows at QD1-16 (16 KiB: its QD1-2
     * rows, then 8 KiB's, bandwidth-bound as 8 KiB is), beyond QD16 as QD16. Reads, report,
     * management, flush: assumptions. */
    {.name = "zn540",
     .write_lat = {{US(14.7), US(15.0), US(22.6), US(36.0), US(62.7)}},
     .append_lat = {{US(18.6), US(16.8), US(26.1), US(36.0), US(62.7)}},
     .read_lat = {{US(70), US(75), US(85)}},
     .write_gap = {{US(7.38), US(6.69), US(13.38), US(26.76), US(53.52)}},
     .append_gap = {{US(7.38), US(6.69), US(13.38), US(26.76), US(53.52)}},
     .read_gap = {{US(2.0), US(4.0), US(8.0)}},
     .growth_permille = {1000, 1077, 1231, 1539, 2155, 3387, 5851},
     .tail_p99_permille = {{1129, 1244, 1399, 1235, 1194, 1194, 1194},
                           {1190, 1326, 2962, 5549, 4600, 4600, 4600},
                           {1188, 1329, 2962, 5549, 4600, 4600, 4600}},
     .reorders = 1,
     .report_ns = 50000,
     .report_zone_ns = 500,
     .finish_pads = 1,
     .mgmt_ns = 20000,
     .flush_ns = 10000},
    /* Samsung PM1731a (WALTZ): append ~93 us single-threaded, serialized per zone on the device;
     * single-zone report 6687 us. Writes like appends (WALTZ Fig. 3: "average latency similar";
     * the figure's values are not in the text). Device-wide write ceiling 2,000 MB/s: assumption. */
    {.name = "pm1731a",
     .write_lat = {{US(90), US(93), US(100)}},
     .append_lat = {{US(90), US(93), US(100)}},
     .read_lat = {{US(80), US(85), US(95)}},
     .write_gap = {{US(90), US(93), US(100)}},
     .append_gap = {{US(90), US(93), US(100)}},
     .read_gap = {{US(2.0), US(4.0), US(8.0)}},
     .jitter_ppm = 30000,
     .per_zone_serial = 1,
     .device_write_mbps = 2000,
     .report_ns = 6687000,
     .report_zone_ns = 500,
     .finish_pads = 1,
     .mgmt_ns = 50000,
     .flush_ns = 20000},
    /* ConfZNS / FEMU (ZWAL): 8 KiB append and write QD1 ~482 us; mean latency flat to QD2, then
     * 621.7/643.7/678.5 us at QD4/8/16 (growth table: the published means over QD1's); appends
     * saturate at 35.5K IOPS (QD32). From 32 KiB on writes and appends alike ("larger request
     * sizes: similar"): 16 KiB plus the extra bytes at the saturation bandwidth (291 MB/s). Tail:
     * P99/mean of the 8 KiB rows, QD1-64, at every size. Reads: 417 MiB/s at 64 KiB (fio, taken as
     * QD1), so 150 us per read and a 417 MiB/s read pipe; flat in size up to 64 KiB (assumption: a
     * read is striped over the zone's 32 channels). */
    {.name = "confzns",
     .write_lat = {{US(480), US(482.5), US(487), US(543.2), US(655.6)}},
     .append_lat = {{US(480), US(482.6), US(487), US(543.2), US(655.6)}},
     .read_lat = {{US(149.9), US(149.9), US(149.9), US(149.9), US(149.9)}},
     .write_gap = {{US(28.1), US(28.1), US(56.2), US(112.4), US(224.8)}},
     .append_gap = {{US(28.1), US(28.1), US(56.2), US(112.4), US(224.8)}},
     .read_gap = {{US(9.37), US(18.74), US(37.47), US(74.94), US(149.9)}},
     .growth_permille = {1000, 998, 1288, 1334, 1406, 1406, 1406},
     .tail_p99_permille = {{1005, 1007, 1403, 1418, 1299, 1450, 1266},
                           {1005, 1007, 1403, 1418, 1299, 1450, 1266},
                           {1005, 1007, 1403, 1418, 1299, 1450, 1266}},
     .reorders = 1,
     .report_ns = 500000,
     .report_zone_ns = 500,
     .finish_pads = 1,
     .mgmt_ns = 500000,
     .flush_ns = 100000},
    /* Vigil-KV's PLM SSD (notes/plm-paper-vigil-kv.md), per NVM Set (2 channels, 16 dies, its own
     * pipe): DTWIN 4 KiB reads 74 us mean (Fig. 8a), +-20% jitter (assumption) keeps every one
     * under 200 us. Assumptions (not in the paper): 8/16 KiB reads +5/+15 us as zn540; 800 MB/s of
     * reads and 300 MB/s of buffered writes per set; writes into the DRAM buffer 20 us; report,
     * management and flush as zn540. Windows and internal work: plm.c. */
    {.name = "plm",
     .write_lat = {{US(20), US(22), US(26)}},
     .append_lat = {{US(20), US(22), US(26)}},
     .read_lat = {{US(74), US(79), US(89)}},
     .write_gap = {{US(13.65), US(27.3), US(54.6)}},
     .append_gap = {{US(13.65), US(27.3), US(54.6)}},
     .read_gap = {{US(5.12), US(10.24), US(20.48)}},
     .jitter_ppm = 200000,
     .report_ns = 50000,
     .mgmt_ns = 20000,
     .flush_ns = 10000,
     .nvm_sets = 4},
};

const zkv_profile *zkv_profile_find(const char *name) {
  for (size_t i = 0; i < sizeof PROFILES / sizeof PROFILES[0]; i++)
    if (strcmp(PROFILES[i].name, name) == 0) return &PROFILES[i];
  return NULL;
}

const char *zkv_profile_names(void) { return "instant, zn540, pm1731a, confzns, plm"; }

int zkv_profile_is_instant(const zkv_profile *p) { return strcmp(p->name, "instant") == 0; }

static const double CURVE_KIB[ZKV_TIMING_POINTS] = {4, 8, 16, 32, 64};

uint64_t zkv_curve_at(const zkv_curve *c, uint64_t bytes) {
  double kib = (double)bytes / 1024.0;
  if (kib < 4) return (uint64_t)(c->ns[0] * (0.75 + 0.25 * kib / 4)); /* small I/O: mostly fixed cost */
  /* the points given (a 0 at 32 or 64 KiB continues the segment before it) */
  double x[ZKV_TIMING_POINTS], y[ZKV_TIMING_POINTS];
  int n = 0;
  for (int i = 0; i < ZKV_TIMING_POINTS; i++)
    if (i < 3 || c->ns[i]) x[n] = CURVE_KIB[i], y[n++] = c->ns[i];
  int k = 0; /* segment [k, k+1], the last one beyond its end */
  while (k + 2 < n && kib > x[k + 1]) k++;
  double v = y[k] + (y[k + 1] - y[k]) * (kib - x[k]) / (x[k + 1] - x[k]);
  return v < 0 ? 0 : (uint64_t)v;
}

uint64_t zkv_rng_next(uint64_t *s) { /* splitmix64 */
  uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

static double uniform01(uint64_t *rng) { return (double)(zkv_rng_next(rng) >> 11) / 9007199254740992.0; }

/* A standard normal draw (Box-Muller, one of the pair). */
static double normal01(uint64_t *rng) {
  double u = uniform01(rng), v = uniform01(rng);
  return sqrt(-2.0 * log(1.0 - u)) * cos(2.0 * M_PI * v);
}

#define Z99 2.326347874 /* the standard normal's 99th percentile */

double zkv_tail_sigma(double ratio) {
  /* A lognormal factor exp(mu + sigma Z) of mean 1 has mu = -sigma^2/2 and P99 exp(Z99 sigma -
   * sigma^2/2); P99 = ratio gives sigma^2 - 2 Z99 sigma + 2 ln ratio = 0, the smaller root. */
  if (ratio <= 1.0) return 0;
  double d = Z99 * Z99 - 2.0 * log(ratio);
  return d > 0 ? Z99 - sqrt(d) : Z99; /* ratios beyond exp(Z99^2/2) = 15 are capped there */
}

/* Table over QD 1, 2, 4, ... 64, linear in QD in between, flat beyond. */
static double qd_table(const uint16_t t[ZKV_QD_POINTS], double qd) {
  if (qd <= 1) return t[0];
  for (int i = 0; i + 1 < ZKV_QD_POINTS; i++) {
    double lo = (double)(1u << i), hi = (double)(1u << (i + 1));
    if (qd <= hi) return t[i] + (t[i + 1] - (double)t[i]) * (qd - lo) / (hi - lo);
  }
  return t[ZKV_QD_POINTS - 1];
}

/* P99 / mean of the latency at this size and QD: the table's sizes 4, 8, 16 KiB, linear in between. */
static double tail_ratio(const zkv_profile *p, uint64_t bytes, double qd) {
  double kib = (double)bytes / 1024.0;
  double r4 = qd_table(p->tail_p99_permille[0], qd), r8 = qd_table(p->tail_p99_permille[1], qd),
         r16 = qd_table(p->tail_p99_permille[2], qd);
  double r = kib <= 4    ? r4
             : kib <= 8  ? r4 + (r8 - r4) * (kib - 4) / 4
             : kib <= 16 ? r8 + (r16 - r8) * (kib - 8) / 8
                         : r16;
  return r / 1000.0;
}

static int has_tail(const zkv_profile *p) { return p->tail_p99_permille[0][0] != 0; }

zkv_timing zkv_timing_deadline(const zkv_profile *p, const zkv_curve *lat, const zkv_curve *gap, zkv_pipe *pipe,
                               zkv_pipe *ceiling, uint64_t bytes, uint32_t inflight, uint64_t now, uint64_t *rng) {
  zkv_timing t = {0};
  if (zkv_profile_is_instant(p)) return t;
  double qd = (double)inflight + 1.0;
  double l = (double)zkv_curve_at(lat, bytes);
  if (p->growth_permille[0]) l *= qd_table(p->growth_permille, qd) / 1000.0;
  uint64_t done = now + (uint64_t)l;
  double g = pipe ? (double)zkv_curve_at(gap, bytes) : 0;
  if (g) {
    uint64_t slot = (pipe->next_slot_ns > now ? pipe->next_slot_ns : now) + (uint64_t)g;
    pipe->next_slot_ns = slot;
    if (slot > done) done = slot;
  }
  if (ceiling && p->device_write_mbps) { /* bytes / (MB/s) = ns * 1000 */
    uint64_t cg = bytes * 1000ull / p->device_write_mbps;
    uint64_t slot = (ceiling->next_slot_ns > now ? ceiling->next_slot_ns : now) + cg;
    ceiling->next_slot_ns = slot;
    if (slot > done) done = slot;
    if ((double)cg > g) g = (double)cg;
  }
  /* The closed-loop view (for ordering, emu_queue.c): latency at this QD is at least QD pipe gaps
   * (Little's law at saturation), submissions come every max(gap, latency / QD). */
  double closed = l > qd * g ? l : qd * g;
  t.spacing_ns = (uint64_t)(g > l / qd ? g : l / qd);
  double factor = 1.0;
  if (has_tail(p)) {
    /* The tail goes on after the throughput limit: on the pipe's slots it would vanish whenever the
     * device is saturated, where the published tails are longest (ZN540 8 KiB QD8: P99 293 us). */
    double sigma = zkv_tail_sigma(tail_ratio(p, bytes, qd));
    factor = exp(sigma * normal01(rng) - sigma * sigma / 2);
  } else if (p->jitter_ppm) {
    /* Uniform +-jitter_ppm of the latency (|jitter| < l keeps done > now), added to the service
     * time, not to the absolute deadline: a double holds CLOCK_MONOTONIC to the nanosecond only
     * below 2^53 ns (104 days of uptime), after which the sum rounded and the same draws gave
     * times 1-2 ns apart on the wall clock of a long-running host (test_plm compares two runs). */
    double j = (2 * uniform01(rng) - 1) * p->jitter_ppm / 1e6 * l;
    done = now + (uint64_t)((double)(done - now) + j);
    t.deadline = done;
    t.model_latency_ns = (uint64_t)(closed + j);
    return t;
  }
  t.deadline = now + (uint64_t)((double)(done - now) * factor);
  t.model_latency_ns = (uint64_t)(closed * factor);
  return t;
}

double zkv_profile_write_ns_per_byte(const zkv_profile *p) {
  if (zkv_profile_is_instant(p)) return 0;
  if (p->device_write_mbps) return 1000.0 / p->device_write_mbps;
  return (double)zkv_curve_at(&p->write_gap, 64 * 1024) / (64 * 1024);
}

static _Atomic uint64_t timed_completions, late_completions, worst_late_ns;

#define LATE_SLACK_NS 20000ull

void zkv_timing_observe(uint64_t submitted, uint64_t deadline, uint64_t observed) {
  if (!deadline) return;
  atomic_fetch_add_explicit(&timed_completions, 1, memory_order_relaxed);
  uint64_t modelled = deadline > submitted ? deadline - submitted : 0;
  if (observed <= deadline + LATE_SLACK_NS + modelled / 10) return;
  atomic_fetch_add_explicit(&late_completions, 1, memory_order_relaxed);
  uint64_t late = observed - deadline, worst = atomic_load_explicit(&worst_late_ns, memory_order_relaxed);
  while (late > worst && !atomic_compare_exchange_weak(&worst_late_ns, &worst, late)) {}
}

void zkv_emu_lateness_get(zkv_emu_lateness *out) {
  out->completions = atomic_load(&timed_completions);
  out->late = atomic_load(&late_completions);
  out->worst_late_ns = atomic_load(&worst_late_ns);
}

uint64_t zkv_now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Measured on the 2-core VM: with 1 ns timer slack a wake-up overshoots ~26 us at P50, ~47 us at
 * P99, so sleep until 60 us before the deadline and spin the rest. */
#define SPIN_WINDOW_NS 60000ull

static atomic_int spinners; /* threads of this process in the spin below */

static int cpus(void) {
  static int n;
  if (!n) {
    cpu_set_t set;
    int c = sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : 1;
    n = c > 0 ? c : 1;
  }
  return n;
}

void zkv_wait_until(uint64_t deadline) {
  static __thread int slack_set;
  if (!deadline) return;
  uint64_t now = zkv_now_ns();
  if (now >= deadline) return;
  if (deadline - now > SPIN_WINDOW_NS) {
    if (!slack_set) {
      prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
      slack_set = 1;
    }
    uint64_t wake = deadline - SPIN_WINDOW_NS;
    struct timespec ts = {(time_t)(wake / 1000000000ull), (long)(wake % 1000000000ull)};
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) != 0) {}
  }
  /* Spin, yielding only while this process has more spinning threads than CPUs (the demo runs 4
   * threads on 2 cores; a pure spin there starves the threads that still have to submit). A yield
   * with other processes busy hands the core to them for a whole time slice: with two CPU hogs a
   * QD1 zn540 append took 1-5 ms instead of 17 us when every spin yielded. */
  atomic_fetch_add_explicit(&spinners, 1, memory_order_relaxed);
  while (zkv_now_ns() < deadline)
    if (atomic_load_explicit(&spinners, memory_order_relaxed) > cpus()) sched_yield();
  atomic_fetch_sub_explicit(&spinners, 1, memory_order_relaxed);
}

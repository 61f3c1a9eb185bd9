#define _GNU_SOURCE
#include "timing.h"

#include <sched.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>

#include "zkv/device.h"

#define US(x) ((uint32_t)((x)*1000.0))

/* Numbers: WD ZN540 fio table (ZWAL artifact, notes/wal-papers-waltz-zwal.md §4.4): append QD1
 * 18.6/16.8/26.1 us and saturation 135.5K/149.5K IOPS (4/8 KiB); write QD1 14.7/15.0/22.6 us.
 * 16 KiB saturation is assumed bandwidth-bound (1.22 GB/s, as at 8 KiB). Reads are not in the
 * papers: assumed 70 us at 4 KiB (TLC NAND read), documented in docs/calibration.md. */
static const zkv_profile PROFILES[] = {
    {.name = "instant"},
    {.name = "zn540",
     .write_lat = {{US(14.7), US(15.0), US(22.6)}},
     .append_lat = {{US(18.6), US(16.8), US(26.1)}},
     .read_lat = {{US(70), US(75), US(85)}},
     .write_gap = {{US(7.38), US(6.69), US(13.38)}},
     .append_gap = {{US(7.38), US(6.69), US(13.38)}},
     .read_gap = {{US(2.0), US(4.0), US(8.0)}},
     .inflight_growth_ppm = 77000, /* 8 KiB QD2 mean 18.1 us vs QD1 16.8 us */
     .jitter_ppm = 190000,         /* QD1 p99 is ~19% above the mean (8 KiB append 20 vs 16.8 us, write 18 vs 15.0) */
     .reorders = 1,
     .report_ns = 50000,
     .mgmt_ns = 20000,
     .flush_ns = 10000},
    /* Samsung PM1731a (WALTZ): append ~93 us single-threaded, serialized per zone on the device;
     * single-zone report 6687 us. Writes assumed like appends (not given). */
    {.name = "pm1731a",
     .write_lat = {{US(90), US(93), US(100)}},
     .append_lat = {{US(90), US(93), US(100)}},
     .read_lat = {{US(80), US(85), US(95)}},
     .write_gap = {{US(90), US(93), US(100)}},
     .append_gap = {{US(90), US(93), US(100)}},
     .read_gap = {{US(2.0), US(4.0), US(8.0)}},
     .jitter_ppm = 30000,
     .per_zone_serial = 1,
     .report_ns = 6687000,
     .mgmt_ns = 50000,
     .flush_ns = 20000},
    /* ConfZNS / FEMU (ZWAL): 8 KiB append and write QD1 ~482 us; appends scale to QD32 at 35.5K IOPS. */
    {.name = "confzns",
     .write_lat = {{US(480), US(482.5), US(487)}},
     .append_lat = {{US(480), US(482.6), US(487)}},
     .read_lat = {{US(480), US(482), US(487)}},
     .write_gap = {{US(28.1), US(28.1), US(56.2)}},
     .append_gap = {{US(28.1), US(28.1), US(56.2)}},
     .read_gap = {{US(28.1), US(28.1), US(56.2)}},
     .inflight_growth_ppm = 27000, /* mean latency 482.6 us at QD1 -> 898.6 us at QD32 */
     .jitter_ppm = 10000,
     .reorders = 1,
     .report_ns = 500000,
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

uint64_t zkv_curve_at(const zkv_curve *c, uint64_t bytes) {
  /* points at 4, 8, 16 KiB; interpolate linearly in KiB, clamp the slope beyond 16 KiB */
  double kib = (double)bytes / 1024.0;
  double x0, x1, y0, y1;
  if (kib <= 8) {
    x0 = 4;
    x1 = 8;
    y0 = c->ns[0];
    y1 = c->ns[1];
  } else {
    x0 = 8;
    x1 = 16;
    y0 = c->ns[1];
    y1 = c->ns[2];
  }
  double y = y0 + (y1 - y0) * (kib - x0) / (x1 - x0);
  if (kib < 4) y = c->ns[0] * (0.75 + 0.25 * kib / 4); /* small I/O: mostly fixed cost */
  return y < 0 ? 0 : (uint64_t)y;
}

uint64_t zkv_rng_next(uint64_t *s) { /* splitmix64 */
  uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

uint64_t zkv_timing_deadline(const zkv_profile *p, const zkv_curve *lat, const zkv_curve *gap, zkv_pipe *pipe,
                             uint64_t bytes, uint32_t inflight, uint64_t now, uint64_t *rng) {
  if (zkv_profile_is_instant(p)) return 0;
  double l = (double)zkv_curve_at(lat, bytes);
  l *= 1.0 + (double)p->inflight_growth_ppm * inflight / 1e6;
  uint64_t done = now + (uint64_t)l;
  uint64_t g = pipe ? zkv_curve_at(gap, bytes) : 0;
  if (g) {
    uint64_t slot = (pipe->next_slot_ns > now ? pipe->next_slot_ns : now) + g;
    pipe->next_slot_ns = slot;
    if (slot > done) done = slot;
  }
  /* Jitter (+-jitter_ppm of the latency) goes on after the throughput limit: applied to the
   * latency alone, the pipe's strictly increasing slots hid it whenever the device was saturated,
   * so completions there were always in submission order. |jitter| < l keeps done > now. */
  if (p->jitter_ppm) {
    double u = (double)(zkv_rng_next(rng) >> 11) / 9007199254740992.0; /* [0,1) */
    done = (uint64_t)((double)done + (2 * u - 1) * p->jitter_ppm / 1e6 * l);
  }
  return done;
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

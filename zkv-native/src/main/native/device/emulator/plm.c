/* Predictable Latency Mode of the `plm` profile: per NVM Set a window (NVMe I/O Determinism:
 * DTWIN / NDWIN) and an internal job queue (IJQ) that the window suspends or runs. Parameters and
 * their sources are below and in docs/timing-model.md; nothing here is fitted to an output.
 *
 * Window clock: CLOCK_MONOTONIC, or a virtual clock (`clock=manual`) moved by plm_advance. State is
 * brought up to date lazily, at each event, so the model's decisions depend only on the clock's
 * readings at the events, never on when a thread happens to run. */
#define _GNU_SOURCE
#include "plm.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/backend.h"
#include "common/le_bytes.h"
#include "common/timing.h"

#define MS 1000000ull
#define SEC 1000000000ull

/* ---- parameters (paper: Vigil-KV, ATC'22; digest notes/plm-paper-vigil-kv.md) ---- */
#define DIES 16ull                  /* per set: 64 dies / 4 physical functions (§4) */
#define READ_NS 74000ull            /* DTWIN 4 KiB read mean (Fig. 8a); also the profile's read latency */
#define PROGRAM_NS 662000ull        /* a read behind a program: NDWIN max 736 us (Fig. 8a) - 74 us */
#define PROGRAM_UNIT (96ull << 10)  /* assumption: TLC one-shot program, 3 x 16 KiB pages x 2 planes */
#define GC_NS 9800000ull            /* a read behind GC: up to 9.8 ms (Fig. 2b) */
#define RECLAIM_NS 2500000ull       /* a read behind read reclaim: up to 2.5 ms (Fig. 2c) */
#define MAX_DTWIN_NS (60ull * SEC)  /* maxDTWIN, configured to 60 s (§5.2) */
#define MIN_NDWIN_NS (4ull * SEC)   /* minNDWIN, 4 s (§5.2); one value for Low and High */
#define BUFFER_BYTES (768ull << 20) /* DRAM write buffer: 3 GB / 4 sets (§4) */
#define READ_UNIT 4096ull           /* DTWIN Reads are counted in 4 KiB random reads (spec) */
/* Derived: the set programs PROGRAM_UNIT on all DIES per PROGRAM_NS (2.38 GB/s): flushing the
 * buffer at lockdown and migrating written data take bytes / that. The IJQ holds what one minNDWIN
 * retires (§5.2: "the shortest time to finish the internal tasks plus the backlog accumulated
 * during maxDTWIN"). maxDTWIN is bounded by read disturb, "the worst case where heavy reads on one
 * block could corrupt all its pages" (§5.2): a block (here a zone, the unit ZNS erases) read at one
 * die's full rate for maxDTWIN reaches the disturb limit, 810,810 reads, and is then reclaimed. A
 * DTWIN holds at most the set's highest read rate (DIES reads per READ_NS) for maxDTWIN: the DTWIN
 * Reads Typical, 12.97 M. */
#define CAPACITY_NS MIN_NDWIN_NS
#define DISTURB_LIMIT (MAX_DTWIN_NS / READ_NS)
#define READS_TYPICAL (DISTURB_LIMIT * DIES)

/* Event Type bits (log page 0x0A bytes 3:2). */
#define EV_READS_WARNING 0x1u
#define EV_TIME_WARNING 0x4u
#define EV_DTWIN_EXCEEDED 0x4000u /* autonomous exit: a typical or maximum value was exceeded */
#define EV_EXCURSION 0x8000u      /* autonomous exit: the IJQ overflowed (deterministic excursion) */

enum { WIN_DT = 1, WIN_ND = 2 };
enum { JOB_PROGRAM, JOB_RECLAIM, JOB_GC, JOBS };
static const uint64_t JOB_OP_NS[JOBS] = {PROGRAM_NS, RECLAIM_NS, GC_NS};

typedef struct plm_set {
  uint32_t first_zone, nr_zones;
  int enabled, win;
  uint64_t updated;            /* window clock time the state below describes */
  uint64_t dt_start, nd_start; /* when the current DTWIN / NDWIN began */
  uint64_t backlog[JOBS];      /* queued internal work, ns */
  uint64_t dirty;              /* bytes in the DRAM buffer, flushed at lockdown */
  uint64_t reads_in_dt;
  uint16_t events, enable_events;
  int pending, time_warned, reads_warned;
  uint64_t th_reads, th_writes, th_time_ms;
  uint64_t rng;
  zkv_emu_plm_stats st;
} plm_set;

struct plm_state {
  uint32_t nsets, nr_zones, scale;
  int manual;
  uint64_t virt;
  plm_set *sets;
  uint32_t *zone_reads; /* 4 KiB reads since the zone's last reclaim or reset */
};

static uint64_t max_dtwin(const plm_state *p) { return MAX_DTWIN_NS / p->scale; }
static uint64_t min_ndwin(const plm_state *p) { return MIN_NDWIN_NS / p->scale; }
static uint64_t capacity(const plm_state *p) { return CAPACITY_NS / p->scale; }
static uint64_t reads_typical(const plm_state *p) { return READS_TYPICAL / p->scale; }
static uint64_t disturb_limit(const plm_state *p) { return DISTURB_LIMIT / p->scale; }
static uint64_t program_ns(uint64_t bytes) { return bytes * PROGRAM_NS / (PROGRAM_UNIT * DIES); }
static uint64_t now(const plm_state *p) { return p->manual ? p->virt : zkv_now_ns(); }
static uint64_t backlog(const plm_set *s) {
  return s->backlog[JOB_PROGRAM] + s->backlog[JOB_RECLAIM] + s->backlog[JOB_GC];
}

plm_state *plm_create(uint32_t nr_zones, uint32_t sets, uint32_t scale, int manual, uint64_t seed) {
  plm_state *p = calloc(1, sizeof *p);
  if (!p || !(p->sets = calloc(sets, sizeof *p->sets)) || !(p->zone_reads = calloc(nr_zones, sizeof *p->zone_reads))) {
    if (p) free(p->sets);
    free(p);
    return NULL;
  }
  p->nsets = sets, p->nr_zones = nr_zones, p->scale = scale, p->manual = manual;
  p->virt = SEC;
  for (uint32_t i = 0; i < sets; i++) {
    plm_set *s = &p->sets[i];
    s->first_zone = (uint32_t)(((uint64_t)i * nr_zones + sets - 1) / sets);
    s->nr_zones = (uint32_t)(((uint64_t)(i + 1) * nr_zones + sets - 1) / sets) - s->first_zone;
    s->updated = now(p);
    s->rng = seed ^ (0x504C4Dull + i * 0x9E3779B97F4A7C15ull);
  }
  return p;
}

void plm_destroy(plm_state *p) {
  if (p) free(p->sets), free(p->zone_reads);
  free(p);
}

/* set i owns zones [ceil(i*n/sets), ceil((i+1)*n/sets)) */
uint32_t plm_set_index(const plm_state *p, uint32_t zone) {
  return (uint32_t)((uint64_t)zone * p->nsets / p->nr_zones);
}

static plm_set *set_of_zone(plm_state *p, uint32_t zone) { return &p->sets[plm_set_index(p, zone)]; }

static void event(plm_set *s, uint16_t bit) {
  s->events |= bit;
  if (s->enable_events & bit) s->pending = 1;
}

static void enter_ndwin(plm_set *s, uint64_t t, uint16_t why) {
  s->win = WIN_ND;
  s->nd_start = t;
  if (why) event(s, why), s->st.autonomous_exits++;
}

/* Internal work runs, oldest kind first (the buffer's programs, then reclaim, then GC). */
static void drain(plm_set *s, uint64_t ns) {
  for (int j = 0; j < JOBS && ns; j++) {
    uint64_t d = s->backlog[j] < ns ? s->backlog[j] : ns;
    s->backlog[j] -= d, ns -= d;
  }
}

static void check_overflow(plm_state *p, plm_set *s, uint64_t t) {
  if (s->win == WIN_DT && backlog(s) > capacity(p)) enter_ndwin(s, t, EV_EXCURSION);
}

/* Brings the set's state to window clock time t: a DTWIN that reached its maximum ends there, and
 * outside a DTWIN the engine works off its queue. */
static void update(plm_state *p, plm_set *s, uint64_t t) {
  if (t <= s->updated) return;
  uint64_t from = s->updated;
  if (s->enabled && s->win == WIN_DT) {
    uint64_t dt_end = s->dt_start + max_dtwin(p);
    if (s->th_time_ms && !s->time_warned && t >= s->dt_start + s->th_time_ms * MS)
      s->time_warned = 1, event(s, EV_TIME_WARNING);
    if (t < dt_end) {
      s->updated = t;
      return;
    }
    enter_ndwin(s, dt_end, EV_DTWIN_EXCEEDED);
    from = dt_end > from ? dt_end : from;
  }
  drain(s, t - from);
  s->updated = t;
}

/* The clock time an event at `t` happens at in the set's model: not before the end of a lockdown
 * (the request is held until then). */
static uint64_t event_time(plm_state *p, plm_set *s, uint64_t *hold) {
  uint64_t t = now(p);
  update(p, s, t);
  *hold = s->updated > t ? s->updated - t : 0;
  return s->updated > t ? s->updated : t;
}

/* Queued work is held in the set's time (all dies working), so while any is queued a read outside
 * DTWIN finds its die busy; the engine works in ops of the running kind's length (one program, one
 * reclaim, one GC burst) and the read arrives at a uniform point of one (seeded). The share of reads
 * that wait is then the engine's utilisation. */
static uint64_t stall(plm_set *s) {
  for (int j = 0; j < JOBS; j++) {
    if (!s->backlog[j]) continue;
    uint64_t d = zkv_rng_next(&s->rng) % JOB_OP_NS[j];
    s->st.reads_stalled++;
    if (d > s->st.max_stall_ns) s->st.max_stall_ns = d;
    return d;
  }
  return 0;
}

uint64_t plm_on_read(plm_state *p, uint32_t zone, uint64_t bytes, uint64_t service_ns) {
  plm_set *s = set_of_zone(p, zone);
  uint64_t hold, t = event_time(p, s, &hold), units = (bytes + READ_UNIT - 1) / READ_UNIT;
  int deterministic = s->enabled && s->win == WIN_DT, k = !deterministic;
  uint64_t extra = hold + (deterministic ? 0 : stall(s)), modelled = service_ns + extra;
  if (deterministic)
    s->st.reads_deterministic++;
  else
    s->st.reads_nondeterministic++;
  s->st.model_read_sum_ns[k] += modelled;
  if (modelled > s->st.model_read_max_ns[k]) s->st.model_read_max_ns[k] = modelled;
  if (modelled > 200000) s->st.model_reads_over_200us[k]++;
  if (deterministic) s->reads_in_dt += units;
  /* read disturb: a zone read to the limit since its last reclaim or reset is reclaimed */
  for (p->zone_reads[zone] += units; p->zone_reads[zone] >= disturb_limit(p); p->zone_reads[zone] -= disturb_limit(p)) {
    s->backlog[JOB_RECLAIM] += RECLAIM_NS;
    s->st.reclaim_jobs++;
  }
  if (deterministic) {
    if (s->th_reads && !s->reads_warned && s->reads_in_dt >= s->th_reads)
      s->reads_warned = 1, event(s, EV_READS_WARNING);
    if (s->reads_in_dt > reads_typical(p))
      enter_ndwin(s, t, EV_DTWIN_EXCEEDED);
    else
      check_overflow(p, s, t);
  }
  return extra;
}

uint64_t plm_on_write(plm_state *p, uint32_t zone, uint64_t bytes) {
  plm_set *s = set_of_zone(p, zone);
  uint64_t hold, t = event_time(p, s, &hold);
  /* DTWIN Writes Typical is 0: the set leaves DTWIN on its first write (paper §4.1: "write-free") */
  if (s->enabled && s->win == WIN_DT) enter_ndwin(s, t, EV_DTWIN_EXCEEDED), s->st.writes_in_dtwin++;
  s->backlog[JOB_PROGRAM] += program_ns(bytes); /* migration of the written data */
  if (s->enabled) {
    s->dirty += bytes;
    if (s->dirty > BUFFER_BYTES) { /* a full buffer flushes in the background */
      s->backlog[JOB_PROGRAM] += program_ns(s->dirty - BUFFER_BYTES);
      s->dirty = BUFFER_BYTES;
    }
  }
  return hold;
}

void plm_on_reset(plm_state *p, uint32_t zone) {
  plm_set *s = set_of_zone(p, zone);
  uint64_t hold, t = event_time(p, s, &hold);
  p->zone_reads[zone] = 0; /* erased */
  s->backlog[JOB_GC] += GC_NS;
  s->st.gc_jobs++;
  check_overflow(p, s, t);
}

/* Set Features 0x14 = DTWIN: NDWIN lasts at least its minimum (the spec's High after a DTWIN that
 * ran to its maximum, Low otherwise; one value here, as the paper gives one), then the lockdown
 * flushes the buffer; the command completes when DTWIN begins. */
static uint64_t request_dtwin(plm_state *p, plm_set *s, uint64_t t) {
  if (s->win == WIN_DT) return s->updated > t ? s->updated : t;
  uint64_t start = s->nd_start + min_ndwin(p);
  if (start < t) start = t;
  uint64_t lockdown = program_ns(s->dirty);
  drain(s, start - t);
  s->st.last_lockdown_ns = lockdown;
  s->st.last_lockdown_bytes = s->dirty;
  s->dirty = 0;
  s->win = WIN_DT;
  s->dt_start = start + lockdown;
  s->updated = s->dt_start;
  s->reads_in_dt = 0;
  s->time_warned = s->reads_warned = 0;
  s->st.dtwin_entries++;
  check_overflow(p, s, s->dt_start);
  return s->dt_start;
}

/* ---- admin commands ---- */

#define SC_INVALID_FIELD 0x002
#define SC_SEQUENCE_ERROR 0x00C
#define SC_INVALID_LOG_PAGE 0x109

static uint64_t ms_of(uint64_t ns) { return ns / MS; }

static void fill_log(plm_state *p, plm_set *s, uint8_t *b) {
  memset(b, 0, 512);
  b[0] = (uint8_t)(s->enabled ? s->win : 0);
  put16(b + 2, s->events);
  put64(b + 32, reads_typical(p));
  put64(b + 40, 0);
  put64(b + 48, ms_of(max_dtwin(p)));
  put64(b + 56, ms_of(min_ndwin(p)));
  put64(b + 64, ms_of(min_ndwin(p)));
  if (!s->enabled) return;
  /* Estimates: in DTWIN what remains of it (the first of the read budget, the reads the IJQ has
   * room for in the worst case, all on the set's most read zone, and the time maximum); in NDWIN
   * what a DTWIN entered now would give. */
  uint64_t in_dt = s->win == WIN_DT, used = backlog(s) < capacity(p) ? backlog(s) : capacity(p);
  uint64_t jobs_fit = (capacity(p) - (in_dt ? used : 0)) / RECLAIM_NS, worst = 0;
  for (uint32_t z = s->first_zone; z < s->first_zone + s->nr_zones; z++)
    if (p->zone_reads[z] > worst) worst = p->zone_reads[z];
  uint64_t reads_left = reads_typical(p) - (in_dt ? s->reads_in_dt : 0);
  uint64_t room = disturb_limit(p) - worst + jobs_fit * disturb_limit(p) - 1;
  uint64_t elapsed = in_dt && s->updated > s->dt_start ? s->updated - s->dt_start : 0;
  put64(b + 128, reads_left < room ? reads_left : room);
  put64(b + 136, 0);
  put64(b + 144, ms_of(max_dtwin(p) - (elapsed < max_dtwin(p) ? elapsed : max_dtwin(p))));
}

static void set_model_number(uint8_t *id) {
  static const char mn[] = "zkv emulated PLM device (profile plm)";
  memset(id + 24, ' ', 40);
  memcpy(id + 24, mn, sizeof mn - 1);
}

int plm_admin(plm_state *p, zkv_admin_cmd *c, uint64_t *wait_until) {
  *wait_until = 0;
  uint8_t *b = c->buf;
  uint32_t fid = c->cdw10 & 0xFF;
  if (c->opcode == NVME_ADMIN_IDENTIFY) {
    if ((c->cdw10 & 0xFF) != 0x01) return ZKV_ERR(SC_INVALID_FIELD);
    memset(b, 0, 4096);
    set_model_number(b);
    put32(b + 96, (1u << 2) | (1u << 5)); /* CTRATT: NVM Sets, Predictable Latency Mode */
    put16(b + 338, (uint16_t)p->nsets);   /* NSETIDMAX */
    return 0;
  }
  if (c->opcode == NVME_ADMIN_GET_LOG_PAGE) {
    uint32_t lid = c->cdw10 & 0xFF, lsi = c->cdw11 >> 16, rae = c->cdw10 & (1u << 15);
    if (c->cdw12 || c->cdw13) return ZKV_ERR(SC_INVALID_FIELD); /* no log page offsets */
    uint8_t page[512]; /* a 0x0A page, or a 0x0B page of at most ZKV_PLM_MAX_SETS ids */
    size_t n;
    if (lid == 0x0A) {
      if (lsi < 1 || lsi > p->nsets) return ZKV_ERR(SC_INVALID_FIELD);
      plm_set *s = &p->sets[lsi - 1];
      update(p, s, now(p));
      fill_log(p, s, page);
      n = 512;
      if (!rae) s->events = 0, s->pending = 0;
    } else if (lid == 0x0B) {
      uint64_t count = 0;
      for (uint32_t i = 0; i < p->nsets; i++) {
        update(p, &p->sets[i], now(p));
        if (p->sets[i].pending) put16(page + 8 + 2 * count++, (uint16_t)(i + 1));
      }
      put64(page, count);
      n = 8 + 2 * count;
    } else {
      return ZKV_ERR(SC_INVALID_LOG_PAGE);
    }
    memset(b, 0, c->len);
    memcpy(b, page, n < c->len ? n : c->len);
    return 0;
  }
  uint32_t id = c->cdw11 & 0xFFFF;
  if (id < 1 || id > p->nsets) return ZKV_ERR(SC_INVALID_FIELD);
  plm_set *s = &p->sets[id - 1];
  uint64_t t = now(p);
  update(p, s, t);
  if (c->opcode == NVME_ADMIN_GET_FEATURES) {
    if (fid == 0x14) {
      c->result = s->enabled ? (uint32_t)s->win : WIN_ND; /* a set without PLM is not deterministic */
      return 0;
    }
    memset(b, 0, 512);
    put16(b, s->enable_events);
    put64(b + 32, s->th_reads);
    put64(b + 40, s->th_writes);
    put64(b + 48, s->th_time_ms);
    c->result = (uint32_t)s->enabled;
    return 0;
  }
  if (fid == 0x13) { /* Set Features PLM Config */
    int enable = c->cdw12 & 1;
    s->enable_events = get16(b);
    s->th_reads = get64(b + 32), s->th_writes = get64(b + 40), s->th_time_ms = get64(b + 48);
    if (enable && !s->enabled) { /* assumption: PLM starts in NDWIN, its minimum counted from here */
      s->enabled = 1, s->win = WIN_ND, s->nd_start = t;
    } else if (!enable && s->enabled) { /* the buffer goes back to flushing in the background */
      s->enabled = 0;
      s->backlog[JOB_PROGRAM] += program_ns(s->dirty);
      s->dirty = 0, s->events = 0, s->pending = 0;
    }
    return 0;
  }
  uint32_t ws = c->cdw12 & 0x7; /* Set Features PLM Window */
  if (ws != WIN_DT && ws != WIN_ND) return ZKV_ERR(SC_INVALID_FIELD);
  if (!s->enabled) return ZKV_ERR(SC_SEQUENCE_ERROR);
  if (ws == WIN_ND) {
    if (s->win == WIN_DT) enter_ndwin(s, s->updated > t ? s->updated : t, 0);
    return 0;
  }
  uint64_t begins = request_dtwin(p, s, t);
  if (p->manual) {
    if (begins > p->virt) p->virt = begins;
  } else {
    *wait_until = begins;
  }
  return 0;
}

int plm_advance(plm_state *p, uint64_t ns) {
  if (!p->manual) return -EOPNOTSUPP;
  p->virt += ns;
  return 0;
}

int plm_stats(plm_state *p, uint32_t id, zkv_emu_plm_stats *out) {
  if (id < 1 || id > p->nsets) return -EINVAL;
  plm_set *s = &p->sets[id - 1];
  update(p, s, now(p));
  *out = s->st;
  out->first_zone = s->first_zone;
  out->nr_zones = s->nr_zones;
  out->window = s->enabled ? s->win : 0;
  out->backlog_ns = backlog(s);
  out->capacity_ns = capacity(p);
  out->dirty_bytes = s->dirty;
  out->clock_ns = now(p);
  return 0;
}

/* The emulated device's requests: the device's clock, each request checked against the zone state
 * machine (zone_state.c), timed by the model (timing.c) and carried out on the backing file, the
 * synchronous backend calls, zone management, reports and statistics. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "emu_internal.h"

/* ---------- clock ---------- */

uint64_t emu_now(emu_dev *dev) { return dev->virtual_clock ? atomic_load(&dev->vclock) : zkv_now_ns(); }

void emu_wait_until(emu_dev *dev, uint64_t deadline) {
  if (!dev->virtual_clock) {
    zkv_wait_until(deadline);
    return;
  }
  uint64_t t = atomic_load(&dev->vclock);
  while (deadline > t && !atomic_compare_exchange_weak(&dev->vclock, &t, deadline)) {}
}

uint64_t zkv_emu_clock_ns(zkv_dev *d) {
  d = dev_made_of(d); /* a plmarray: device runs on the clock of the device it is made of */
  return d->be == &zkv_emu_backend ? emu_now((emu_dev *)d) : 0;
}

/* ---------- requests ---------- */

/* Bytes of [rel, rel + len) of the zone a read sees, with mu held: up to the written end, stopping
 * at the first write under way that overlaps the range. A completed append above one still under
 * way (appends end out of order) is readable, as on a device: `readable` alone, the start of the
 * lowest write under way, hid it, and a ZWAL reader of a landed chunk got zeros. */
static uint64_t readable_prefix(emu_dev *dev, uint32_t zone, uint64_t rel, uint64_t len) {
  uint64_t end = dev->zs.zones[zone].written;
  if (rel >= end) return 0;
  uint64_t stop = rel + len < end ? rel + len : end;
  if (dev->writes_under_way[zone])
    for (size_t i = 0; i < dev->nd_len; i++) {
      const nd_rec *e = &dev->nd[i];
      if (e->inflight && e->zone == zone && e->rel < stop && e->rel + e->len > rel) stop = e->rel > rel ? e->rel : rel;
    }
  return stop - rel;
}

static const int FAULT_OF_OP[] = {ZKV_FAULT_READ, ZKV_FAULT_WRITE, ZKV_FAULT_APPEND, ZKV_FAULT_FLUSH};

/* The throughput pipe a zone's requests go through: the device's, or its NVM Set's (plm). */
static zkv_pipe *device_pipe(emu_dev *dev, uint32_t zone) {
  return dev->plm ? &dev->set_pipes[plm_set_index(dev->plm, zone)] : &dev->pipe;
}

/* The requests the device is still working on at `now`, the queue depth a new request meets in the
 * timing model: begun, and their deadline not yet passed. A request whose deadline has passed is
 * done as far as the device is concerned whether or not its completion has been reaped: ZWAL reaps
 * its appends only when its window needs room, and counting the finished ones kept every request
 * beside them at up to 32 more in flight (zn540's latency grows 5.9x from QD 1 to QD 64). */
static uint32_t busy_at(emu_dev *dev, uint64_t now) {
  uint32_t j = 0;
  for (uint32_t i = 0; i < dev->n_busy; i++)
    if (dev->busy[i] > now) dev->busy[j++] = dev->busy[i];
  return dev->n_busy = j;
}

/* A begun request's deadline joins the busy ones (no room to grow: it is left out, a lower queue
 * depth for the model, never an error). */
static void busy_add(emu_dev *dev, uint64_t deadline) {
  if (dev->n_busy == dev->cap_busy) {
    uint32_t cap = dev->cap_busy ? dev->cap_busy * 2 : 64;
    uint64_t *b = realloc(dev->busy, cap * sizeof *b);
    if (!b) return;
    dev->busy = b, dev->cap_busy = cap;
  }
  dev->busy[dev->n_busy++] = deadline;
}

/* An ended request leaves the busy ones (one entry of its deadline, if it is still there). */
static void busy_remove(emu_dev *dev, uint64_t deadline) {
  for (uint32_t i = 0; i < dev->n_busy; i++)
    if (dev->busy[i] == deadline) {
      dev->busy[i] = dev->busy[--dev->n_busy];
      return;
    }
}

int emu_io_begin(emu_dev *dev, emu_io *io) {
  const zkv_geometry *g = &dev->base.geo;
  const zkv_profile *p = dev->prof;
  uint64_t now = emu_now(dev);
  zkv_timing t;
  uint64_t *rng = io->rng ? io->rng : &dev->rng;
  int64_t zone = io->op == ZKV_OP_APPEND ? (int64_t)io->zone : (int64_t)(io->offset / g->zone_size);
  uint32_t cut_keep = 0;
  int rc = emu_fault_check(dev, FAULT_OF_OP[io->op], zone, &cut_keep);
  if (rc && rc != EMU_CUT_DURING) return rc;
  io->cut_keep = cut_keep; /* a write that gets under way, the power lost during it (emu_cut_during) */
  io->nd_id = 0;
  io->result = 0;
  io->submitted = now;
  uint32_t busy = busy_at(dev, now);
  switch (io->op) {
    case ZKV_OP_READ:
      if ((rc = zs_check_read(&dev->zs, io->offset, io->len))) return rc;
      io->file_off = dev->data_off + io->offset;
      {
        uint64_t rel = io->offset % g->zone_size, w = atomic_load_explicit(&dev->readable[zone], memory_order_acquire);
        io->valid = rel + io->len <= w ? io->len : (size_t)readable_prefix(dev, (uint32_t)zone, rel, io->len);
      }
      t = zkv_timing_deadline(p, &p->read_lat, &p->read_gap, device_pipe(dev, (uint32_t)zone), NULL, io->len, busy, now,
                              rng);
      io->deadline = t.deadline;
      if (dev->plm) io->deadline += plm_on_read(dev->plm, (uint32_t)zone, io->len, io->deadline - now);
      break;
    case ZKV_OP_WRITE:
    case ZKV_OP_APPEND: {
      int append = io->op == ZKV_OP_APPEND;
      uint64_t rel = append ? 0 : io->offset % g->zone_size, assigned;
      if (!append && io->offset / g->zone_size >= g->nr_zones) return ZKV_ERR(ZKV_NVME_LBA_OUT_OF_RANGE);
      if (zone >= g->nr_zones) return ZKV_ERR(ZKV_NVME_LBA_OUT_OF_RANGE);
      dev->writes_under_way[zone]++; /* before the write pointer moves: readable stays (on_zone_change) */
      if ((rc = zs_write(&dev->zs, (uint32_t)zone, rel, io->len, append, &assigned)) ||
          (rc = emu_nd_add(dev, (uint32_t)zone, assigned, io->len, &io->nd_id))) {
        dev->writes_under_way[zone]--;
        emu_publish_readable(dev, (uint32_t)zone);
        return rc;
      }
      io->file_off = dev->data_off + (uint64_t)zone * g->zone_size + assigned;
      io->result = append ? (int64_t)((uint64_t)zone * g->zone_size + assigned) : 0;
      zkv_pipe *pipe = p->per_zone_serial ? &dev->zone_pipes[zone] : device_pipe(dev, (uint32_t)zone);
      t = zkv_timing_deadline(p, append ? &p->append_lat : &p->write_lat, append ? &p->append_gap : &p->write_gap, pipe,
                              p->per_zone_serial ? &dev->ceiling : NULL, io->len, busy, now, rng);
      io->deadline = t.deadline;
      if (dev->plm) io->deadline += plm_on_write(dev->plm, (uint32_t)zone, io->len);
      if (append)
        dev->stats.appends++, dev->stats.bytes_appended += io->len;
      else
        dev->stats.writes++, dev->stats.bytes_written += io->len;
      break;
    }
    case ZKV_OP_FLUSH: {
      /* assumption: a flush covers what completed before it was submitted, and writes the cache's
       * dirty bytes out at the device's write bandwidth */
      uint64_t dirty = 0;
      for (size_t i = 0; i < dev->nd_len; i++)
        if (!dev->nd[i].inflight) dirty += dev->nd[i].len;
      emu_nd_flush(dev);
      t = (zkv_timing){0};
      io->deadline = zkv_profile_is_instant(p)
                         ? 0
                         : now + p->flush_ns + (uint64_t)((double)dirty * zkv_profile_write_ns_per_byte(p));
      dev->stats.flushes++;
      break;
    }
    default: return -EINVAL;
  }
  io->spacing_ns = t.spacing_ns;
  io->model_latency_ns = t.model_latency_ns;
  if (io->deadline > now) busy_add(dev, io->deadline);
  return 0;
}

int64_t emu_io_end(emu_dev *dev, emu_io *io, int64_t io_res) { return emu_io_end_seen(dev, io, io_res, 0); }

int64_t emu_io_end_seen(emu_dev *dev, emu_io *io, int64_t io_res, uint64_t seen) {
  busy_remove(dev, io->deadline);
  if (!dev->virtual_clock) zkv_timing_observe(io->submitted, io->deadline, seen ? seen : zkv_now_ns());
  int rc = 0;
  if (io->nd_id) rc = emu_nd_complete(dev, io->nd_id, io->flags & ZKV_IO_FUA);
  if (io->nd_id) { /* a write or append ends: its bytes are in the file, reads may see them */
    uint32_t zone = io->op == ZKV_OP_APPEND ? io->zone : (uint32_t)(io->offset / dev->base.geo.zone_size);
    dev->writes_under_way[zone]--;
    emu_publish_readable(dev, zone);
  }
  if (io->op == ZKV_OP_READ && io_res >= 0) dev->stats.reads++, dev->stats.bytes_read += io->len;
  if (io_res < 0) return io_res;
  if (rc) return rc;
  if (dev->dead) return -ENODEV;
  return io->result;
}

int emu_write_data(emu_dev *dev, const void *buf, size_t len, uint64_t file_off) {
  return emu_write_full(dev->fd, buf, len, file_off);
}

int emu_read_data(emu_dev *dev, const emu_io *io, size_t skip, void *buf, size_t n) {
  size_t from_file = io->valid <= skip ? 0 : (io->valid - skip < n ? io->valid - skip : n);
  memset((uint8_t *)buf + from_file, 0, n - from_file); /* above the write pointer */
  return from_file ? emu_read_full(dev->fd, buf, from_file, io->file_off + skip) : 0;
}

static __thread uint64_t *thread_model_time; /* zkv_emu_thread_model_time */

void zkv_emu_thread_model_time(uint64_t *sink) { thread_model_time = sink; }

/* The calling thread waited for a request modelled from `submitted` to `deadline`
 * (ThreadModelTime): its sink, if it registered one, counts the time and the request. */
static void count_model_time(uint64_t submitted, uint64_t deadline) {
  if (!thread_model_time) return;
  thread_model_time[0] += deadline > submitted ? deadline - submitted : 0;
  thread_model_time[1]++;
}

/* A synchronous request; reads deliver bytes [skip, skip + n) of it to buf. */
static int64_t sync_io_part(emu_dev *dev, emu_io *io, size_t skip, void *buf, size_t n) {
  pthread_mutex_lock(&dev->mu);
  int rc = emu_io_begin(dev, io);
  pthread_mutex_unlock(&dev->mu);
  if (rc) return rc;
  int64_t res = 0;
  if (io->op == ZKV_OP_READ)
    res = emu_read_data(dev, io, skip, buf, n);
  else if (io->op != ZKV_OP_FLUSH)
    res = emu_write_full(dev->fd, buf, io->len, io->file_off);
  if (io->cut_keep) emu_cut_during(dev, io);
  emu_wait_until(dev, io->deadline);
  count_model_time(io->submitted, io->deadline);
  pthread_mutex_lock(&dev->mu);
  res = emu_io_end(dev, io, res);
  pthread_mutex_unlock(&dev->mu);
  return res;
}

static int64_t sync_io(emu_dev *dev, emu_io *io, void *buf) { return sync_io_part(dev, io, 0, buf, io->len); }

/* A read on a device whose reads take no modelled time needs no timing state, so it skips the
 * lock (two lock round trips and the clock reads were most of the zone file system's per-read
 * cost with two readers, docs/zone-fs-performance.md). The zone's condition and write pointer are
 * read atomically; a concurrent write may or may not be seen, as on a real device. -EAGAIN: take
 * the locked path (a fault rule may hit reads, or the device lost power). */
static int read_unlocked(emu_dev *dev, emu_io *io, size_t skip, void *buf, size_t n) {
  if (atomic_load_explicit(&dev->read_fault_rules, memory_order_acquire) ||
      __atomic_load_n(&dev->dead, __ATOMIC_ACQUIRE))
    return -EAGAIN;
  const zkv_geometry *g = &dev->base.geo;
  int rc = zs_check_read(&dev->zs, io->offset, io->len);
  if (rc) return rc;
  uint64_t rel = io->offset % g->zone_size,
           w = atomic_load_explicit(&dev->readable[io->offset / g->zone_size], memory_order_acquire);
  if (rel + io->len > w) return -EAGAIN; /* past the lowest write under way: readable_prefix decides */
  io->valid = io->len;
  io->file_off = dev->data_off + io->offset;
  if ((rc = emu_read_data(dev, io, skip, buf, n))) return rc;
  zkv_stripe *mine = &dev->unlocked_read_counts[zkv_stripe_index()];
  atomic_fetch_add_explicit(&mine->a, 1, memory_order_relaxed);
  atomic_fetch_add_explicit(&mine->b, io->len, memory_order_relaxed);
  return 0;
}

/* Reads submitted together (dev_read_parallel), in parallel on the device: each is timed from now
 * as a request of its own, and all complete when the last one's deadline has passed. */
int emu_read_parallel(zkv_dev *d, int n, const uint64_t *offset, uint8_t *const *buf, const size_t *len) {
  emu_dev *dev = (emu_dev *)d;
  emu_io io[DEV_READ_PARALLEL_MAX];
  int begun = 0, rc = 0;
  uint64_t last = 0;
  pthread_mutex_lock(&dev->mu);
  for (; begun < n && !rc; begun++) {
    io[begun] = (emu_io){.op = ZKV_OP_READ, .offset = offset[begun], .len = len[begun]};
    if ((rc = emu_io_begin(dev, &io[begun]))) break;
    if (io[begun].deadline > last) last = io[begun].deadline;
  }
  pthread_mutex_unlock(&dev->mu);
  int64_t res[DEV_READ_PARALLEL_MAX] = {0};
  for (int i = 0; i < begun; i++) res[i] = emu_read_data(dev, &io[i], 0, buf[i], len[i]);
  emu_wait_until(dev, last);
  if (begun) count_model_time(io[0].submitted, last);
  pthread_mutex_lock(&dev->mu);
  for (int i = 0; i < begun; i++) {
    int64_t r = emu_io_end(dev, &io[i], res[i]);
    if (!rc && r < 0) rc = (int)r;
  }
  pthread_mutex_unlock(&dev->mu);
  return rc;
}

int emu_write(zkv_dev *dev, uint64_t offset, const void *buf, size_t len, int flags) {
  emu_io io = {.op = ZKV_OP_WRITE, .flags = flags, .offset = offset, .len = len};
  return (int)sync_io((emu_dev *)dev, &io, (void *)buf);
}

int64_t emu_append(zkv_dev *dev, uint32_t zone, const void *buf, size_t len, int flags) {
  emu_io io = {.op = ZKV_OP_APPEND, .flags = flags, .zone = zone, .len = len};
  return sync_io((emu_dev *)dev, &io, (void *)buf);
}

int emu_read(zkv_dev *d, uint64_t offset, void *buf, size_t len) {
  emu_dev *dev = (emu_dev *)d;
  emu_io io = {.op = ZKV_OP_READ, .offset = offset, .len = len};
  int rc = dev->unlocked_reads ? read_unlocked(dev, &io, 0, buf, len) : -EAGAIN;
  return rc != -EAGAIN ? rc : (int)sync_io(dev, &io, buf);
}

/* The model times and checks the whole aligned read; only the wanted bytes leave the file. */
int emu_read_part(zkv_dev *d, uint64_t offset, size_t len, size_t skip, void *out, size_t n) {
  emu_dev *dev = (emu_dev *)d;
  emu_io io = {.op = ZKV_OP_READ, .offset = offset, .len = len};
  int rc = dev->unlocked_reads ? read_unlocked(dev, &io, skip, out, n) : -EAGAIN;
  return rc != -EAGAIN ? rc : (int)sync_io_part(dev, &io, skip, out, n);
}

int emu_flush(zkv_dev *dev) {
  emu_io io = {.op = ZKV_OP_FLUSH};
  return (int)sync_io((emu_dev *)dev, &io, NULL);
}

int emu_report(zkv_dev *d, uint32_t first, zkv_zone *out, uint32_t n) {
  emu_dev *dev = (emu_dev *)d;
  pthread_mutex_lock(&dev->mu);
  int rc = dev->dead ? -ENODEV : 0;
  uint32_t count = 0;
  for (uint32_t i = first; !rc && i < dev->base.geo.nr_zones && count < n; i++, count++) {
    zs_entry *z = &dev->zs.zones[i];
    uint64_t start = (uint64_t)i * dev->base.geo.zone_size;
    out[count] = (zkv_zone){
        .start = start, .cap = dev->base.geo.zone_cap, .wp = start + z->written, .cond = z->cond, .index = i};
  }
  dev->stats.reports++;
  /* a report costs a fixed part and a part per zone descriptor returned */
  uint64_t deadline =
      zkv_profile_is_instant(dev->prof) ? 0 : emu_now(dev) + dev->prof->report_ns + count * dev->prof->report_zone_ns;
  pthread_mutex_unlock(&dev->mu);
  emu_wait_until(dev, deadline);
  return rc ? rc : (int)count;
}

int emu_zone_mgmt(zkv_dev *d, uint32_t zone, int action) {
  emu_dev *dev = (emu_dev *)d;
  pthread_mutex_lock(&dev->mu);
  uint32_t cut_keep = 0; /* rules that cut the power match writes only */
  int rc = emu_fault_check(dev, ZKV_FAULT_MGMT, zone, &cut_keep);
  uint64_t before = zone < dev->base.geo.nr_zones ? dev->zs.zones[zone].written : 0;
  if (!rc) rc = zs_mgmt(&dev->zs, zone, action);
  if (!rc && action == ZKV_ZONE_RESET) {
    /* Reads above the write pointer return zeros without touching the file, so the old data could
     * stay; discard=1 (the default) gives its space back to the host file system, so the backing
     * file takes about as much disk as the data it holds (a 100,000-record YCSB load took 433 MB
     * without, against 198 MB for RocksDB's default Env). */
    if (dev->discard) emu_punch(dev, zone, 0, before);
    if (dev->plm && before) plm_on_reset(dev->plm, zone);
    size_t j = 0; /* what was not durable in the zone is gone with the reset */
    for (size_t i = 0; i < dev->nd_len; i++)
      if (dev->nd[i].inflight || dev->nd[i].zone != zone) dev->nd[j++] = dev->nd[i];
    dev->nd_len = j;
    dev->stats.resets++;
  }
  uint64_t busy = dev->prof->mgmt_ns;
  if (!rc && action == ZKV_ZONE_FINISH) {
    /* assumption: the device pads the unwritten capacity at its write bandwidth (docs/timing-model.md) */
    if (dev->prof->finish_pads && before < dev->base.geo.zone_cap)
      busy += (uint64_t)((double)(dev->base.geo.zone_cap - before) * zkv_profile_write_ns_per_byte(dev->prof));
    /* The blocks a finish skips were not written since the zone's last reset, so they read as
     * zeros; a reset without discard left the old data in the file, and the write pointer of a
     * full zone no longer hides it. */
    if (before < dev->base.geo.zone_cap) emu_punch(dev, zone, before, dev->base.geo.zone_cap - before);
    dev->stats.finishes++;
  }
  uint64_t deadline = zkv_profile_is_instant(dev->prof) ? 0 : emu_now(dev) + busy;
  pthread_mutex_unlock(&dev->mu);
  emu_wait_until(dev, deadline);
  return rc;
}

int emu_stats(zkv_dev *d, zkv_dev_stats *out) {
  emu_dev *dev = (emu_dev *)d;
  pthread_mutex_lock(&dev->mu);
  *out = dev->stats;
  pthread_mutex_unlock(&dev->mu);
  for (int i = 0; i < ZKV_STRIPES; i++) {
    out->reads += atomic_load_explicit(&dev->unlocked_read_counts[i].a, memory_order_relaxed);
    out->bytes_read += atomic_load_explicit(&dev->unlocked_read_counts[i].b, memory_order_relaxed);
  }
  return 0;
}

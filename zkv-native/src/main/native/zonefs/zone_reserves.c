/* The rules every allocation is checked against, read from the zones' state under fs->mu: which
 * zones are held, which I/O class a zone serves, the files' purposes and the reserves each
 * purpose must leave (empty zones, unoccupied bytes), and what GC and the WAL reserve may take.
 * Nothing here decides or allocates (zone_alloc.c): the decisions' view (decisions.c) reads it
 * too. */
#define _GNU_SOURCE
#include <errno.h>
#include <string.h>

#include "zonefs_internal.h"

/* Active zones: partly written, or held while still empty (taken, first write not yet done). */
uint32_t active_data_zones(const zfs *fs) {
  uint32_t n = 0;
  for (uint32_t z = fs->sb.meta_zones; z < fs->g.nr_zones; z++)
    n += partly_written(fs, z) || (zone_held(&fs->zones[z]) && fs->zones[z].wp == fs->zones[z].start);
  return n;
}

static const char *base_name(const char *name) {
  const char *base = strrchr(name, '/');
  return base ? base + 1 : name;
}

static int is_metadata_file(const char *name) {
  const char *base = base_name(name);
  size_t n = strlen(base);
  return strncmp(base, "MANIFEST-", 9) == 0 || strcmp(base, "CURRENT") == 0 || strncmp(base, "OPTIONS-", 8) == 0 ||
         strcmp(base, "IDENTITY") == 0 || (n > 6 && strcmp(base + n - 6, ".dbtmp") == 0);
}

/* RocksDB's WAL files are NNNNNN.log (the info log is LOG, without a dot). */
int is_wal_file(const char *name) {
  const char *base = base_name(name);
  size_t n = strlen(base);
  return n > 4 && strcmp(base + n - 4, ".log") == 0;
}

/* RocksDB's table files: NNNNNN.sst. */
int is_sst_file(const char *name) {
  const char *base = base_name(name);
  size_t n = strlen(base);
  return n > 4 && strcmp(base + n - 4, ".sst") == 0;
}

/* RocksDB's info logs: LOG, and LOG.old.<time> once rolled. */
int is_info_log_file(const char *name) {
  const char *base = base_name(name);
  return strcmp(base, "LOG") == 0 || strncmp(base, "LOG.old.", 8) == 0;
}

int purpose_of(const fobj *f, int for_gc) {
  const char *name = f->m.n_names ? f->m.names[0] : "";
  if (for_gc) return FOR_GC;
  if (is_metadata_file(name)) return FOR_METADATA;
  if (f->space_class == ZFS_SPACE_COMPACTION) return FOR_COMPACTION;
  if (f->space_class == ZFS_SPACE_RECOVERY_FLUSH || f->space_class == ZFS_SPACE_OPENING_WAL) return FOR_RECOVERY;
  return is_wal_file(name) ? FOR_WAL : FOR_FREEING;
}

static int serves_meta_groups(int cls) { return cls == ZKV_CLASS_WAL || cls == ZKV_CLASS_META; }

/* Whether WAL zones and other files' zones are kept apart: where the device binds zones to a class
 * (a plmarray:), and on every device in ZWAL mode (docs/wal.md, "WAL zones"): a zone a WAL started
 * holds only WAL chunks, so the WAL's delete empties it (reset without copy) and the WAL's appends
 * never queue behind another file's writes in it. */
int zones_apart(const zfs *fs) {
  return (fs->g.flags & ZKV_GEO_CLASS_BOUND_ZONES) || atomic_load(&fs->wal_mode) == ZFS_WAL_ZWAL;
}

int wal_zone_apart(const zfs *fs, uint32_t z) {
  return !classes_bind_zones(fs) && atomic_load(&fs->wal_mode) == ZFS_WAL_ZWAL &&
         fs->zones[z].io_class == ZKV_CLASS_WAL && fs->zones[z].wp > fs->zones[z].start;
}

/* Empty zones each share can still give. Where zones serve one class, the device has
 * meta_class_zones zones for the WAL and metadata and the rest for other data (a plmarray:'s
 * meta and stripe groups): the file system's own metadata zones count as always taken from the
 * first share (its log moves between them), and WAL zones beyond the rest of it are in the second
 * (the device puts the WAL there once its own groups are bound; SST data it never puts in the
 * first, where a Get would read a set whose PLM is off). Elsewhere both are the empty zones. */
typedef struct share_room {
  uint32_t wal, other;
  uint32_t wal_used, wal_share; /* zones in use serving the WAL's class, its share (bound only) */
} share_room;

static share_room room_by_share(const zfs *fs) {
  uint32_t empty = 0, wal = 0, other = 0;
  for (uint32_t z = fs->sb.meta_zones; z < fs->g.nr_zones; z++) {
    const zone_state *s = &fs->zones[z];
    if (!zone_held(s) && s->wp == s->start)
      empty++;
    else if (serves_meta_groups(s->io_class))
      wal++;
    else
      other++;
  }
  share_room r = {empty, empty, wal, 0};
  if (!classes_bind_zones(fs)) return r;
  uint32_t mz = fs->g.meta_class_zones;
  uint32_t wal_share = mz > fs->sb.meta_zones ? mz - fs->sb.meta_zones : 0;
  r.wal_share = wal_share;
  uint32_t other_share = fs->g.nr_zones > mz ? fs->g.nr_zones - mz : 0;
  uint32_t other_used = other + (wal > wal_share ? wal - wal_share : 0);
  r.wal = wal < wal_share ? wal_share - wal : 0;
  r.other = other_share > other_used ? other_share - other_used : 0;
  if (r.wal > empty) r.wal = empty;
  if (r.other > empty) r.other = empty;
  return r;
}

/* The class a writer of class cls writes as: its own, except that a WAL past its share writes
 * where SST data goes, as SST data (io_class_in); SST data never goes where the WAL is. */
static int class_to_take(const zfs *fs, int cls) {
  return classes_bind_zones(fs) && serves_meta_groups(cls) && room_by_share(fs).wal == 0 ? ZKV_CLASS_INTERNAL : cls;
}

int zone_takes_class(const zfs *fs, const zone_state *s, int cls) {
  if (!zones_apart(fs) || s->wp == s->start || s->io_class == ZKV_CLASS_NONE || s->io_class == cls) return 1;
  return s->io_class == class_to_take(fs, cls);
}

void take_zone_class(zfs *fs, uint32_t z, int cls) {
  zone_state *s = &fs->zones[z];
  if (s->wp == s->start) s->io_class = (uint8_t)class_to_take(fs, cls);
}

uint64_t free_bytes_for_data(const zfs *fs) {
  uint64_t n = 0;
  int bound = classes_bind_zones(fs);
  for (uint32_t z = fs->sb.meta_zones; z < fs->g.nr_zones; z++) {
    const zone_state *s = &fs->zones[z];
    if (atomic_load_explicit(&s->lease_owner, memory_order_relaxed)) continue; /* its owner's room */
    if ((s->wp != s->start || zone_held(s)) && (!bound || !serves_meta_groups(s->io_class)))
      n += zone_end(fs, z) - s->wp;
  }
  /* Empty zones a data file may start (where zones serve one class, those of the non-WAL share);
   * two are GC's and the metadata files' (the reserves), and the over-provisioning reserve GC's,
   * not free for data. */
  uint32_t usable = room_by_share(fs).other, kept = 2 + fs->op_zones;
  usable = usable > kept ? usable - kept : 0;
  return n + (uint64_t)usable * fs->g.zone_cap;
}

/* Empty zones an allocation of this purpose must leave: GC none, metadata files one (GC's), data
 * files two (GC's and the metadata files'). Data files also leave the over-provisioning reserve
 * (zfs_set_op_zones) to GC's copies; RocksDB's metadata files and the flush that replays a WAL at
 * open do not, so that a device full to its reserve still reopens. */
static uint32_t empty_zones_to_leave(const zfs *fs, int purpose) {
  if (purpose == FOR_GC) return 0;
  if (purpose == FOR_METADATA) return 1;
  return purpose == FOR_RECOVERY ? 2u : 2u + fs->op_zones;
}

/* Whether an allocation of this purpose (and I/O class) may start an empty zone without eating
 * into the reserves (empty_zones_to_leave). Where zones serve one class, the reserves are in the
 * share GC and RocksDB's metadata files write to; the WAL's own share keeps none, and a WAL that
 * has used it up goes on in the other share. */
int may_take_empty_zone(const zfs *fs, int purpose, int cls) {
  share_room r = room_by_share(fs);
  if (classes_bind_zones(fs) && serves_meta_groups(cls) && r.wal > 0) return 1;
  return r.other > empty_zones_to_leave(fs, purpose);
}

uint32_t empty_zones_kept(const zfs *fs, int purpose, int cls) {
  share_room r = room_by_share(fs);
  if (classes_bind_zones(fs) && serves_meta_groups(cls) && r.wal > 0) return 0;
  uint32_t leave = empty_zones_to_leave(fs, purpose), empty = 0;
  for (uint32_t z = fs->sb.meta_zones; z < fs->g.nr_zones; z++)
    empty += !zone_held(&fs->zones[z]) && fs->zones[z].wp == fs->zones[z].start;
  uint32_t may_start = r.other > leave ? r.other - leave : 0;
  return empty > may_start ? empty - may_start : 0;
}

int zfs_set_op_zones(zfs *fs, uint32_t zones) {
  /* where zones serve one class, data writers have the non-WAL share only */
  uint32_t io_zones = fs->g.nr_zones - (classes_bind_zones(fs) ? fs->g.meta_class_zones : fs->sb.meta_zones);
  if (zones > 0 && (uint64_t)zones + 2 + ZFS_MIN_DATA_ZONES > io_zones) return -EINVAL;
  pthread_mutex_lock(&fs->mu);
  fs->op_zones = zones;
  pthread_mutex_unlock(&fs->mu);
  return 0;
}

int zfs_set_strict_no_space(zfs *fs, int on) {
  pthread_mutex_lock(&fs->mu);
  fs->strict_no_space = on != 0;
  pthread_mutex_unlock(&fs->mu);
  return 0;
}

int no_space_is_final(const zfs *fs, int purpose) {
  return fs->strict_no_space && purpose != FOR_GC && purpose != FOR_METADATA && purpose != FOR_RECOVERY;
}

/* Bytes no live data occupies: every data zone's capacity less its live blocks, whether unwritten
 * or garbage that GC gets back. */
uint64_t unoccupied_bytes(const zfs *fs) {
  uint64_t n = 0;
  for (uint32_t z = fs->sb.meta_zones; z < fs->g.nr_zones; z++) {
    uint64_t live = fs->zones[z].live_phys;
    n += live < fs->g.zone_cap ? fs->g.zone_cap - live : 0;
  }
  return n;
}

/* The space reserve (safety rule, counted in reserve_refusals): a writer gets a new zone only while
 * more than its tier's reserve of unoccupied bytes (zone capacities) is left, so that what frees
 * space can always run on a device that stopped taking writes. Tiers, from the last reserve up:
 * GC, RocksDB's metadata files and the flush that replays a WAL at open (and the WAL that open
 * creates, for its first zone) none (the empty-zone rule keeps GC's and the metadata's; without
 * that flush a stopped database cannot reopen, and live flushes may have used the flushes' tier
 * down to its end while the WAL still had room in its zone); flushes (their WAL is
 * deleted after), compactions the user asked for (run after deleting data, their inputs deleted
 * after), the info log and other files one zone; WAL files, the one way a database grows, two;
 * automatic compactions, which need their whole output before the inputs go, three: they stop
 * first, so a device is never filled by a compaction's transient copy. */
uint64_t space_reserve(const zfs *fs, int purpose) {
  static const uint32_t zones[] = {
      [FOR_GC] = 0, [FOR_METADATA] = 0, [FOR_RECOVERY] = 0, [FOR_FREEING] = 1, [FOR_WAL] = 2, [FOR_COMPACTION] = 3};
  /* Data writers never use the over-provisioning zones: their tiers stand above them, or empty OP
   * zones would count as room and compactions would never stop first. */
  uint32_t op = empty_zones_to_leave(fs, purpose) > 2 ? fs->op_zones : 0;
  return (uint64_t)(zones[purpose] + op) * fs->g.zone_cap;
}

int within_space_reserve(const zfs *fs, int purpose) { return unoccupied_bytes(fs) > space_reserve(fs, purpose); }

int gc_spares_wal_share(const zfs *fs, int cls) {
  if (!classes_bind_zones(fs) || cls != ZKV_CLASS_INTERNAL) return 0;
  /* An SST writer needs room in the non-WAL share: a zone of that share, or a WAL zone past the
   * WAL's share (it counts in the other), frees some; a WAL zone within its share does not, and
   * moving its live data would take the room the writer waits for. (A WAL writer gains from any
   * victim: a WAL zone's room is its own share's, another zone's the share it goes on in.) */
  share_room r = room_by_share(fs);
  return r.wal_used <= r.wal_share;
}

int victim_helps(const zfs *fs, uint32_t zone, int spare_wal_share) {
  return !spare_wal_share || !serves_meta_groups(fs->zones[zone].io_class);
}

/* A zone GC may empty now: a full data zone nobody holds, whose live data occupies less than the
 * zone (by blocks: a zone of padded WAL syncs holds little live data but moving it frees nothing)
 * and at most max_live bytes. */
int victim_eligible(zfs *fs, uint32_t zone, uint64_t max_live) {
  zone_state *s = &fs->zones[zone];
  return zone >= fs->sb.meta_zones && !zone_held(s) && s->wp >= zone_end(fs, zone) && s->live_phys < fs->g.zone_cap &&
         s->live_phys <= max_live;
}

void fill_zone_info(zfs *fs, uint32_t zone, zfs_zone_info *out) {
  zone_state *z = &fs->zones[zone];
  *out = (zfs_zone_info){.index = zone,
                         .start = z->start,
                         .capacity = fs->g.zone_cap,
                         .wp = z->wp,
                         .live = z->live,
                         .lifetime = z->lifetime,
                         .meta = zone < fs->sb.meta_zones,
                         .busy = zone_held(z),
                         .copy = z->live_phys,
                         .victim_ok = victim_eligible(fs, zone, UINT64_MAX),
                         .tag = z->tag,
                         .io_class = zones_apart(fs) ? z->io_class : ZKV_CLASS_NONE,
                         .owner_file = z->owner ? z->owner->m.id : ZFS_NO_OWNER,
                         .wal_reserved = z->wal_reserved,
                         .leased = atomic_load_explicit(&z->lease_owner, memory_order_relaxed) != 0};
}

/* Whether the WAL reserve may keep one more empty zone: within the WAL's own share while it has
 * room (zones serving one class), else only while the empty zones beyond the reserves (GC's, the
 * metadata files', over-provisioning) outnumber the reserve's target, so that the writers keep as
 * many to start as the reserve holds. Without that margin a reserve filled on a nearly full device
 * took the last empty zones a flush's policy asked for, once the WALs had used the reserved ones
 * and nothing was left to give back: a forced placement (RESERVE override) where the policy's own
 * answer had held before. */
int reserve_may_keep_one_more(const zfs *fs, uint32_t target) {
  share_room r = room_by_share(fs);
  if (classes_bind_zones(fs) && r.wal > 0) return 1;
  return r.other > empty_zones_to_leave(fs, FOR_WAL) + target;
}

int lease_finds_empty_zone(const zfs *fs) {
  return within_space_reserve(fs, FOR_WAL) && reserve_may_keep_one_more(fs, 0);
}

int zfs_lease_room(zfs *fs) {
  pthread_mutex_lock(&fs->mu);
  uint32_t other = room_by_share(fs).other, leave = empty_zones_to_leave(fs, FOR_WAL);
  int n = within_space_reserve(fs, FOR_WAL) && other > leave ? (int)(other - leave) : 0;
  pthread_mutex_unlock(&fs->mu);
  return n;
}

int any_write_in_flight(const zfs *fs) {
  for (uint32_t z = fs->sb.meta_zones; z < fs->g.nr_zones; z++)
    if (fs->zones[z].busy) return 1;
  return 0;
}

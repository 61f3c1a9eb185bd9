/* Readers and what excludes them: a read (zfs_pread) marks itself in its own stripe instead of
 * sharing a lock; GC's swap and a reopen wait until no read is in progress and keep new ones out
 * (fs->readers, io_lock, excluding). Lock order: readers_exclude before fs->mu. */
#define _GNU_SOURCE
#include <sched.h>
#include <time.h>

#include "zonefs_internal.h"

/* Readers mark themselves in their own stripe: sequentially consistent with readers_exclude's
 * store of `excluding` and its look at the stripes, so either the reader sees the exclusion or
 * the excluder sees the reader. */
zkv_stripe *readers_enter(zfs *fs) {
  zkv_stripe *mine = &fs->readers[zkv_stripe_index()];
  for (;;) {
    atomic_fetch_add(&mine->a, 1);
    if (!atomic_load(&fs->excluding)) return mine;
    atomic_fetch_sub(&mine->a, 1);
    pthread_rwlock_rdlock(&fs->io_lock); /* waits until the exclusion ends */
    pthread_rwlock_unlock(&fs->io_lock);
  }
}

void readers_exit(zkv_stripe *mine) { atomic_fetch_sub_explicit(&mine->a, 1, memory_order_release); }

/* Waits until no read is in progress and keeps new ones out until readers_admit. */
void readers_exclude(zfs *fs) {
  pthread_rwlock_wrlock(&fs->io_lock);
  atomic_store(&fs->excluding, 1);
  /* Most reads take microseconds; one that waits behind a device's internal work takes
   * milliseconds (a GC stall on the plm profile: 9.8 ms), and spinning then would take the core
   * the reader's completion may need: a few yields, then short sleeps. */
  for (int i = 0; i < ZKV_STRIPES; i++)
    for (unsigned spins = 0; atomic_load(&fs->readers[i].a); spins++)
      if (spins < 64)
        sched_yield();
      else
        nanosleep(&(struct timespec){.tv_nsec = 50 * 1000}, NULL);
}

void readers_admit(zfs *fs) {
  atomic_store(&fs->excluding, 0);
  pthread_rwlock_unlock(&fs->io_lock);
}

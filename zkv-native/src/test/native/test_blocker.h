/* A policy call-out that, once armed, blocks until the test releases it: the C tests' way to hold
 * a call-out in flight while other threads must go on (test_zonefs_decisions.c,
 * test_zonefs_wal_reserve.c). Every wait is bounded: a deadlock fails the test instead of hanging. */
#ifndef ZKV_TEST_BLOCKER_H
#define ZKV_TEST_BLOCKER_H
#include <errno.h>
#include <pthread.h>
#include <string.h>
#include <time.h>

#define BLOCK_BOUND_SECONDS 60 /* a call-out waits this long at most for the other writer */

/* A call-out that, once armed, blocks until released; says when it entered and whether its wait
 * ran out (the other writer could not finish: the deadlock this file is about). */
typedef struct blocker {
  pthread_mutex_t mu;
  pthread_cond_t cv;
  int armed, entered, released, timed_out, calls;
} blocker;

static __attribute__((unused)) void blocker_init(blocker *b) {
  memset(b, 0, sizeof *b);
  pthread_mutex_init(&b->mu, NULL);
  pthread_cond_init(&b->cv, NULL);
}

static __attribute__((unused)) void blocker_destroy(blocker *b) {
  pthread_mutex_destroy(&b->mu);
  pthread_cond_destroy(&b->cv);
}

/* In a call-out: counts the call; if armed, blocks (once) until released or the bound. */
static __attribute__((unused)) void blocker_enter(blocker *b) {
  pthread_mutex_lock(&b->mu);
  b->calls++;
  if (b->armed && !b->entered) {
    b->entered = 1;
    pthread_cond_broadcast(&b->cv);
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += BLOCK_BOUND_SECONDS;
    while (!b->released && !b->timed_out)
      if (pthread_cond_timedwait(&b->cv, &b->mu, &until) == ETIMEDOUT) b->timed_out = 1;
  }
  pthread_mutex_unlock(&b->mu);
}

/* From now on the next call-out blocks. */
static __attribute__((unused)) void blocker_arm(blocker *b) {
  pthread_mutex_lock(&b->mu);
  b->armed = 1;
  pthread_mutex_unlock(&b->mu);
}

static __attribute__((unused)) void blocker_wait_entered(blocker *b) {
  pthread_mutex_lock(&b->mu);
  while (!b->entered) pthread_cond_wait(&b->cv, &b->mu);
  pthread_mutex_unlock(&b->mu);
}

static __attribute__((unused)) void blocker_release(blocker *b) {
  pthread_mutex_lock(&b->mu);
  b->released = 1;
  pthread_cond_broadcast(&b->cv);
  pthread_mutex_unlock(&b->mu);
}

#endif

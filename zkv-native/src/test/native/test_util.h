/* Minimal assertion helpers for the C tests: a failed check prints where and exits non-zero. */
#ifndef ZKV_TEST_UTIL_H
#define ZKV_TEST_UTIL_H
#include <stdio.h>
#include <stdlib.h>

static int checks_run; /* counted atomically: tests check from several threads */
#define CHECK(cond)                                                            \
  do {                                                                         \
    __atomic_fetch_add(&checks_run, 1, __ATOMIC_RELAXED);                      \
    if (!(cond)) {                                                             \
      fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
      exit(1);                                                                 \
    }                                                                          \
  } while (0)
#define CHECK_EQ(a, b)                                                                                 \
  do {                                                                                                 \
    long long _a = (long long)(a), _b = (long long)(b);                                                \
    __atomic_fetch_add(&checks_run, 1, __ATOMIC_RELAXED);                                              \
    if (_a != _b) {                                                                                    \
      fprintf(stderr, "%s:%d: %s == %lld, expected %s == %lld\n", __FILE__, __LINE__, #a, _a, #b, _b); \
      exit(1);                                                                                         \
    }                                                                                                  \
  } while (0)
#define TEST_DONE(name) printf("%s: %d checks passed\n", name, checks_run)
#endif

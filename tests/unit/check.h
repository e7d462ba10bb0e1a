/* A minimal check macro for the unit tests: count, print failures with their line. */
#ifndef TU_CHECK_H
#define TU_CHECK_H

#include <stdio.h>
#include <string.h>

static int tu_checks, tu_failures;

#define CHECK(cond, ...)                                  \
  do {                                                    \
    tu_checks++;                                          \
    if (!(cond)) {                                        \
      tu_failures++;                                      \
      printf("FAIL %s:%d: ", __FILE__, __LINE__);         \
      printf(__VA_ARGS__);                                \
      printf("\n");                                       \
    }                                                     \
  } while (0)

/* Does s contain sub (NULL-safe)? */
static inline int tu_contains(const char *s, const char *sub) {
  return s && sub && strstr(s, sub) != NULL;
}

static inline int tu_done(const char *name) {
  printf("%s: %s: %d checks, %d failures\n", tu_failures ? "FAILED" : "PASSED", name, tu_checks,
         tu_failures);
  return tu_failures ? 1 : 0;
}

#endif

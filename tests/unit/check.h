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

/* Expect status `want` from a call on the test's context `ctx` (the including file's),
 * with every one of the strings in its message. */
#define TU_EXPECT(call, want, ...)                                                               \
  do {                                                                                        \
    tally_status s_ = (call);                                                                 \
    CHECK(s_ == (want), "%s: %s, expected %s (%s)", #call, tally_status_name(s_),             \
          tally_status_name(want), tally_errmsg(ctx));                                        \
    const char *parts_[] = {__VA_ARGS__};                                                     \
    if (s_ != TALLY_OK)                                                                       \
      for (size_t i_ = 0; i_ < sizeof parts_ / sizeof *parts_; i_++)                          \
        CHECK(tu_contains(tally_errmsg(ctx), parts_[i_]), "%s: message does not name '%s': %s", \
              #call, parts_[i_], tally_errmsg(ctx));                                          \
  } while (0)

static inline int tu_done(const char *name) {
  printf("%s: %s: %d checks, %d failures\n", tu_failures ? "FAILED" : "PASSED", name, tu_checks,
         tu_failures);
  return tu_failures ? 1 : 0;
}

#endif

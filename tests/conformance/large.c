/* tally_large [DEVICE]: inputs of 2^31 + 1 and 2^32 + 3 one-byte elements (u8, i8, bool)
 * for SUM, MAX, ARGMAX and COUNT_NONZERO, a u8 histogram of 100 bins, and (last, in place)
 * a MAX scan of the 2^32 + 3 bytes: 64-bit sizes and indices. x[i] = i mod 100, except
 * 127 at p1 and 255 at p2 > p1 near the end (the maxima for i8 and u8), so every
 * expected value has a closed form. Exit 77 when free memory is under twice the need. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tally.h"

static int failures;

static void check(const char *what, int64_t n, tally_dtype dt, tally_status st, uint64_t got,
                  uint64_t want) {
  if (st != TALLY_OK || got != want) {
    failures++;
    printf("FAIL %s %s n=%" PRId64 ": %s, got %" PRIu64 ", expected %" PRIu64 "\n", what,
           tally_dtype_name(dt), n, tally_status_name(st), got, want);
  } else {
    printf("ok   %s %s n=%" PRId64 " = %" PRIu64 "\n", what, tally_dtype_name(dt), n, got);
  }
  fflush(stdout);
}

int main(int argc, char **argv) {
  const char *device = argc > 1 ? argv[1] : "cpu";
  const int64_t sizes[2] = {((int64_t)1 << 31) + 1, ((int64_t)1 << 32) + 3};
  const int64_t need = sizes[1];
  long pages = sysconf(_SC_AVPHYS_PAGES), psize = sysconf(_SC_PAGESIZE);
  if (pages > 0 && psize > 0 && (int64_t)pages * psize < 2 * need) {
    printf("SKIP: %.1f GB free, the test needs twice %.1f GB\n", (double)pages * psize / 1e9,
           (double)need / 1e9);
    return 77;
  }
  tally_context *ctx;
  tally_status s = tally_open(device, &ctx);
  tally_options opt; /* on a GPU, its kernels (AUTO: host arrays may be reduced on the host) */
  tally_options_init(&opt);
  opt.host_input = TALLY_HOST_INPUT_DEVICE;
  if (s == TALLY_EUNSUPPORTED || s == TALLY_ENODEV || s == TALLY_EDRIVER) {
    printf("SKIP: %s: %s\n", device, tally_errmsg(NULL));
    return 77;
  }
  if (s != TALLY_OK) {
    printf("FAIL: tally_open(%s): %s\n", device, tally_errmsg(NULL));
    return 1;
  }
  unsigned char *x = malloc((size_t)need);
  if (!x) {
    printf("SKIP: cannot allocate %" PRId64 " bytes\n", need);
    return 77;
  }
  for (int64_t i = 0; i < 100; i++) x[i] = (unsigned char)i;
  for (int64_t have = 100; have < need;) { /* doubling copies keep i mod 100 */
    int64_t len = have < need - have ? have : need - have;
    memcpy(x + have, x, (size_t)len);
    have += len;
  }
  for (int k = 0; k < 2; k++) {
    int64_t n = sizes[k], p1 = n - 1000 - 37, p2 = n - 2;
    unsigned char o1 = x[p1], o2 = x[p2];
    x[p1] = 127;
    x[p2] = 255;
    /* Σ (i mod 100) and the zeros among them, then the two replaced elements. */
    int64_t q = n / 100, r = n % 100;
    uint64_t base = (uint64_t)q * 4950 + (uint64_t)(r * (r - 1) / 2);
    int64_t zeros = q + (r > 0);
    uint64_t sum_u = base - o1 - o2 + 127 + 255;
    int64_t sum_i = (int64_t)base - o1 - o2 + 127 - 1;
    int64_t nonzero = n - zeros + (o1 == 0) + (o2 == 0);
    const tally_dtype dts[3] = {TALLY_U8, TALLY_I8, TALLY_BOOL};
    for (int d = 0; d < 3; d++) {
      tally_dtype dt = dts[d];
      tally_array in = tally_array_1d(x, dt, n);
      uint64_t r64 = 0;
      unsigned char r8 = 0;
      tally_array o64 = tally_array_1d(&r64, dt == TALLY_U8 ? TALLY_U64 : TALLY_I64, 1);
      tally_array o8 = tally_array_1d(&r8, dt, 1);
      s = tally_reduce(ctx, TALLY_SUM, &in, NULL, &o64, &opt);
      check("sum", n, dt, s, r64,
            dt == TALLY_U8 ? sum_u : dt == TALLY_I8 ? (uint64_t)sum_i : (uint64_t)nonzero);
      s = tally_reduce(ctx, TALLY_MAX, &in, NULL, &o8, &opt);
      check("max", n, dt, s, r8, dt == TALLY_U8 ? 255 : dt == TALLY_I8 ? 127 : 1);
      o64.dtype = TALLY_I64;
      s = tally_reduce(ctx, TALLY_ARGMAX, &in, NULL, &o64, &opt);
      check("argmax", n, dt, s, r64, dt == TALLY_U8 ? (uint64_t)p2 : dt == TALLY_I8 ? (uint64_t)p1 : 1);
      s = tally_reduce(ctx, TALLY_COUNT_NONZERO, &in, NULL, &o64, &opt);
      check("count_nonzero", n, dt, s, r64, (uint64_t)nonzero);
    }
    /* u8 histogram, bins [k, k+1) for k < 100: i mod 100 counts, 127 and 255 above. */
    uint64_t counts[100];
    tally_hist_stats hs;
    tally_hist_spec spec;
    tally_hist_spec_init(&spec);
    spec.nbins = 100;
    spec.lo = 0;
    spec.hi = 100;
    tally_array in = tally_array_1d(x, TALLY_U8, n), co = tally_array_1d(counts, TALLY_U64, 100);
    s = tally_histogram(ctx, &in, NULL, &spec, &co, NULL, &hs);
    uint64_t bad = 0;
    for (int64_t b = 0; b < 100 && s == TALLY_OK; b++) {
      uint64_t want = (uint64_t)(q + (b < r)) - (o1 == b) - (o2 == b);
      if (counts[b] != want) bad++;
    }
    check("histogram bins off", n, TALLY_U8, s, bad, 0);
    check("histogram above", n, TALLY_U8, s, (uint64_t)hs.above, 2);
    check("histogram n", n, TALLY_U8, s, (uint64_t)hs.n, (uint64_t)n);
    x[p1] = o1;
    x[p2] = o2;
  }
  /* An in-place MAX scan of all 2^32 + 3 bytes: i for i < 100, then 99. */
  {
    int64_t n = sizes[1];
    tally_array a = tally_array_1d(x, TALLY_U8, n);
    s = tally_scan(ctx, TALLY_MAX, &a, NULL, &a, NULL);
    const int64_t at[] = {0, 1, 57, 98, 99, 100, 12345, ((int64_t)1 << 31) + 1, ((int64_t)1 << 32) + 1,
                          n - 1};
    uint64_t bad = 0;
    for (size_t k = 0; k < sizeof at / sizeof *at && s == TALLY_OK; k++)
      if (x[at[k]] != (at[k] < 99 ? at[k] : 99)) bad++;
    for (int64_t i = 0; i < n && s == TALLY_OK && bad == 0; i += 4093) /* a sample of all */
      if (x[i] != (i < 99 ? i : 99)) bad++;
    check("max scan values off", n, TALLY_U8, s, bad, 0);
  }
  free(x);
  tally_close(ctx);
  printf("%s: %d failures\n", failures ? "FAILED" : "PASSED", failures);
  return failures ? 1 : 0;
}

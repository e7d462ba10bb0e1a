/* Small helpers of `tally bench`; see bench_util.h. */
#include "bench_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

int64_t bench_now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

void *bench_alloc(size_t bytes) {
  void *p = NULL;
  if (bytes == 0) bytes = 64;
  bytes = (bytes + 63) & ~(size_t)63; /* whole cache lines: the probe may read a padded tail */
  if (posix_memalign(&p, 64, bytes) != 0) return NULL;
  memset(p, 0, bytes); /* touches every page */
  return p;
}

void bench_free(void *p) { free(p); }

/* splitmix64: small, fast, and good enough for benchmark data. */
static uint64_t splitmix(uint64_t *s) {
  uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

/* ±[1, 64] or [1, 64]. */
static int64_t small_int(uint64_t r, int is_signed) {
  int64_t v = (int64_t)(r & 63) + 1;
  return (is_signed && (r & 64)) ? -v : v;
}

void bench_fill(void *p, tally_dtype t, int64_t n, uint64_t seed, uint64_t stream) {
  uint64_t s = seed * 0x2545f4914f6cdd1dull + stream * 0x9e3779b97f4a7c15ull + 1;
  for (int64_t i = 0; i < n; i++) {
    uint64_t r = splitmix(&s);
    switch (t) {
    case TALLY_BOOL: ((uint8_t *)p)[i] = 1; break;
    case TALLY_I8: ((int8_t *)p)[i] = (int8_t)small_int(r, 1); break;
    case TALLY_I16: ((int16_t *)p)[i] = (int16_t)small_int(r, 1); break;
    case TALLY_I32: ((int32_t *)p)[i] = (int32_t)small_int(r, 1); break;
    case TALLY_I64: ((int64_t *)p)[i] = small_int(r, 1); break;
    case TALLY_U8: ((uint8_t *)p)[i] = (uint8_t)small_int(r, 0); break;
    case TALLY_U16: ((uint16_t *)p)[i] = (uint16_t)small_int(r, 0); break;
    case TALLY_U32: ((uint32_t *)p)[i] = (uint32_t)small_int(r, 0); break;
    case TALLY_U64: ((uint64_t *)p)[i] = (uint64_t)small_int(r, 0); break;
    /* 0.5 + k·2^-m is exact in the type (see the header), so no rounding reaches 1.5. */
    case TALLY_F16: ((uint16_t *)p)[i] = tally_f32_to_f16(0.5f + (float)(r >> 54) * 0x1p-10f); break;
    case TALLY_BF16: ((uint16_t *)p)[i] = tally_f32_to_bf16(0.5f + (float)(r >> 57) * 0x1p-7f); break;
    case TALLY_F32: ((float *)p)[i] = 0.5f + (float)(r >> 41) * 0x1p-23f; break;
    case TALLY_F64: ((double *)p)[i] = 0.5 + (double)(r >> 12) * 0x1p-52; break;
    default: break;
    }
  }
}

void bench_fill_ramp(void *p, tally_dtype t, int64_t n, int descending) {
  size_t es = tally_dtype_size(t);
  int w = (int)es * 8;
  /* floats: bit patterns from 0.5's to the largest finite value's (positive floats order
   * as their bits) */
  uint64_t flo = 0, fhi = 0;
  if (t == TALLY_F16) flo = 0x3800, fhi = 0x7bff;
  else if (t == TALLY_BF16) flo = 0x3f00, fhi = 0x7f7f;
  else if (t == TALLY_F32) flo = 0x3f000000, fhi = 0x7f7fffff;
  else if (t == TALLY_F64) flo = 0x3fe0000000000000u, fhi = 0x7fefffffffffffffu;
  for (int64_t k = 0; k < n; k++) {
    int64_t i = descending ? n - 1 - k : k;
    char *at = (char *)p + k * (int64_t)es;
    uint64_t u;
    if (fhi) {
      u = flo + (uint64_t)((unsigned __int128)i * (fhi - flo + 1) / (unsigned __int128)n);
    } else if (t == TALLY_BOOL) {
      u = 2 * i >= n;
    } else {
      /* i·2^w / n over the w-bit range; signed types from their minimum (the top bit
       * flipped) */
      u = (uint64_t)(((unsigned __int128)i << w) / (unsigned __int128)n);
      if (t == TALLY_I8 || t == TALLY_I16 || t == TALLY_I32 || t == TALLY_I64) u ^= (uint64_t)1 << (w - 1);
    }
    memcpy(at, &u, es); /* the low bytes (little-endian) */
  }
}

static int64_t cpu_ns(void) {
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  return ((int64_t)ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000000 +
         ((int64_t)ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1000;
}

void bench_settle(void) {
  /* libgomp's workers spin ~300000 iterations (about 7 ms here) after a parallel region
   * unless OMP_WAIT_POLICY/GOMP_SPINCOUNT say otherwise; tally's pool spins ~0.2 ms.
   * Measuring the process's CPU time finds the end of both, whatever the settings. */
  for (int step = 0; step < 100; step++) {
    int64_t c0 = cpu_ns();
    struct timespec ts = {0, 1000000};
    nanosleep(&ts, NULL);
    if (cpu_ns() - c0 < 200000) return;
  }
}

void bench_utc_date(char *buf, size_t size) {
  time_t now = time(NULL);
  struct tm tm;
  gmtime_r(&now, &tm);
  strftime(buf, size, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

void bench_cpu_mark_now(bench_cpu_mark *m) {
  m->busy_ticks = -1;
  m->self_ns = cpu_ns();
  m->wall_ns = bench_now_ns();
  FILE *f = fopen("/proc/stat", "r");
  if (!f) return;
  long long user, nice, sys, idle, iowait, irq, softirq, steal;
  if (fscanf(f, "cpu %lld %lld %lld %lld %lld %lld %lld %lld", &user, &nice, &sys, &idle,
             &iowait, &irq, &softirq, &steal) == 8)
    m->busy_ticks = user + nice + sys + irq + softirq + steal;
  fclose(f);
}

double bench_others_busy(const bench_cpu_mark *a, const bench_cpu_mark *b) {
  long hz = sysconf(_SC_CLK_TCK);
  double wall = (double)(b->wall_ns - a->wall_ns) * 1e-9;
  if (a->busy_ticks < 0 || b->busy_ticks < 0 || hz <= 0 || wall <= 0) return -1;
  double busy = (double)(b->busy_ticks - a->busy_ticks) / (double)hz;
  double others = (busy - (double)(b->self_ns - a->self_ns) * 1e-9) / wall;
  return others > 0 ? others : 0;
}

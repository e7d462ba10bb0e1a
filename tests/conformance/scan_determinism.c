/* tally_scan_determinism: DEFAULT-accuracy float scans give the same bits for every
 * thread count and every CPU ISA (SEMANTICS.md, "Determinism"; NaN payloads excepted,
 * being unspecified). Each ISA's vector kernels (scan_simd.c, scan_affine.c: the AVX2
 * set, the AVX-512 set's f64 lanes in zmm registers, SSE2) are meant to make the same
 * operations in the same order as the scalar blocks; a kernel that groups its additions
 * or products otherwise shows here, on data where the grouping reaches the bits: values
 * over a wide range of exponents, near one (products), NaN, Inf, signed zeros and
 * subnormals mixed in, at sizes around the blocks of 8 and 32 and the 2^16-element
 * chunks. tally_determinism does the same for reductions; the conformance suite's threads
 * check for a few scans only, and on data where f32 results hide most regroupings.
 * Fresh data each run (the seed is printed). CPU only. Exit 0 / 1 / 77. */
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "elem.h"
#include "rng.h"
#include "tally.h"

/* device 0, the baseline, never streams its stores */
static const char *const devices[] = {"cpu:threads=1,stream_bytes=9223372036854775807",
                                      "cpu:threads=2,parallel_bytes=0",
                                      "cpu:threads=3,parallel_bytes=0", "cpu:isa=scalar",
                                      "cpu:isa=avx2",        "cpu:isa=avx512",
                                      /* streaming stores at every size (scan.c's
                                         buffered pieces; the compensated f64 sum's own) */
                                      "cpu:threads=2,parallel_bytes=0,stream_bytes=0",
                                      "cpu:isa=avx2,stream_bytes=0"};
#define NDEV (int)(sizeof devices / sizeof devices[0])

static uint64_t state; /* the splitmix64 stream of this run's data */

/* One value of data kind `kind`: 0 uniform [0.5, 1.5); 1 signed, exponents over 2^-30 to
 * 2^30; 2 the specials mixed in (NaN, ±Inf, -0.0, subnormals of f16/bf16/f32); 3 near
 * one (products that keep their low bits); 4 (f64 SUM only) mostly small, one in 64 huge
 * (2^990 to 2^1023, either sign): sums that overflow, and blocks the vector kernels
 * must hand back to the scalar code (in place: anything from 2^1010); 5 (f64 SUM only)
 * mostly small, one in 64 positive in [2^1000, 2^1004): the running value stays finite
 * and crosses 2^1010 part-way through the longer inputs (the in-place kernels' limit for
 * the running value, at every position in a block or pair of blocks). */
static double value(int kind, uint64_t r) {
  switch (kind) {
  case 0: return 0.5 + (double)(r >> 11) * 0x1p-53;
  case 1: return ((r >> 63) ? -1.0 : 1.0) * ldexp(1.0 + (double)(r & 0xfffff) * 0x1p-20, (int)((r >> 20) % 61) - 30);
  case 2: {
    const unsigned s = (unsigned)(r % 40);
    return s == 0 ? NAN : s == 1 ? INFINITY : s == 2 ? -INFINITY : s == 3 ? -0.0 : s == 4 ? 3e-8 /* f16 subnormal */
           : s == 5 ? 1e-40 /* f32 subnormal */ : ((double)((r >> 8) % 4001) - 2000.0) / 7.0;
  }
  case 3: return 1.0 + ((double)((r >> 8) % 2001) - 1000.0) * 0x1p-14;
  case 5: return r % 64 ? (double)((r >> 8) % 1000) - 500.0 : ldexp(1.0 + (double)((r >> 8) & 0xffff) * 0x1p-16, 1000 + (int)((r >> 30) % 4));
  default:
    return r % 64 ? (double)((r >> 8) % 1000) - 500.0
                  : ((r >> 63) ? -1.0 : 1.0) * ldexp(1.0 + (double)((r >> 8) & 0xffff) * 0x1p-16, 990 + (int)((r >> 30) % 34));
  }
}

static void store(tally_dtype dt, void *p, int64_t i, double v, uint64_t r, int kind) {
  if (kind == 2 && r % 53 == 7) { /* a NaN with a payload of its own */
    tt_store_bits(dt, p, i, dt == TALLY_F64   ? 0x7ff8000000000000ull | (r >> 40)
                            : dt == TALLY_F32 ? 0x7fc00000u | (r >> 50)
                            : dt == TALLY_F16 ? 0x7e00u | (r >> 60)
                                              : 0x7fc0u | (r >> 60));
    return;
  }
  if (dt == TALLY_F64) memcpy((char *)p + 8 * i, &v, 8);
  else if (dt == TALLY_F32) { float f = (float)v; memcpy((char *)p + 4 * i, &f, 4); }
  else { uint16_t h = dt == TALLY_F16 ? tally_f32_to_f16((float)v) : tally_f32_to_bf16((float)v); memcpy((char *)p + 2 * i, &h, 2); }
}

int main(void) {
  state = tt_test_seed("tally_scan_determinism");
  tally_context *ctx[NDEV];
  for (int d = 0; d < NDEV; d++) {
    tally_status s = tally_open(devices[d], &ctx[d]);
    if (s != TALLY_OK) {
      ctx[d] = NULL;
      printf("%s: skipped (%s: %s)\n", devices[d], tally_status_name(s), tally_errmsg(NULL));
      if (d == 0) { printf("SKIP: the baseline device cannot be opened\n"); return 77; }
    }
  }
  static const tally_dtype dts[] = {TALLY_F16, TALLY_BF16, TALLY_F32, TALLY_F64};
  static const tally_op ops[] = {TALLY_SUM, TALLY_PROD, TALLY_MIN, TALLY_MAX, TALLY_AFFINE};
  /* around blocks of 8 and pass 1's groups of 32; chunks of 2^16; above WAKE_BYTES (4 MiB
   * in f16 too), so the threaded and fused passes run */
  static const int64_t sizes[] = {1, 7, 8, 33, 63, 200, 4099, 70001, (1 << 21) + 4099};
  const int nsz = (int)(sizeof sizes / sizeof sizes[0]);
  long cases = 0, failures = 0;
  for (size_t di = 0; di < 4; di++)
    for (size_t oi = 0; oi < 5; oi++)
      for (int si = 0; si < nsz; si++)
        for (int kind = 0; kind < 6; kind++)
          for (int opt = 0; opt < 8; opt++) {
            const tally_dtype dt = dts[di];
            const tally_op op = ops[oi];
            const int64_t n = sizes[si];
            const bool dd = dt == TALLY_F64 && op == TALLY_SUM; /* the compensated sum */
            if (n > 70001 && (kind == 0 || (opt & 3) == 3)) continue; /* the large size: fewer cases */
            if (kind >= 4 && !dd) continue;
            /* opt 4..7: in place (f64 SUM; the same bits as out of place) */
            const bool inplace = opt & 4;
            if (inplace && !dd) continue;
            const int w = op == TALLY_AFFINE ? 2 : 1;
            tally_dtype rd = dt;
            if (op != TALLY_MIN && op != TALLY_MAX && tally_result_dtype(op, dt, &rd) != TALLY_OK) continue;
            if (op == TALLY_AFFINE && (opt & 2)) continue; /* AFFINE has no NaN rule (TALLY_EINVAL) */
            const size_t es = tally_dtype_size(dt), rs = tally_dtype_size(rd);
            unsigned char *x = malloc((size_t)n * es), *y = malloc((size_t)n * es);
            /* the output 64-byte aligned, or 8, 24 or 40 bytes past (the streaming stores
               write whole 64-byte lines, the ends of a block's outputs plainly) */
            const size_t shift = (size_t)(cases % 4) * 16 - (cases % 4 ? 8 : 0);
            unsigned char *base = malloc((size_t)n * w * rs), *o_mem = aligned_alloc(64, ((size_t)n * w * rs + 127) / 64 * 64);
            unsigned char *o = o_mem ? o_mem + shift : NULL;
            if (!x || !y || !base || !o_mem) { printf("FAIL: out of memory\n"); return 1; }
            for (int64_t i = 0; i < n; i++) {
              uint64_t r = tt_splitmix64(&state), r2 = tt_splitmix64(&state);
              store(dt, x, i, value(kind, r), r, kind);
              store(dt, y, i, value(kind, r2), r2, kind);
            }
            tally_scan_options so;
            tally_scan_options_init(&so);
            so.exclusive = opt & 1;
            so.nan = opt & 2 ? TALLY_NAN_IGNORE : TALLY_NAN_PROPAGATE;
            cases++;
            for (int d = 0; d < NDEV; d++) {
              if (!ctx[d]) continue;
              unsigned char *dst = d ? o : base;
              memset(dst, 0xa5, (size_t)n * w * rs); /* poisoned */
              tally_array in = tally_array_1d(inplace && d ? (void *)dst : (void *)x, dt, n), in2 = tally_array_1d(y, dt, n);
              tally_array out = tally_array_1d(dst, rd, n * w);
              if (d && n == sizes[nsz - 1]) { /* wake the threads: the checked call runs on all */
                tally_array small = tally_array_1d(dst, rd, 64 * w);
                tally_array sin = tally_array_1d(x, dt, 64), sin2 = tally_array_1d(y, dt, 64);
                (void)tally_scan(ctx[d], op, &sin, w == 2 ? &sin2 : NULL, &small, &so);
              }
              if (inplace && d) memcpy(dst, x, (size_t)n * es); /* device 0: out of place */
              tally_status s = tally_scan(ctx[d], op, &in, w == 2 ? &in2 : NULL, &out, &so);
              if (s != TALLY_OK) {
                printf("FAIL: scan %s %s n=%" PRId64 "%s on %s: %s\n", tally_op_name(op), tally_dtype_name(dt), n,
                       inplace ? " in place" : "", devices[d], tally_errmsg(ctx[d]));
                failures++;
                break;
              }
              if (!d) continue;
              for (int64_t v = 0; v < n * w; v++) {
                const uint64_t ba = tt_load_bits(rd, base, v), bb = tt_load_bits(rd, o, v);
                if (ba != bb && !(tt_bits_isnan(rd, ba) && tt_bits_isnan(rd, bb))) {
                  printf("FAIL: scan %s %s n=%" PRId64 " data %d %s%s%s: value %" PRId64 " is %#" PRIx64
                         " on %s, %#" PRIx64 " on %s\n", tally_op_name(op), tally_dtype_name(dt), n, kind,
                         so.exclusive ? "exclusive" : "inclusive", opt & 2 ? " nan=ignore" : "",
                         inplace ? " in place" : "", v, bb, devices[d], ba, devices[0]);
                  failures++;
                  break;
                }
              }
            }
            free(x), free(y), free(base), free(o_mem);
          }
  for (int d = 0; d < NDEV; d++) tally_close(ctx[d]);
  printf("%s: %ld cases on %d devices, %ld failures\n", failures ? "FAILED" : "PASSED", cases, NDEV, failures);
  return failures ? 1 : 0;
}

/* Vector kernels of the f64 DEFAULT (compensated) scan, compiled once per ISA like
 * scan_simd.c: scan_dd.h's blocks with four lanes to a vector (lanes g, g + 4, g + 8,
 * g + 12 in vector g, so that its rows are the vectors' positions), the same operations
 * in the same order, so the same bits as the scalar code on any layout.
 *
 * The vectors leave out scan_dd.h's tests for Inf and NaN (a sum that is not finite
 * becomes (s, 0)). Where no sum overflows and no input is Inf or NaN, the tests never
 * fire and the results are the same. Where one does, the pair turns NaN or infinite and
 * stays so (Inf − Inf is NaN, and NaN spreads through every later sum), down to the
 * lanes' last values and the block's total: a block where any of them is not finite is
 * done again by scan_dd.h's code, over the outputs it wrote. In place that would read
 * its own outputs, so there a block runs here only where nothing can overflow: every
 * element and the running value below 2^1010 in magnitude (|any partial sum| < 257 ·
 * 2^1010 < 2^1019, TwoSum's intermediates within twice that), and its pass-A sums finite
 * (no NaN, no Inf). */
#include "scan_dd.h"

#ifndef TALLY_ISA
#define TALLY_ISA scalar
#endif
#define CAT_(a, b) a##b
#define CAT(a, b) CAT_(a, b)

#if defined(__AVX2__)
#include <immintrin.h>

#define AI static inline __attribute__((always_inline))
#define DD_SAFE 0x1p1010
#define ROW (4 * DD_LANE) /* elements from lane j to lane j + 4 */

/* a + b and a - b as fma(a, 1, ±b): a·1 is exact and the sum is rounded once, so the
 * same value, signed zeros, Inf and NaN as vaddpd and vsubpd, but on the multiply pipes.
 * The kernels are nearly all additions: some of them there leave neither kind of pipe
 * idle (AMD Zen 4: two add and two multiply-add pipes). */
AI __m256d fadd(__m256d a, __m256d b) { return _mm256_fmadd_pd(a, _mm256_set1_pd(1.0), b); }
AI __m256d fsub(__m256d a, __m256d b) { return _mm256_fmsub_pd(a, _mm256_set1_pd(1.0), b); }

/* dd_step and dd_add on four lanes without the tests. The chain from one step to the
 * next runs through s = h + x alone, on vaddpd (the shorter latency). */
AI void v_step(__m256d *h, __m256d *l, __m256d x) {
  __m256d s = _mm256_add_pd(*h, x), bb = fsub(s, *h);
  __m256d e = _mm256_add_pd(_mm256_sub_pd(*h, fsub(s, bb)), fsub(x, bb));
  *l = fadd(*l, e);
  *h = s;
}

typedef struct {
  __m256d h, l;
} vdd;

AI vdd v_add(vdd a, vdd b) {
  __m256d s = _mm256_add_pd(a.h, b.h), bb = fsub(s, a.h);
  __m256d e = _mm256_add_pd(_mm256_sub_pd(a.h, fsub(s, bb)), fsub(b.h, bb));
  e = _mm256_add_pd(e, _mm256_add_pd(a.l, b.l));
  __m256d h = _mm256_add_pd(s, e);
  return (vdd){h, _mm256_sub_pd(e, _mm256_sub_pd(h, s))};
}

/* Positions shifted up by one, F into position 0: [F v0 v1 v2]; by two: [F F v0 v1]. */
AI vdd up1(vdd v) {
  const __m256d f = _mm256_set1_pd(-0.0);
  return (vdd){_mm256_blend_pd(_mm256_permute4x64_pd(v.h, 0x90), f, 1),
               _mm256_blend_pd(_mm256_permute4x64_pd(v.l, 0x90), f, 1)};
}
AI vdd up2(vdd v) {
  const __m256d f = _mm256_set1_pd(-0.0);
  return (vdd){_mm256_permute2f128_pd(f, v.h, 0x20), _mm256_permute2f128_pd(f, v.l, 0x20)};
}

/* Elements 0..3 of the rows at p, p + st, p + 2st, p + 3st, transposed: v[k] holds
 * element k of each row. Built from 16-byte halves (vinsertf128 from memory, then
 * in-lane unpacks): a 4 × 4 transpose of whole vectors takes four lane-crossing
 * shuffles, one a cycle on AMD Zen 4, and measured 1.4 × slower here. */
AI void ld_cols(const double *p, int64_t st, int ign, __m256d *v) {
  __m256d r[4];
  for (int k = 0; k < 2; k++) {
    const double *q = p + 2 * k;
    r[2 * k] = _mm256_insertf128_pd(_mm256_castpd128_pd256(_mm_loadu_pd(q)), _mm_loadu_pd(q + 2 * st), 1);
    r[2 * k + 1] = _mm256_insertf128_pd(_mm256_castpd128_pd256(_mm_loadu_pd(q + st)), _mm_loadu_pd(q + 3 * st), 1);
  }
  if (ign)
    for (int k = 0; k < 4; k++) r[k] = _mm256_and_pd(_mm256_cmp_pd(r[k], r[k], _CMP_EQ_OQ), r[k]);
  v[0] = _mm256_unpacklo_pd(r[0], r[1]);
  v[1] = _mm256_unpackhi_pd(r[0], r[1]);
  v[2] = _mm256_unpacklo_pd(r[2], r[3]);
  v[3] = _mm256_unpackhi_pd(r[2], r[3]);
}

/* ld_cols reversed: v[k] holds element k of each row. */
AI void st_cols(double *p, int64_t st, const __m256d *v) {
  __m256d r[4] = {_mm256_unpacklo_pd(v[0], v[1]), _mm256_unpackhi_pd(v[0], v[1]),
                  _mm256_unpacklo_pd(v[2], v[3]), _mm256_unpackhi_pd(v[2], v[3])};
  for (int k = 0; k < 2; k++) {
    double *q = p + 2 * k;
    _mm_storeu_pd(q, _mm256_castpd256_pd128(r[2 * k]));
    _mm_storeu_pd(q + 2 * st, _mm256_extractf128_pd(r[2 * k], 1));
    _mm_storeu_pd(q + st, _mm256_castpd256_pd128(r[2 * k + 1]));
    _mm_storeu_pd(q + 3 * st, _mm256_extractf128_pd(r[2 * k + 1], 1));
  }
}

/* Every position of a, b, c, d finite. (v − v is 0, or NaN: summing the vectors
 * themselves could overflow.) */
AI int all_finite(__m256d a, __m256d b, __m256d c, __m256d d) {
  __m256d z = _mm256_add_pd(_mm256_add_pd(_mm256_sub_pd(a, a), _mm256_sub_pd(b, b)),
                            _mm256_add_pd(_mm256_sub_pd(c, c), _mm256_sub_pd(d, d)));
  return _mm256_movemask_pd(_mm256_cmp_pd(z, z, _CMP_EQ_OQ)) == 0xf;
}

/* A full block's lane offsets (p[k]: lane g + 4·position's, in vector g) and total:
 * scan_dd.h's dd_prefix, the rows in the positions. */
typedef struct {
  vdd p[4];
  dd total;
} sums_t;

/* Pass A and the prefix of the full block at x. Returns 0 where the block must take
 * scan_dd.h's code before anything is written (in place: see the top). */
AI int block_sums(const double *x, int ign, int inplace, sums_t *q) {
  vdd t[4];
  __m256d big = _mm256_setzero_pd();
  const __m256d abs = _mm256_castsi256_pd(_mm256_set1_epi64x(0x7fffffffffffffffLL));
  for (int g = 0; g < 4; g++) t[g] = (vdd){_mm256_set1_pd(-0.0), _mm256_setzero_pd()};
  for (int i = 0; i < DD_LANE; i += 4)
    for (int g = 0; g < 4; g++) { /* the four vectors' chains side by side */
      __m256d v[4];
      ld_cols(x + g * DD_LANE + i, ROW, ign, v);
      for (int k = 0; k < 4; k++) {
        if (inplace) big = _mm256_max_pd(big, _mm256_and_pd(v[k], abs));
        v_step(&t[g].h, &t[g].l, v[k]);
      }
    }
  if (inplace) {
    if (!all_finite(t[0].h, t[1].h, t[2].h, t[3].h) ||
        _mm256_movemask_pd(_mm256_cmp_pd(big, _mm256_set1_pd(DD_SAFE), _CMP_LT_OQ)) != 0xf)
      return 0;
  }
  vdd e2 = v_add(t[0], t[1]), e3 = v_add(e2, t[2]), u = v_add(e2, v_add(t[2], t[3]));
  vdd y = v_add(u, up1(u)), z = v_add(y, up2(y)), r = up1(z);
  q->p[0] = r;
  q->p[1] = v_add(r, t[0]);
  q->p[2] = v_add(r, e2);
  q->p[3] = v_add(r, e3);
  double zh[4], zl[4];
  _mm256_storeu_pd(zh, z.h);
  _mm256_storeu_pd(zl, z.l);
  q->total = (dd){zh[3], zl[3]};
  return 1;
}

/* Pass B of the full block at x from s; 0 if a lane ended not finite (see the top). */
AI int block_out(const double *x, double *o, dd s, const sums_t *q, int excl, int ign) {
  const vdd sv = {_mm256_set1_pd(s.hi), _mm256_set1_pd(s.lo)};
  vdd c[4];
  for (int g = 0; g < 4; g++) c[g] = v_add(sv, q->p[g]);
  for (int i = 0; i < DD_LANE; i += 4) {
    __m256d v[4][4], r[4][4];
    for (int g = 0; g < 4; g++) ld_cols(x + g * DD_LANE + i, ROW, ign, v[g]);
    for (int k = 0; k < 4; k++)
      for (int g = 0; g < 4; g++) {
        if (excl) r[g][k] = _mm256_add_pd(c[g].h, c[g].l);
        v_step(&c[g].h, &c[g].l, v[g][k]);
        if (!excl) r[g][k] = _mm256_add_pd(c[g].h, c[g].l);
      }
    for (int g = 0; g < 4; g++) st_cols(o + g * DD_LANE + i, ROW, r[g]);
  }
  return all_finite(c[0].h, c[1].h, c[2].h, c[3].h);
}

/* The stash (tally__scan_fused_fn): a block's sums, left by pass 1 at the start of its
 * outputs (280 of their 2048 bytes) for pass 2, which then skips pass A: 0.44 of the
 * 1.45 ns an element of the two passes of the fused loop (AMD EPYC VM, in cache). ok 0:
 * the block had to take scan_dd.h's code. */
typedef struct {
  sums_t q;
  double ok;
} stash_t;
_Static_assert(sizeof(stash_t) <= DD_BLOCK * sizeof(double), "a block's stash fits its outputs");

/* Pass A of the full block at x (its sums, ok 0 where it must take scan_dd.h's code), or
 * (write 2) the stash that pass 1 left at o, read before the outputs overwrite it. */
AI void block_get(const double *x, const double *o, int write, int ign, stash_t *k) {
  if (write == 2) memcpy(k, o, sizeof *k);
  else k->ok = block_sums(x, ign, write && x == o, &k->q) && k->q.total.hi - k->q.total.hi == 0;
}

/* n outputs from buf (64-byte aligned) to o with streaming stores: written without
 * reading their lines first. Pass B writes a block to buf (in L1), not to o: its 16-byte
 * stores into 32 lines at a time would leave the write-combining buffers partial lines.
 * The part before o's first 64-byte boundary and after its last are plain stores (a line
 * shared with the block before or after). GPU host's Xeon, 16 threads, 2^26 (run 204,
 * three turns, zmm pairs): 16.2-17.0 ms against 18.4-19.4 writing o itself, 0.89-0.95 x
 * a copy (which reads every line it writes) against 0.80-0.85. */
AI void stream_copy(double *o, const double *buf, int n) {
  int i = (int)((0 - (uintptr_t)o) / 8 % 8); /* elements to o's next 64-byte boundary */
  if (i > n) i = n;
  memcpy(o, buf, (size_t)i * 8);
  for (; i + 8 <= n; i += 8) {
#if defined(__AVX512F__)
    _mm512_stream_pd(o + i, _mm512_loadu_pd(buf + i));
#else
    _mm256_stream_pd(o + i, _mm256_loadu_pd(buf + i));
    _mm256_stream_pd(o + i + 4, _mm256_loadu_pd(buf + i + 4));
#endif
  }
  memcpy(o + i, buf + i, (size_t)(n - i) * 8);
}

/* Pass B of the full block at x from *s with its sums k, folding *t (NULL: left out);
 * outputs when write, with streaming stores when stream (not in place). */
AI void block_with(const double *x, double *o, dd *s, dd *t, int write, int excl, int ign,
                   int stream, const stash_t *k) {
  const int inplace = write && x == o;
  _Alignas(64) double buf[DD_BLOCK];
  if (k->ok != 0 && (!inplace || __builtin_fabs(s->hi) < DD_SAFE) &&
      (!write || block_out(x, stream ? buf : o, *s, &k->q, excl, ign))) {
    if (write && stream) stream_copy(o, buf, DD_BLOCK);
    *s = dd_add(*s, k->q.total);
    if (t) *t = dd_add(*t, k->q.total);
    return;
  }
  dd tt = t ? *t : (dd){0.0, 0.0};
  dd_block((const char *)x, 8, (char *)o, 8, DD_BLOCK, s, &tt, write, excl, ign);
  if (t) *t = tt;
}

/* The full block at x from *s, folding *t (NULL: left out); outputs when write (2: they
 * hold the block's stash). Pass 1 leaves a stash at stash when not NULL. */
AI void block(const double *x, double *o, dd *s, dd *t, int write, int excl, int ign, int stream,
              double *stash) {
  stash_t k;
  block_get(x, o, write, ign, &k);
  if (stash) memcpy(stash, &k, sizeof k);
  block_with(x, o, s, t, write, excl, ign, stream, &k);
}

#if defined(__AVX512F__)
#include "scan_dd_pair.h" /* pair(): two full blocks side by side in zmm registers */
#define STEP (2 * DD_BLOCK)
#else
/* No zmm registers: one block at a time (STEP is one block, so pair() is never called). */
AI void pair(const double *x, double *o, dd *s, dd *t, int write, int excl, int ign, int stream,
             double *stash) {
  block(x, o, s, t, write, excl, ign, stream, stash);
  block(x + DD_BLOCK, o ? o + DD_BLOCK : NULL, s, t, write, excl, ign, stream,
        stash ? stash + DD_BLOCK : NULL);
}
#define STEP DD_BLOCK
#endif

/* Whether writes to o may stream (tally__scan_args.stream_out): not in place, o aligned
 * to its elements. */
static int may_stream(int want, const char *x, const char *o, int write) {
  return want && write && x != o && ((uintptr_t)o & 7) == 0;
}

AI int64_t blocks(const char *xc, char *oc, int64_t m, void *sp, void *tp, int write, int excl,
                  int ign, int stream) {
  dd s, t;
  memcpy(&s, sp, 16);
  memcpy(&t, tp, 16);
  int64_t i = 0;
  for (; STEP > DD_BLOCK && i + STEP <= m; i += STEP)
    pair((const double *)xc + i, (double *)oc + i, &s, &t, write, excl, ign, stream, NULL);
  for (; i + DD_BLOCK <= m; i += DD_BLOCK)
    block((const double *)xc + i, (double *)oc + i, &s, &t, write, excl, ign, stream, NULL);
  memcpy(sp, &s, 16);
  memcpy(tp, &t, 16);
  return i;
}

static int64_t sum_dd(const tally__scan_args *g, const char *x, char *o, int64_t m, void *sp,
                      void *tp, int write) {
  /* the options as constants: each combination its own loop */
  const int e = g->exclusive, n = g->ignore_nan, st = may_stream(g->stream_out, x, o, write);
  if (!write) return n ? blocks(x, o, m, sp, tp, 0, 0, 1, 0) : blocks(x, o, m, sp, tp, 0, 0, 0, 0);
  if (write == 2) return blocks(x, o, m, sp, tp, 2, 0, 0, st); /* stashed: as fused */
  if (e) return n ? blocks(x, o, m, sp, tp, 1, 1, 1, st) : blocks(x, o, m, sp, tp, 1, 1, 0, st);
  return n ? blocks(x, o, m, sp, tp, 1, 0, 1, st) : blocks(x, o, m, sp, tp, 1, 0, 0, st);
}

/* tally__scan_fused_fn: pass 1 of a block at x1 (its total into t1, its stash to o1),
 * then pass 2 of a block at x. */
static int fused_dd(const char *x, char *o, int64_t m, void *sp, const char *x1, void *t1p,
                    char *o1, int flags) {
  const int w = flags & TALLY__SCAN_STASHED ? 2 : 1;
  const int st = may_stream(flags & TALLY__SCAN_STREAM, x, o, 1);
  dd s, t1;
  memcpy(&s, sp, 16);
  memcpy(&t1, t1p, 16);
  int64_t i = 0;
  for (; STEP > DD_BLOCK && i + STEP <= m; i += STEP) {
    dd s1 = {0.0, 0.0}; /* pass 1's running value: not needed */
    pair((const double *)x1 + i, NULL, &s1, &t1, 0, 0, 0, 0, (double *)o1 + i);
    pair((const double *)x + i, (double *)o + i, &s, NULL, w, 0, 0, st, NULL);
  }
  for (; i < m; i += DD_BLOCK) {
    dd s1 = {0.0, 0.0};
    block((const double *)x1 + i, NULL, &s1, &t1, 0, 0, 0, 0, (double *)o1 + i);
    block((const double *)x + i, (double *)o + i, &s, NULL, w, 0, 0, st, NULL);
  }
  memcpy(sp, &s, 16);
  memcpy(t1p, &t1, 16);
  return 1;
}

const tally__scan_dd_set CAT(tally__scan_dd_, TALLY_ISA) = {sum_dd, sum_dd, fused_dd};
#else
/* No vector kernel: scan_kern.c runs scan_dd.h's blocks on every layout. */
const tally__scan_dd_set CAT(tally__scan_dd_, TALLY_ISA) = {NULL, NULL, NULL};
#endif

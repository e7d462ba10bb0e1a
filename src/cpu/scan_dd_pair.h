/* The compensated f64 scan's blocks two at a time, for AVX-512 (included by scan_dd.c
 * only, after its AVX2 kernels): two consecutive full blocks side by side in zmm
 * registers, the first block in positions 0-3 (its rows, as in scan_dd.c's ymm
 * vectors), the second in 4-7. The same operations in the same order as scan_dd.c's
 * block(), twice, so the same bits:
 *   - pass A of a block does not depend on the running value, so both blocks' lane
 *     totals and lane offsets are computed at once;
 *   - the second block's running value is the first's plus the first block's total
 *     (the dd_add that block() makes between the two), known before pass B; pass B of
 *     the two then runs at once too.
 * Half the vector instructions of two block() calls. 2-core Xeon VM, one thread, 2^16
 * in the cache, five turns: 0.96-1.12 ns an element against 1.14-1.41; GPU host's Xeon,
 * 16 threads, 2^26, streaming stores (run 204, three turns): 16.2-17.0 ms against
 * 18.9-20.0 one block at a time. Anything that block() would hand to scan_dd.h's
 * code (not finite; in place, too close to overflow) sends the pair back through
 * block_with(), one block at a time, from the start of the first block. */
#ifndef TALLY_CPU_SCAN_DD_PAIR_H
#define TALLY_CPU_SCAN_DD_PAIR_H

AI __m512d zadd1(__m512d a, __m512d b) { return _mm512_fmadd_pd(a, _mm512_set1_pd(1.0), b); }
AI __m512d zsub1(__m512d a, __m512d b) { return _mm512_fmsub_pd(a, _mm512_set1_pd(1.0), b); }

/* v_step on eight lanes. */
AI void z_step(__m512d *h, __m512d *l, __m512d x) {
  __m512d s = _mm512_add_pd(*h, x), bb = zsub1(s, *h);
  __m512d e = _mm512_add_pd(_mm512_sub_pd(*h, zsub1(s, bb)), zsub1(x, bb));
  *l = zadd1(*l, e);
  *h = s;
}

typedef struct {
  __m512d h, l;
} zdd;

/* v_add on eight positions. */
AI zdd z_add(zdd a, zdd b) {
  __m512d s = _mm512_add_pd(a.h, b.h), bb = zsub1(s, a.h);
  __m512d e = _mm512_add_pd(_mm512_sub_pd(a.h, zsub1(s, bb)), zsub1(b.h, bb));
  e = _mm512_add_pd(e, _mm512_add_pd(a.l, b.l));
  __m512d h = _mm512_add_pd(s, e);
  return (zdd){h, _mm512_sub_pd(e, _mm512_sub_pd(h, s))};
}

/* up1 and up2 within each block's four positions: [F v0 v1 v2 F v4 v5 v6] and
 * [F F v0 v1 F F v4 v5]. */
AI zdd zup1(zdd v) {
  const __m512d f = _mm512_set1_pd(-0.0);
  const __m512i ix = _mm512_set_epi64(6, 5, 4, 4, 2, 1, 0, 0);
  return (zdd){_mm512_mask_permutexvar_pd(f, 0xee, ix, v.h), _mm512_mask_permutexvar_pd(f, 0xee, ix, v.l)};
}
AI zdd zup2(zdd v) {
  const __m512d f = _mm512_set1_pd(-0.0);
  const __m512i ix = _mm512_set_epi64(5, 4, 4, 4, 1, 0, 0, 0);
  return (zdd){_mm512_mask_permutexvar_pd(f, 0xcc, ix, v.h), _mm512_mask_permutexvar_pd(f, 0xcc, ix, v.l)};
}

/* ld_cols of both blocks: v[k] holds element k of the rows at p, p + st, p + 2st, p + 3st
 * in positions 0-3 and of those a block later in 4-7. (Loading each row's four elements
 * with the same row's a block later, then unpacks and two-source permutes, 12 shuffles
 * where these are 16, measured no faster on the Xeon VM.) */
AI void zld_cols(const double *p, int64_t st, int ign, __m512d *v) {
  __m512d r[4];
  for (int k = 0; k < 2; k++)
    for (int odd = 0; odd < 2; odd++) {
      const double *q = p + 2 * k + odd * st, *b = q + DD_BLOCK;
      __m256d lo = _mm256_insertf128_pd(_mm256_castpd128_pd256(_mm_loadu_pd(q)), _mm_loadu_pd(q + 2 * st), 1);
      __m256d hi = _mm256_insertf128_pd(_mm256_castpd128_pd256(_mm_loadu_pd(b)), _mm_loadu_pd(b + 2 * st), 1);
      r[2 * k + odd] = _mm512_insertf64x4(_mm512_castpd256_pd512(lo), hi, 1);
    }
  if (ign)
    for (int k = 0; k < 4; k++)
      r[k] = _mm512_maskz_mov_pd(_mm512_cmp_pd_mask(r[k], r[k], _CMP_EQ_OQ), r[k]);
  v[0] = _mm512_unpacklo_pd(r[0], r[1]);
  v[1] = _mm512_unpackhi_pd(r[0], r[1]);
  v[2] = _mm512_unpacklo_pd(r[2], r[3]);
  v[3] = _mm512_unpackhi_pd(r[2], r[3]);
}

/* zld_cols reversed. */
AI void zst_cols(double *p, int64_t st, const __m512d *v) {
  __m512d r[4] = {_mm512_unpacklo_pd(v[0], v[1]), _mm512_unpackhi_pd(v[0], v[1]),
                  _mm512_unpacklo_pd(v[2], v[3]), _mm512_unpackhi_pd(v[2], v[3])};
  for (int k = 0; k < 2; k++)
    for (int odd = 0; odd < 2; odd++) {
      double *q = p + 2 * k + odd * st;
      const __m512d x = r[2 * k + odd];
      _mm_storeu_pd(q, _mm512_castpd512_pd128(x));
      _mm_storeu_pd(q + 2 * st, _mm512_extractf64x2_pd(x, 1));
      _mm_storeu_pd(q + DD_BLOCK, _mm512_extractf64x2_pd(x, 2));
      _mm_storeu_pd(q + DD_BLOCK + 2 * st, _mm512_extractf64x2_pd(x, 3));
    }
}

/* Positions (bit k: position k) where every one of a, b, c, d is finite. */
AI unsigned z_finite(__m512d a, __m512d b, __m512d c, __m512d d) {
  __m512d z = _mm512_add_pd(_mm512_add_pd(_mm512_sub_pd(a, a), _mm512_sub_pd(b, b)),
                            _mm512_add_pd(_mm512_sub_pd(c, c), _mm512_sub_pd(d, d)));
  return (unsigned)_mm512_cmp_pd_mask(z, z, _CMP_EQ_OQ);
}

/* The two blocks' lane offsets (positions as in zld_cols) and their stashes. */
typedef struct {
  zdd p[4];
} zsums_t;

AI vdd z_half(zdd v, int b) {
  return b ? (vdd){_mm512_extractf64x4_pd(v.h, 1), _mm512_extractf64x4_pd(v.l, 1)}
           : (vdd){_mm512_castpd512_pd256(v.h), _mm512_castpd512_pd256(v.l)};
}
AI zdd z_join(vdd a, vdd b) {
  return (zdd){_mm512_insertf64x4(_mm512_castpd256_pd512(a.h), b.h, 1),
               _mm512_insertf64x4(_mm512_castpd256_pd512(a.l), b.l, 1)};
}

/* block_sums of both blocks at x, into q and the blocks' stashes k[0], k[1] (with ok as
 * block_get sets it). */
AI void pair_sums(const double *x, int ign, int inplace, zsums_t *q, stash_t *k) {
  zdd t[4];
  __m512d big = _mm512_setzero_pd();
  for (int g = 0; g < 4; g++) t[g] = (zdd){_mm512_set1_pd(-0.0), _mm512_setzero_pd()};
  for (int i = 0; i < DD_LANE; i += 4)
    for (int g = 0; g < 4; g++) {
      __m512d v[4];
      zld_cols(x + g * DD_LANE + i, ROW, ign, v);
      for (int j = 0; j < 4; j++) {
        if (inplace) big = _mm512_max_pd(big, _mm512_abs_pd(v[j]));
        z_step(&t[g].h, &t[g].l, v[j]);
      }
    }
  unsigned fine = 0xff; /* positions whose block may run here */
  if (inplace)
    fine = z_finite(t[0].h, t[1].h, t[2].h, t[3].h) &
           (unsigned)_mm512_cmp_pd_mask(big, _mm512_set1_pd(DD_SAFE), _CMP_LT_OQ);
  zdd e2 = z_add(t[0], t[1]), e3 = z_add(e2, t[2]), u = z_add(e2, z_add(t[2], t[3]));
  zdd y = z_add(u, zup1(u)), z = z_add(y, zup2(y)), r = zup1(z);
  q->p[0] = r;
  q->p[1] = z_add(r, t[0]);
  q->p[2] = z_add(r, e2);
  q->p[3] = z_add(r, e3);
  double zh[8], zl[8];
  _mm512_storeu_pd(zh, z.h);
  _mm512_storeu_pd(zl, z.l);
  for (int b = 0; b < 2; b++) {
    for (int g = 0; g < 4; g++) k[b].q.p[g] = z_half(q->p[g], b);
    k[b].q.total = (dd){zh[4 * b + 3], zl[4 * b + 3]};
    k[b].ok = ((fine >> (4 * b)) & 0xf) == 0xf && zh[4 * b + 3] - zh[4 * b + 3] == 0;
  }
}

/* block_out of both blocks, from s0 (the first) and s1 (the second); 0 if a lane of
 * either ended not finite. */
AI int pair_out(const double *x, double *o, dd s0, dd s1, const zsums_t *q, int excl, int ign) {
  const zdd sv = {_mm512_insertf64x4(_mm512_set1_pd(s0.hi), _mm256_set1_pd(s1.hi), 1),
                  _mm512_insertf64x4(_mm512_set1_pd(s0.lo), _mm256_set1_pd(s1.lo), 1)};
  zdd c[4];
  for (int g = 0; g < 4; g++) c[g] = z_add(sv, q->p[g]);
  for (int i = 0; i < DD_LANE; i += 4) {
    __m512d v[4][4], r[4][4];
    for (int g = 0; g < 4; g++) zld_cols(x + g * DD_LANE + i, ROW, ign, v[g]);
    for (int j = 0; j < 4; j++)
      for (int g = 0; g < 4; g++) {
        if (excl) r[g][j] = _mm512_add_pd(c[g].h, c[g].l);
        z_step(&c[g].h, &c[g].l, v[g][j]);
        if (!excl) r[g][j] = _mm512_add_pd(c[g].h, c[g].l);
      }
    for (int g = 0; g < 4; g++) zst_cols(o + g * DD_LANE + i, ROW, r[g]);
  }
  return z_finite(c[0].h, c[1].h, c[2].h, c[3].h) == 0xff;
}

/* block() of the full blocks at x and x + DD_BLOCK, in turn (stash: both stashes). */
AI void pair(const double *x, double *o, dd *s, dd *t, int write, int excl, int ign, int stream,
             double *stash) {
  const int inplace = write && x == o;
  stash_t k[2];
  zsums_t q;
  if (write == 2) {
    memcpy(&k[0], o, sizeof k[0]); /* before the outputs overwrite them */
    memcpy(&k[1], o + DD_BLOCK, sizeof k[1]);
    for (int g = 0; g < 4; g++) q.p[g] = z_join(k[0].q.p[g], k[1].q.p[g]);
  } else {
    pair_sums(x, ign, inplace, &q, k);
  }
  if (stash) {
    memcpy(stash, &k[0], sizeof k[0]);
    memcpy(stash + DD_BLOCK, &k[1], sizeof k[1]);
  }
  if (k[0].ok != 0 && k[1].ok != 0) {
    const dd s1 = dd_add(*s, k[0].q.total); /* block()'s running value after the first */
    _Alignas(64) double buf[2 * DD_BLOCK];
    if (!write || ((!inplace || (__builtin_fabs(s->hi) < DD_SAFE && __builtin_fabs(s1.hi) < DD_SAFE)) &&
                   pair_out(x, stream ? buf : o, *s, s1, &q, excl, ign))) {
      if (write && stream) stream_copy(o, buf, 2 * DD_BLOCK);
      *s = dd_add(s1, k[1].q.total);
      if (t) *t = dd_add(dd_add(*t, k[0].q.total), k[1].q.total);
      return;
    }
  }
  block_with(x, o, s, t, write, excl, ign, stream, &k[0]);
  block_with(x + DD_BLOCK, o ? o + DD_BLOCK : NULL, s, t, write, excl, ign, stream, &k[1]);
}

#endif

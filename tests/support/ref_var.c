/* VAR and STD references. The mean is exact (exactsum, or the 128-bit integer sum), M2 a
 * compensated two-pass sum in long double. SEMANTICS.md states no bound; the suite uses
 *   best:       |M2' − M2| ≤ 8·n·u·M2 + 8·(n·u)²·Σx²  (a two-pass sum: the rounding of the
 *               deviations and of the mean); for n > 1024, Chan's merge of blocks whose
 *               means are off by at most ε = (1024 + n/1024)·u·max|x| adds 2ε·√(n·M2) + n·ε²
 *   sequential: |M2' − M2| ≤ 4·n·u·√(Σx²·M2) + 8·(n·u)²·Σx²  (Welford: n·u·κ·M2)
 * with u = 2^-53 (f64 throughout), then the division and the final rounding. 64-bit
 * integers round on conversion to f64: 4·u·Σ|x|·|x − mean| more. Denormals: n·2^-1074. */
#include <math.h>

#include "elem.h"
#include "ref_impl.h"

#define U64 0x1p-53

static long double value_at(tally_dtype t, const void *x, int64_t i) {
  return tt_is_float(t) ? (long double)tt_load_f(t, x, i) : (long double)tt_load_int(t, x, i);
}

void tt__ref_var(const tt_spec *s, const void *x, int64_t n, tt_expect *e) {
  tally_dtype t = s->dt, rd = e->rdtype;
  tt_value *v = &e->v[0];
  if (n == 0) { e->status = TALLY_EEMPTY; return; }
  if ((int64_t)s->ddof >= n) { e->status = TALLY_EINVAL; return; }
  /* Count, NaN and Inf; the exact sum. */
  int64_t m = 0;
  int any_nan = 0, any_inf = 0;
  exactsum S;
  exactsum_init(&S);
  __int128 isum = 0;
  for (int64_t i = 0; i < n; i++) {
    if (tt_isnan_at(t, x, i)) { any_nan = 1; continue; }
    m++;
    if (tt_is_float(t)) {
      double d = tt_load_f(t, x, i);
      if (isinf(d)) any_inf = 1;
      else exactsum_add(&S, d);
    } else {
      isum += tt_load_int(t, x, i);
    }
  }
  if ((any_nan && s->nan == TALLY_NAN_PROPAGATE) || any_inf || m == 0) { tt_set_nan(v); return; }
  if (m <= s->ddof) { e->status = TALLY_EINVAL; return; } /* not stated: the suite avoids it */
  long double mean;
  if (tt_is_float(t)) {
    double hi = exactsum_round(&S);
    exactsum rest = S;
    exactsum_add(&rest, -hi);
    mean = ((long double)hi + exactsum_round(&rest)) / m;
  } else {
    mean = (long double)isum / m;
  }
  /* Second pass: M2 (Kahan-compensated), Σx², Σ|x|·|x − mean|. */
  long double M2 = 0, c = 0, Q = 0, X = 0, big = 0;
  for (int64_t i = 0; i < n; i++) {
    if (tt_isnan_at(t, x, i)) continue;
    long double xi = value_at(t, x, i), d = xi - mean;
    long double y = d * d - c, tt = M2 + y;
    c = (tt - M2) - y;
    M2 = tt;
    Q += xi * xi;
    X += fabsl(xi) * fabsl(d);
    if (fabsl(xi) > big) big = fabsl(xi);
  }
  double dm = (double)m, u = tt_unit(rd);
  double eM2;
  if (s->sequential) eM2 = 4 * dm * U64 * sqrt((double)(Q * M2));
  else eM2 = 8 * dm * U64 * (double)M2;
  eM2 += 8 * (dm * U64) * (dm * U64) * (double)Q + dm * 0x1p-1074 + dm * 0x1p-62 * (double)M2;
  if (t == TALLY_I64 || t == TALLY_U64) eM2 += 4 * U64 * (double)X;
  if (m > 1024) { /* Chan's merge of blocks whose means are off by eps: 2·eps·√(n·M2) + n·eps² */
    double eps = (1024.0 + dm / 1024) * U64 * (double)big;
    eM2 += 2 * eps * sqrt(dm * (double)M2) + dm * eps * eps;
  }
  long double V = M2 / (m - s->ddof);
  double tinyr = rd == TALLY_F64 ? 0x1p-1074 : 0x1p-149;
  double eV = eM2 / (double)(m - s->ddof) + (u + U64) * (double)V + tinyr;
  if (s->op == TALLY_VAR) {
    tt_set_near(v, V, eV);
  } else {
    long double sd = sqrtl(V);
    double eS = sd > 0 ? fmin(eV / (double)sd, sqrt(eV)) : sqrt(eV);
    tt_set_near(v, sd, eS + (u + U64) * (double)sd + tinyr);
  }
}

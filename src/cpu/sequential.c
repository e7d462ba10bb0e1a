/* The two plainest ladder variants, one thread, elements in index order:
 *
 *   sequential  one accumulator of the DEFAULT accumulator type (f64 for float sums, a
 *               64-bit integer for integer sums, Welford's update for VAR): the C++ AMP
 *               post's std::accumulate baseline, written in C.
 *   naive       one accumulator of the *input* type (float s += x[i]; int8_t s += x[i]):
 *               what the naive loop loses, kept visible on purpose.
 *
 * Each body is inlined per dtype (the switch in run_slice), so the loops are as tight as
 * a hand-written one for that type. */
#include "cpu.h"
#include "kern_load.h"

#include <inttypes.h>

bool tally__naive_supports(tally_op op, tally_dtype dt) {
  if (dt == TALLY_BOOL) return false;
  switch (op) {
  case TALLY_SUM: case TALLY_PROD: case TALLY_SUMSQ: case TALLY_DOT: case TALLY_MEAN:
  case TALLY_VAR: case TALLY_STD: case TALLY_NORM2: return true;
  default: return false;
  }
}

typedef struct {
  const char *x, *y;
  int64_t rows, cols;
  int64_t rs[2], cs[2];
} walk_t;

/* Visit the slice's elements in index order: j is the logical index, ox/oy the element
 * offsets of x and y. */
#define FOR_EACH(w, ...)                                                         \
  for (int64_t r_ = 0, j = 0; r_ < (w)->rows; r_++)                               \
    for (int64_t c_ = 0; c_ < (w)->cols; c_++, j++) {                             \
      int64_t ox = r_ * (w)->rs[0] + c_ * (w)->cs[0];                             \
      int64_t oy = r_ * (w)->rs[1] + c_ * (w)->cs[1];                             \
      (void)oy;                                                                   \
      __VA_ARGS__                                                                 \
    }

/* Round to the input's own precision (the naive variant's accumulator). */
AI double to_input_float(int dt, double v) {
  switch (dt) {
  case TALLY_F32: return (float)v;
  case TALLY_F16: return f16_to_float(tally_f32_to_f16((float)v));
  case TALLY_BF16: return bf16_to_float(tally_f32_to_bf16((float)v));
  default: return v;
  }
}
/* Wrap to the input's integer width (the naive variant's accumulator). */
AI int64_t to_input_int(int dt, uint64_t v) {
  switch (dt) {
  case TALLY_I8: return (int8_t)v;
  case TALLY_U8: return (uint8_t)v;
  case TALLY_I16: return (int16_t)v;
  case TALLY_U16: return (uint16_t)v;
  case TALLY_I32: return (int32_t)v;
  case TALLY_U32: return (uint32_t)v;
  default: return (int64_t)v;
  }
}

#define ISNAN_SKIP(v) (ign && (v) != (v))

AI tally_status run_body(int dt, tally_context *ctx, const tally__problem *p, tally__variant vnt,
                         const walk_t *w, void *out, int64_t at, int64_t s1, int64_t k) {
  const tally_op op = p->op;
  const tally_dtype rd = p->rdtype;
  const int ign = p->opt.nan == TALLY_NAN_IGNORE && IS_FLOAT(dt);
  const int64_t n = w->rows * w->cols;
  const int naive = vnt == TALLY__VAR_NAIVE;
  const char *x = w->x, *y = w->y;

  switch (op) {
  case TALLY_SUM: case TALLY_SUMSQ: case TALLY_DOT: case TALLY_NORM2: case TALLY_MEAN:
  case TALLY_PROD: {
    const int prod = op == TALLY_PROD;
    const int sq = op == TALLY_SUMSQ || op == TALLY_NORM2;
    int64_t cnt = 0;
    if (naive && dt == TALLY_F32 && op != TALLY_MEAN) {
      /* The loop as written with a float accumulator: the same results as rounding each
       * f64 step to f32 (f64 has more than 2·24 + 2 bits), at the speed of the real thing. */
      float facc = prod ? 1.0f : 0.0f;
      FOR_EACH(w, {
        float a = (float)rd_d(dt, x, ox), b = sq ? a : (op == TALLY_DOT ? (float)rd_d(dt, y, oy) : 1.0f);
        if (ISNAN_SKIP(a) || ISNAN_SKIP(b)) continue;
        if (prod) facc *= a;
        else if (op == TALLY_SUM) facc += a;
        else facc += a * b;
      });
      tally__store_f64(rd, out, at, op == TALLY_NORM2 ? (double)sqrtf(facc) : (double)facc);
    } else if (IS_FLOAT(dt) || (op == TALLY_NORM2 && !naive)) {
      double acc = prod ? 1.0 : 0.0;
      FOR_EACH(w, {
        double a = rd_d(dt, x, ox), b = sq ? a : (op == TALLY_DOT ? rd_d(dt, y, oy) : 1.0);
        if (ISNAN_SKIP(a) || ISNAN_SKIP(b)) continue;
        cnt++;
        /* The naive loop is C's `s += x[i] * y[i]` in the input type: the product is
         * rounded to that type before the sum is. */
        double ab = naive ? to_input_float(dt, a * b) : a * b;
        double t = prod ? acc * a : (op == TALLY_SUM || op == TALLY_MEAN) ? acc + a : acc + ab;
        acc = naive ? to_input_float(dt, t) : t;
      });
      if (op == TALLY_NORM2 && dt == TALLY_F64 && !naive && !isnan(acc) &&
          !(isfinite(acc) && acc >= 0x1p-968)) {
        /* Overflowed, or squares lost bits to underflow: rescale by a power of two so the
         * largest magnitude is near 1 (see reduce.c), and answer from the scaled sum. */
        double mx = 0.0;
        FOR_EACH(w, { double a = fabs(rd_d(dt, x, ox)); if (!ISNAN_SKIP(a) && a > mx) mx = a; });
        double r = mx;
        if (mx != 0.0 && !isinf(mx)) {
          int e;
          frexp(mx, &e);
          if (e < -1020) e = -1020; /* keep 2^-e finite */
          double sc = ldexp(1.0, -e), s2 = 0.0;
          FOR_EACH(w, { double a = rd_d(dt, x, ox) * sc; if (!ISNAN_SKIP(a)) s2 += a * a; });
          r = ldexp(sqrt(s2), e); /* 2^e alone overflows for e = 1024 */
        }
        tally__store_f64(rd, out, at, r);
        return TALLY_OK;
      }
      if (op == TALLY_MEAN) acc = cnt ? (naive ? to_input_float(dt, acc / (double)cnt) : acc / (double)cnt) : NAN;
      if (op == TALLY_NORM2) acc = naive ? to_input_float(dt, sqrt(acc)) : sqrt(acc);
      tally__store_f64(rd, out, at, acc);
    } else if (op == TALLY_MEAN && !naive) {
      unsigned __int128 acc = 0;
      FOR_EACH(w, {
        int64_t v = rd_l(dt, x, ox);
        acc += dt == TALLY_U64 ? (unsigned __int128)(uint64_t)v : (unsigned __int128)(__int128)v;
      });
      double m = dt == TALLY_U64 ? (double)acc : (double)(__int128)acc;
      tally__store_f64(rd, out, at, m / (double)n);
    } else {
      uint64_t acc = prod ? 1 : 0;
      FOR_EACH(w, {
        uint64_t a = (uint64_t)rd_l(dt, x, ox);
        uint64_t b = sq ? a : (op == TALLY_DOT ? (uint64_t)rd_l(dt, y, oy) : 1);
        uint64_t t = prod ? acc * a : (op == TALLY_SUM || op == TALLY_MEAN) ? acc + a : acc + a * b;
        acc = naive ? (uint64_t)to_input_int(dt, t) : t;
      });
      if (op == TALLY_MEAN) tally__store_f64(rd, out, at, (IS_UNSIGNED(dt) ? (double)acc : (double)(int64_t)acc) / (double)n);
      else if (op == TALLY_NORM2) tally__store_f64(rd, out, at, sqrt(IS_UNSIGNED(dt) ? (double)acc : (double)(int64_t)acc));
      else tally__store_i64(rd, out, at, (int64_t)acc);
    }
    return TALLY_OK;
  }
  case TALLY_VAR: case TALLY_STD: {
    int64_t cnt = 0;
    double var;
    if (naive) {
      /* The textbook one-pass formula in the input type: cancellation on display. */
      double s = 0, ss = 0;
      uint64_t is = 0, iss = 0;
      FOR_EACH(w, {
        if (IS_FLOAT(dt)) {
          double v = rd_d(dt, x, ox);
          if (ISNAN_SKIP(v)) continue;
          s = to_input_float(dt, s + v);
          ss = to_input_float(dt, ss + to_input_float(dt, v * v));
        } else {
          uint64_t v = (uint64_t)rd_l(dt, x, ox);
          is = (uint64_t)to_input_int(dt, is + v);
          iss = (uint64_t)to_input_int(dt, iss + v * v);
        }
        cnt++;
      });
      if (!IS_FLOAT(dt)) {
        s = IS_UNSIGNED(dt) ? (double)is : (double)(int64_t)is;
        ss = IS_UNSIGNED(dt) ? (double)iss : (double)(int64_t)iss;
      }
      if (cnt > p->opt.ddof) {
        double c = (double)cnt;
        double t = IS_FLOAT(dt) ? to_input_float(dt, ss - to_input_float(dt, to_input_float(dt, s * s) / c)) : ss - s * s / c;
        var = IS_FLOAT(dt) ? to_input_float(dt, t / (c - p->opt.ddof)) : t / (c - p->opt.ddof);
      } else {
        var = NAN;
      }
    } else {
      /* Welford's update. */
      double mean = 0, m2 = 0;
      FOR_EACH(w, {
        double v = rd_d(dt, x, ox);
        if (ISNAN_SKIP(v)) continue;
        cnt++;
        double d = v - mean;
        mean += d / (double)cnt;
        m2 += d * (v - mean);
      });
      var = cnt > p->opt.ddof ? m2 / (double)(cnt - p->opt.ddof) : NAN;
    }
    if (ign && cnt == 0) { tally__store_f64(rd, out, at, NAN); return TALLY_OK; }
    if (cnt <= p->opt.ddof)
      return tally__fail(ctx, TALLY_EINVAL, "opt->ddof: %d, but slice %" PRId64 " has only %" PRId64
                         " value(s) (need more than ddof)", p->opt.ddof, k, cnt);
    tally__store_f64(rd, out, at, op == TALLY_STD ? sqrt(var) : var);
    return TALLY_OK;
  }
  case TALLY_MIN: case TALLY_MAX: case TALLY_MINMAX: {
    int64_t mn = INT64_MAX, mx = INT64_MIN;
    int nan = 0, seen = 0;
    FOR_EACH(w, {
      double v = IS_FLOAT(dt) ? rd_d(dt, x, ox) : 0.0;
      if (IS_FLOAT(dt) && v != v) { nan = 1; continue; }
      int64_t key = rd_key(dt, x, ox);
      seen = 1;
      if (key < mn) mn = key;
      if (key > mx) mx = key;
    });
    int isnan_res = (nan && !ign) || !seen;
    if (op != TALLY_MAX) { if (isnan_res) tally__store_nan(rd, out, at); else tally__store_key(dt, out, at, mn); }
    if (op != TALLY_MIN) {
      int64_t at2 = op == TALLY_MINMAX ? at + s1 : at;
      if (isnan_res) tally__store_nan(rd, out, at2); else tally__store_key(dt, out, at2, mx);
    }
    return TALLY_OK;
  }
  case TALLY_ARGMIN: case TALLY_ARGMAX: {
    const int ismax = op == TALLY_ARGMAX;
    int64_t best = 0, bidx = -1, first_nan = -1;
    FOR_EACH(w, {
      if (first_nan >= 0) continue; /* the first NaN wins: nothing after it matters */
      double v = IS_FLOAT(dt) ? rd_d(dt, x, ox) : 0.0;
      if (IS_FLOAT(dt) && v != v) {
        if (!ign) first_nan = j;
        continue;
      }
      int64_t key = rd_key(dt, x, ox);
      if (bidx < 0 || (ismax ? key > best : key < best)) { best = key; bidx = j; }
    });
    if (first_nan >= 0) bidx = first_nan;
    if (bidx < 0)
      return tally__fail(ctx, TALLY_EEMPTY, "in: %s of slice %" PRId64 ": all %" PRId64
                         " values are NaN and NaNs are ignored", tally_op_name(op), k, n);
    tally__store_i64(rd, out, at, bidx);
    return TALLY_OK;
  }
  case TALLY_ANY: case TALLY_ALL: case TALLY_COUNT_NONZERO: {
    int64_t cnt = 0;
    FOR_EACH(w, { cnt += rd_d(dt, x, ox) != 0.0; });
    tally__store_i64(rd, out, at, op == TALLY_ANY ? cnt > 0 : op == TALLY_ALL ? cnt == n : cnt);
    return TALLY_OK;
  }
  case TALLY_BITAND: case TALLY_BITOR: case TALLY_BITXOR: {
    int64_t acc = op == TALLY_BITAND ? -1 : 0;
    FOR_EACH(w, {
      int64_t v = rd_l(dt, x, ox);
      acc = op == TALLY_BITAND ? acc & v : op == TALLY_BITOR ? acc | v : acc ^ v;
    });
    tally__store_i64(rd, out, at, acc);
    return TALLY_OK;
  }
  case TALLY_AFFINE: {
    if (IS_FLOAT(dt)) {
      double A = 1.0, B = 0.0;
      FOR_EACH(w, {
        double a = rd_d(dt, x, ox), b = rd_d(dt, y, oy);
        if (ISNAN_SKIP(a) || ISNAN_SKIP(b)) continue;
        A = a * A;
        B = a * B + b;
      });
      tally__store_f64(rd, out, at, A);
      tally__store_f64(rd, out, at + s1, B);
    } else {
      uint64_t A = 1, B = 0;
      FOR_EACH(w, {
        uint64_t a = (uint64_t)rd_l(dt, x, ox), b = (uint64_t)rd_l(dt, y, oy);
        A = a * A;
        B = a * B + b;
      });
      tally__store_i64(rd, out, at, (int64_t)A);
      tally__store_i64(rd, out, at + s1, (int64_t)B);
    }
    return TALLY_OK;
  }
  default:
    return tally__fail(ctx, TALLY_EINTERNAL, "op %d has no sequential rule", (int)op);
  }
}

static tally_status run_slice(tally_context *ctx, const tally__problem *p, tally__variant v,
                              const walk_t *w, void *out, int64_t at, int64_t s1, int64_t k) {
#define CASE(DT) case DT: return run_body(DT, ctx, p, v, w, out, at, s1, k);
  switch (p->dtype) {
    CASE(TALLY_BOOL) CASE(TALLY_I8) CASE(TALLY_I16) CASE(TALLY_I32) CASE(TALLY_I64)
    CASE(TALLY_U8) CASE(TALLY_U16) CASE(TALLY_U32) CASE(TALLY_U64) CASE(TALLY_F16)
    CASE(TALLY_BF16) CASE(TALLY_F32) CASE(TALLY_F64)
  default: return tally__fail(ctx, TALLY_EINTERNAL, "dtype %d", (int)p->dtype);
  }
#undef CASE
}

tally_status tally__cpu_reduce_simple(tally_context *ctx, const tally__problem *p,
                                      tally__variant v, const void *in, const void *in2,
                                      void *out, int64_t s0, int64_t s1) {
  const int64_t esz = (int64_t)tally_dtype_size(p->dtype);
  int64_t done = 0, total = p->offsets ? p->offsets[p->nslices] - p->offsets[0] : p->nslices * p->n;
  for (int64_t k = 0; k < p->nslices; k++) {
    walk_t w;
    int64_t st0 = p->offsets ? p->offsets[k] * p->cstride[0] : k * p->slice_stride[0];
    int64_t st1 = p->offsets ? p->offsets[k] * p->cstride[1] : k * p->slice_stride[1];
    w.x = (const char *)in + st0 * esz;
    w.y = in2 ? (const char *)in2 + st1 * esz : NULL;
    w.rows = p->rows;
    w.cols = p->offsets ? p->offsets[k + 1] - p->offsets[k] : p->cols;
    for (int i = 0; i < 2; i++) { w.rs[i] = p->rstride[i]; w.cs[i] = p->cstride[i]; }
    tally_status s = run_slice(ctx, p, v, &w, out, k * s0, s1, k);
    if (s) return s;
    done += w.rows * w.cols;
    if (p->opt.progress) p->opt.progress(done, total, p->opt.progress_user);
  }
  return TALLY_OK;
}

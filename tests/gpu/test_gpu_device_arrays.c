/* test_gpu_device_arrays [--quick] [--device DEV]: reductions of arrays that live in device memory
 * (TALLY_MEM_DEVICE), checked against the same reduction of the host copy on the `cpu`
 * device.
 *
 * Three ways to hold the data, each over the whole op matrix:
 *   driver  inputs from cuMemAlloc_v2 in the device's primary context (the caller's own
 *           memory, pushed current by the caller, as an application holding a CUDA
 *           context does), output on the host;
 *   tally   inputs from tally_mem_alloc, filled through tally_mem_copy, output on the host;
 *   devout  as tally, and the output in device memory too (read back with tally_mem_copy).
 * Then strided, reversed and 2-D device inputs (axis -1, 0, 1), streamed host inputs
 * (pageable and pinned, tally_mem_alloc_host), and every variant of the
 * backend on a device input. After every call: the device input is unchanged (no kernel
 * reduces in place in the caller's memory) and tally left the caller's CUDA context stack
 * as it found it.
 *
 * Data are fresh random numbers (seed logged; TALLY_TEST_SEED repeats a run), never zeros,
 * with ties planted for ARG*. Integers, MIN/MAX/MINMAX/ARG* and COUNT_NONZERO must match
 * bit for bit; float results within twice the bound docs/SEMANTICS.md gives each backend
 * (both results are within it of the exact value), which for f64-accumulated results is a
 * few units in the last place.
 *
 * --device DEV (default cuda:0) tests another backend's TALLY_MEM_DEVICE: with one that is
 * not CUDA (e.g. cpu, where device memory is host memory) the driver part is left out; it
 * is how the test itself is checked on a machine without a GPU.
 *
 * Exit 0: passed; 1: failures; 77: no CUDA device here (skipped). */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gpu_util.h"
#include "rng.h"

#define U32 0x1p-24
#define U64 0x1p-53
#define GUARD 8 /* poisoned values on each side of a device output */

static tg_cu cu;
static CUdevice cudev;
static CUcontext prim;
static tally_context *gpu, *cpu;
static uint64_t seed;
static int quick, have_driver;

/* ---------------------------------------------------------------- layouts */

typedef struct {
  const char *name;
  int ndim;
  int64_t shape[2];
  int64_t strides[2]; /* explicit, in elements */
  int64_t off;        /* physical index of logical element 0 */
  int64_t buf;        /* physical elements */
} lay;

static int64_t lay_n(const lay *L) { return L->ndim == 1 ? L->shape[0] : L->shape[0] * L->shape[1]; }

static int64_t lay_at(const lay *L, int64_t k) { /* logical row-major index → physical */
  if (L->ndim == 1) return L->off + k * L->strides[0];
  int64_t r = k / L->shape[1], c = k % L->shape[1];
  return L->off + r * L->strides[0] + c * L->strides[1];
}

static lay lay_1d(int64_t n) {
  lay L = {"contiguous", 1, {n, 0}, {1, 0}, 0, n};
  return L;
}

/* ---------------------------------------------------------------- elements */

static int is_float(tally_dtype t) {
  return t == TALLY_F16 || t == TALLY_BF16 || t == TALLY_F32 || t == TALLY_F64;
}

static double getd(const void *p, tally_dtype dt, int64_t i) {
  switch (dt) {
    case TALLY_F32: return ((const float *)p)[i];
    case TALLY_F64: return ((const double *)p)[i];
    case TALLY_I32: return ((const int32_t *)p)[i];
    case TALLY_I64: return (double)((const int64_t *)p)[i];
    case TALLY_F16: return tally_f16_to_f32(((const uint16_t *)p)[i]);
    case TALLY_BF16: return tally_bf16_to_f32(((const uint16_t *)p)[i]);
    default: return NAN;
  }
}

static void setd(void *p, tally_dtype dt, int64_t i, double v) {
  switch (dt) {
    case TALLY_F32: ((float *)p)[i] = (float)v; break;
    case TALLY_F64: ((double *)p)[i] = v; break;
    case TALLY_I32: ((int32_t *)p)[i] = (int32_t)v; break;
    case TALLY_F16: ((uint16_t *)p)[i] = tally_f32_to_f16((float)v); break;
    case TALLY_BF16: ((uint16_t *)p)[i] = tally_f32_to_bf16((float)v); break;
    default: break;
  }
}

/* Random, never zero: floats uniform in [-1, 2) (a zero draw becomes 0.25), integers
 * uniform in [-2^30, 2^30) without 0, with the odd extreme. `affine_a`: values near 1, so
 * products of millions stay finite. */
static void fill(void *p, tally_dtype dt, int64_t n, tt_rng *r, int affine_a) {
  for (int64_t i = 0; i < n; i++) {
    if (dt == TALLY_I32) {
      int64_t v = (int64_t)tt_rng_below(r, (uint64_t)1 << 31) - ((int64_t)1 << 30);
      if (tt_rng_below(r, 1000) == 0) v = tt_rng_below(r, 2) ? INT32_MAX - 1 : INT32_MIN + 1;
      ((int32_t *)p)[i] = (int32_t)(v ? v : 7);
    } else {
      double v = affine_a ? 1.0 + (tt_rng_unit(r) - 0.5) * 2e-3 : tt_rng_unit(r) * 3.0 - 1.0;
      setd(p, dt, i, v);
      if (getd(p, dt, i) == 0.0) setd(p, dt, i, 0.25);
    }
  }
}

/* Ties for ARG*: the largest value at p < q, the smallest at r < s (n >= 4). */
static void plant_ties(void *p, tally_dtype dt, int64_t n, tt_rng *rg) {
  if (n < 4) return;
  int64_t a = (int64_t)tt_rng_below(rg, (uint64_t)n / 2), b = a + 1 + (int64_t)tt_rng_below(rg, (uint64_t)(n - a - 1));
  double hi = dt == TALLY_I32 ? INT32_MAX : 2.5, lo = dt == TALLY_I32 ? INT32_MIN : -1.5;
  setd(p, dt, a, hi);
  setd(p, dt, b, hi);
  int64_t c = (int64_t)tt_rng_below(rg, (uint64_t)n), d = (int64_t)tt_rng_below(rg, (uint64_t)n);
  if (c != a && c != b && d != a && d != b && c != d) {
    setd(p, dt, c, lo);
    setd(p, dt, d, lo);
  }
}

/* ---------------------------------------------------------------- bounds */

typedef struct {
  double sabs;   /* Σ|x| over all logical elements (an upper bound for any slice) */
  double sabsxy; /* Σ|x·y| */
  double maxabs; /* max |x| */
  double bscale; /* AFFINE: Σ_k |b_k| Π_{j>k} |a_j| */
} stats;

static stats stats_of(const lay *L, tally_dtype dt, const void *x, const void *y, tally_op op) {
  stats s = {0, 0, 0, 0};
  long double sa = 0, sxy = 0, bs = 0;
  for (int64_t k = 0, n = lay_n(L); k < n; k++) {
    double v = getd(x, dt, lay_at(L, k));
    sa += fabs(v);
    if (fabs(v) > s.maxabs) s.maxabs = fabs(v);
    if (y) {
      double w = getd(y, dt, lay_at(L, k));
      sxy += fabsl((long double)v * w);
      if (op == TALLY_AFFINE) bs = fabsl((long double)v) * bs + fabs(w);
    }
  }
  s.sabs = (double)sa;
  s.sabsxy = (double)sxy;
  s.bscale = (double)bs;
  return s;
}

/* The bound of docs/SEMANTICS.md on |result − exact| for one backend (S ≈ want). */
static double bound_one(tally_op op, tally_dtype dt, tally_dtype odt, int64_t n, int ddof,
                        double want, int which, const stats *st) {
  double S = fabs(want), nn = (double)n;
  double uo = odt == TALLY_F64 ? U64 : U32; /* rounding of the result type */
  switch (op) {
    case TALLY_SUM:
      return dt == TALLY_F64 ? U64 * S + nn * nn * 0x1p-104 * st->sabs : U32 * S + nn * U64 * st->sabs;
    case TALLY_DOT:
      return dt == TALLY_F64 ? U64 * S + nn * nn * 0x1p-104 * st->sabsxy
                             : U32 * S + nn * U64 * st->sabsxy;
    case TALLY_MEAN:
      if (!is_float(dt)) return 2 * U64 * S;
      if (dt == TALLY_F64) return 2 * U64 * S + nn * 0x1p-104 * st->sabs;
      return 2 * U32 * S + U64 * st->sabs;
    case TALLY_VAR: {
      double d = nn - ddof, M2 = S * d, eps = (1024 + nn / 1024) * U64 * st->maxabs;
      double sq_ub = nn * 4 * st->maxabs * st->maxabs; /* Σ(x − x0)² ≤ n·(2·max|x|)² */
      double bm = 8 * nn * U64 * M2 + 8 * (nn * U64) * (nn * U64) * sq_ub + 2 * eps * sqrt(nn * M2) +
                  nn * eps * eps;
      return bm / d + U64 * S + uo * S;
    }
    case TALLY_NORM2: { /* sqrt halves the sum of squares' relative error (DOT's bound) */
      double rel = dt == TALLY_F64 ? U64 + nn * nn * 0x1p-104 : nn * U64;
      return S * rel / 2 + uo * S;
    }
    case TALLY_AFFINE: /* f64 accumulation in some association, then the rounding */
      return uo * S + 4 * nn * U64 * (which == 0 ? S : st->bscale);
    default:
      return 0;
  }
}

static int exact_op(tally_op op, tally_dtype dt, tally_dtype odt) {
  return !is_float(odt) || !(op == TALLY_SUM || op == TALLY_DOT || op == TALLY_MEAN ||
                             op == TALLY_VAR || op == TALLY_AFFINE || op == TALLY_NORM2);
}

/* Compare `count` result values of odt; returns 1 when all agree. */
static int compare(const char *what, tally_op op, tally_dtype dt, tally_dtype odt, int width,
                   int64_t slice_n, int ddof, const void *got, const void *want, int64_t count,
                   const stats *st) {
  size_t osz = tally_dtype_size(odt);
  if (exact_op(op, dt, odt)) {
    for (int64_t i = 0; i < count; i++) {
      if (memcmp((const char *)got + i * osz, (const char *)want + i * osz, osz) == 0) continue;
      if (odt == TALLY_I64)
        printf("FAIL %s: value %" PRId64 ": got %" PRId64 ", cpu %" PRId64 "\n", what, i,
               ((const int64_t *)got)[i], ((const int64_t *)want)[i]);
      else
        printf("FAIL %s: value %" PRId64 ": got %.17g, cpu %.17g\n", what, i, getd(got, odt, i),
               getd(want, odt, i));
      return 0;
    }
    return 1;
  }
  for (int64_t i = 0; i < count; i++) {
    double g = getd(got, odt, i), w = getd(want, odt, i);
    double b = 2 * bound_one(op, dt, odt, slice_n, ddof, w, (int)(i % width), st) + 1e-300;
    if (!(fabs(g - w) <= b)) { /* NaN fails too */
      printf("FAIL %s: value %" PRId64 ": got %.17g, cpu %.17g, |diff| %.3g > bound %.3g\n", what, i,
             g, w, fabs(g - w), b);
      return 0;
    }
  }
  return 1;
}

/* ---------------------------------------------------------------- device buffers */

typedef enum { K_DRIVER, K_TALLY, K_DEVOUT } kind;
static const char *const kind_name[] = {"driver", "tally", "devout"};

typedef struct {
  kind k;
  CUdeviceptr d; /* K_DRIVER */
  void *t;       /* K_TALLY, K_DEVOUT */
} dbuf;

static uintptr_t dbuf_addr(const dbuf *b) { return b->k == K_DRIVER ? (uintptr_t)b->d : (uintptr_t)b->t; }

/* Allocate and fill with `bytes` from host; 0 on success. */
static int dbuf_put(dbuf *b, kind k, const void *host, size_t bytes) {
  memset(b, 0, sizeof *b);
  b->k = k;
  if (k == K_DRIVER) {
    CUresult r = cu.MemAlloc(&b->d, bytes);
    if (r == 0) r = cu.MemcpyHtoD(b->d, host, bytes);
    /* cuMemcpyHtoD from pageable memory may return before the data reach the device,
     * and tally's stream does not wait for the legacy default stream: a caller must
     * synchronize before handing tally device data it just wrote. */
    if (r == 0) r = cu.CtxSynchronize();
    TG_CHECK(r == 0, "cuMemAlloc/cuMemcpyHtoD of %zu bytes: %s", bytes, tg_cu_name(&cu, r));
    return r == 0 ? 0 : -1;
  }
  tally_status s = tally_mem_alloc(gpu, bytes, &b->t);
  if (s == TALLY_OK) s = tally_mem_copy(gpu, b->t, TALLY_MEM_DEVICE, host, TALLY_MEM_HOST, bytes);
  TG_CHECK(s == TALLY_OK, "tally_mem_alloc/copy of %zu bytes: %s: %s", bytes, tally_status_name(s),
           tally_errmsg(gpu));
  return s == TALLY_OK ? 0 : -1;
}

static int dbuf_get(const dbuf *b, void *host, size_t bytes) {
  if (b->k == K_DRIVER) {
    CUresult r = cu.MemcpyDtoH(host, b->d, bytes);
    TG_CHECK(r == 0, "cuMemcpyDtoH: %s", tg_cu_name(&cu, r));
    return r == 0 ? 0 : -1;
  }
  tally_status s = tally_mem_copy(gpu, host, TALLY_MEM_HOST, b->t, TALLY_MEM_DEVICE, bytes);
  TG_CHECK(s == TALLY_OK, "tally_mem_copy to host: %s: %s", tally_status_name(s), tally_errmsg(gpu));
  return s == TALLY_OK ? 0 : -1;
}

static void dbuf_free(dbuf *b) {
  if (b->k == K_DRIVER && b->d) {
    CUresult r = cu.MemFree(b->d);
    TG_CHECK(r == 0, "cuMemFree: %s", tg_cu_name(&cu, r));
  } else if (b->t) {
    tally_status s = tally_mem_free(gpu, b->t);
    TG_CHECK(s == TALLY_OK, "tally_mem_free: %s: %s", tally_status_name(s), tally_errmsg(gpu));
  }
  memset(b, 0, sizeof *b);
}

/* The caller's context stack must be as tally found it: `expect` current. */
static void check_current(const char *what, CUcontext expect) {
  if (!have_driver) return;
  CUcontext cur = NULL;
  CUresult r = cu.CtxGetCurrent(&cur);
  TG_CHECK(r == 0 && cur == expect,
           "%s: the calling thread's current CUDA context is %p, expected %p (%s): tally must "
           "leave the caller's context stack as it found it",
           what, (void *)cur, (void *)expect, expect ? "the caller's pushed primary context" : "none");
}

/* ---------------------------------------------------------------- one case */

typedef struct {
  tally_op op;
  tally_dtype dt;
  int ddof;
  int big; /* also at BIG_N elements (driver part, full run) */
} opspec;

static int64_t n_unsupported;

/* Reduce the layout L of x (and y for DOT/AFFINE) on both devices and compare. */
static void run_case(kind k, opspec o, const lay *L, int axis, const void *x, const void *y,
                     const char *variant, CUcontext expect_current) {
  tally_dtype odt;
  if (tally_result_dtype(o.op, o.dt, &odt) != TALLY_OK) return;
  int width = tally_result_width(o.op);
  int64_t n = lay_n(L);
  int64_t slices = axis < 0 ? 1 : axis == 0 ? L->shape[1] : L->shape[0];
  int64_t slice_n = axis < 0 ? n : axis == 0 ? L->shape[0] : L->shape[1];
  int64_t nout = slices * width;
  size_t es = tally_dtype_size(o.dt), osz = tally_dtype_size(odt), bytes = (size_t)L->buf * es;
  char what[256];
  snprintf(what, sizeof what, "[%s] %s %s %s n=%" PRId64 " axis=%d ddof=%d%s%s", kind_name[k],
           tally_op_name(o.op), tally_dtype_name(o.dt), L->name, n, axis, o.ddof,
           variant ? " variant=" : "", variant ? variant : "");

  tally_options opt;
  tally_options_init(&opt);
  opt.axis = axis;
  opt.ddof = o.ddof;
  opt.variant = variant;

  /* The reference: the host copy on the cpu device. */
  tally_array hin = {(char *)x + L->off * (int64_t)es, o.dt, L->ndim, {L->shape[0], L->shape[1]},
                     {L->strides[0], L->strides[1]}, TALLY_MEM_HOST};
  tally_array hin2 = hin;
  if (y) hin2.data = (char *)y + L->off * (int64_t)es;
  void *want = malloc((size_t)nout * osz), *got = malloc((size_t)nout * osz);
  tally_array hout = tally_array_1d(want, odt, nout);
  tally_options copt = opt;
  copt.variant = NULL;
  tally_status s = tally_reduce(cpu, o.op, &hin, y ? &hin2 : NULL, &hout, &copt);
  if (s != TALLY_OK) {
    TG_CHECK(0, "%s: the cpu reference failed: %s: %s", what, tally_status_name(s), tally_errmsg(cpu));
    free(want), free(got);
    return;
  }

  /* The device copy. */
  kind ik = k == K_DEVOUT ? K_TALLY : k;
  dbuf dx, dy, dout;
  memset(&dy, 0, sizeof dy);
  memset(&dout, 0, sizeof dout);
  if (dbuf_put(&dx, ik, x, bytes) != 0 || (y && dbuf_put(&dy, ik, y, bytes) != 0)) goto done;
  tally_array din = hin, din2 = hin2;
  din.mem = din2.mem = TALLY_MEM_DEVICE;
  din.data = (void *)(dbuf_addr(&dx) + (uintptr_t)(L->off * (int64_t)es));
  if (y) din2.data = (void *)(dbuf_addr(&dy) + (uintptr_t)(L->off * (int64_t)es));
  tally_array dout_arr = tally_array_1d(got, odt, nout);
  tg_poison(got, (size_t)nout * osz);
  /* A device output sits between GUARD poisoned values on each side. */
  size_t gbytes = (size_t)(nout + 2 * GUARD) * osz;
  if (k == K_DEVOUT) {
    unsigned char *p = malloc(gbytes);
    if (!p) goto done;
    tg_poison(p, gbytes);
    int bad = dbuf_put(&dout, K_TALLY, p, gbytes);
    free(p);
    if (bad) goto done;
    dout_arr.data = (char *)dout.t + GUARD * osz;
    dout_arr.mem = TALLY_MEM_DEVICE;
  }
  s = tally_reduce(gpu, o.op, &din, y ? &din2 : NULL, &dout_arr, &opt);
  check_current(what, expect_current);
  if (s == TALLY_EUNSUPPORTED) {
    n_unsupported++;
    if (variant) { /* a ladder rung may do only some ops: the caller decides */
      printf("note %s: TALLY_EUNSUPPORTED: %s\n", what, tally_errmsg(gpu));
      goto done;
    }
    TG_CHECK(0, "%s: TALLY_EUNSUPPORTED: the backend does not accept %s: %s", what,
             k == K_DEVOUT ? "an output array in device memory" : L->ndim == 2 || L->strides[0] != 1
                                                                    ? "this layout in device memory"
                                                                    : "device arrays",
             tally_errmsg(gpu));
    goto done;
  }
  TG_CHECK(s == TALLY_OK, "%s: %s: %s", what, tally_status_name(s), tally_errmsg(gpu));
  if (s != TALLY_OK) goto done;
  if (k == K_DEVOUT) {
    unsigned char *p = malloc(gbytes);
    if (!p || dbuf_get(&dout, p, gbytes) != 0) {
      free(p);
      goto done;
    }
    int guards_ok = 1;
    for (size_t i = 0; i < GUARD * osz; i++)
      guards_ok &= p[i] == 0xA5 && p[gbytes - 1 - i] == 0xA5;
    TG_CHECK(guards_ok, "%s: wrote outside the device output's %" PRId64 " values", what, nout);
    memcpy(got, p + GUARD * osz, (size_t)nout * osz);
    free(p);
  }
  stats st = stats_of(L, o.dt, x, y, o.op);
  tg_checks++;
  if (!compare(what, o.op, o.dt, odt, width, slice_n, o.ddof, got, want, nout, &st)) tg_failures++;

  /* The inputs are the caller's: unchanged. */
  void *back = malloc(bytes);
  if (back && dbuf_get(&dx, back, bytes) == 0)
    TG_CHECK(memcmp(back, x, bytes) == 0, "%s: the device input changed during the reduction", what);
  if (back && y && dbuf_get(&dy, back, bytes) == 0)
    TG_CHECK(memcmp(back, y, bytes) == 0, "%s: the second device input changed", what);
  free(back);
done:
  dbuf_free(&dx);
  dbuf_free(&dy);
  dbuf_free(&dout);
  free(want);
  free(got);
}

/* ---------------------------------------------------------------- the parts */

static const opspec ops[] = {
    {TALLY_SUM, TALLY_F32, 0, 1},    {TALLY_SUM, TALLY_F64, 0, 1},    {TALLY_SUM, TALLY_I32, 0, 0},
    {TALLY_SUM, TALLY_F16, 0, 0},    {TALLY_MAX, TALLY_F32, 0, 0},    {TALLY_MAX, TALLY_I32, 0, 0},
    {TALLY_MAX, TALLY_BF16, 0, 0},   {TALLY_MIN, TALLY_F64, 0, 0},    {TALLY_ARGMAX, TALLY_F32, 0, 1},
    {TALLY_ARGMAX, TALLY_I32, 0, 0}, {TALLY_ARGMIN, TALLY_F64, 0, 0}, {TALLY_DOT, TALLY_F32, 0, 1},
    {TALLY_DOT, TALLY_F64, 0, 0},    {TALLY_DOT, TALLY_I32, 0, 0},    {TALLY_MINMAX, TALLY_F32, 0, 0},
    {TALLY_MINMAX, TALLY_I32, 0, 1}, {TALLY_VAR, TALLY_F32, 0, 0},    {TALLY_VAR, TALLY_F64, 0, 1},
    {TALLY_VAR, TALLY_F64, 1, 0},    {TALLY_MEAN, TALLY_F32, 0, 0},   {TALLY_MEAN, TALLY_I32, 0, 0},
    {TALLY_COUNT_NONZERO, TALLY_F32, 0, 0}, {TALLY_AFFINE, TALLY_F64, 0, 0},
};

#define BIG_N 16777221
static const int64_t sizes_full[] = {1, 2, 3, 31, 1000, 4099, 65537, 1048583, BIG_N};
static const int64_t sizes_quick[] = {1, 2, 31, 1000, 65537, 1048583};

static int two_inputs(tally_op op) { return op == TALLY_DOT || op == TALLY_AFFINE; }

static void part_matrix(kind k, CUcontext expect_current) {
  const int64_t *sizes = quick ? sizes_quick : sizes_full;
  int nsizes = quick ? (int)(sizeof sizes_quick / sizeof sizes_quick[0])
                     : (int)(sizeof sizes_full / sizeof sizes_full[0]);
  int f0 = tg_failures;
  for (size_t c = 0; c < sizeof ops / sizeof ops[0]; c++) {
    opspec o = ops[c];
    size_t es = tally_dtype_size(o.dt);
    for (int si = 0; si < nsizes; si++) {
      int64_t n = sizes[si];
      if (o.op == TALLY_VAR && n <= o.ddof) continue;
      if (n == BIG_N && !(o.big && k == K_DRIVER)) continue; /* host time: a few ops only */
      tt_rng r;
      tt_rng_stream(&r, seed, ((uint64_t)k << 40) | (c << 20) | (uint64_t)si);
      void *x = malloc((size_t)n * es), *y = two_inputs(o.op) ? malloc((size_t)n * es) : NULL;
      if (!x || (two_inputs(o.op) && !y)) {
        TG_CHECK(0, "out of host memory");
        free(x), free(y);
        return;
      }
      fill(x, o.dt, n, &r, o.op == TALLY_AFFINE);
      if (y) fill(y, o.dt, n, &r, 0);
      if (o.op == TALLY_ARGMAX || o.op == TALLY_ARGMIN || o.op == TALLY_MINMAX) plant_ties(x, o.dt, n, &r);
      if (o.op == TALLY_COUNT_NONZERO) /* about a tenth zeros, half of them -0.0 */
        for (int64_t i = 0; i < n; i++)
          if (tt_rng_below(&r, 10) == 0) setd(x, o.dt, i, tt_rng_below(&r, 2) ? 0.0 : -0.0);
      lay L = lay_1d(n);
      run_case(k, o, &L, -1, x, y, NULL, expect_current);
      free(x);
      free(y);
    }
  }
  printf("part %-7s: %s\n", kind_name[k], tg_failures == f0 ? "ok" : "FAILURES");
  fflush(stdout);
}

/* Contiguous 1-D host inputs: in ordinary (pageable) memory, from 1 MiB copied through
 * pinned buffers by the host's threads, under 1 MiB copied to the device (or, at any size,
 * reduced on the host instead, with the cpu device's bits, where the CPU kernel of the op
 * and dtype reads at memory speed on this host: stream.c's host_share_for and
 * tally__cuda_host_reduces), in five modes: the default;
 * every chunk on the host ($TALLY_CUDA_HOST_SHARE=1/1: the cpu device's bits for every
 * op); half the chunks on the host and half streamed to the GPU (1/2: ARGMAX and ARGMIN
 * with planted ties across both kinds of chunk, VAR's shift and AFFINE's order across
 * them); in pinned memory from tally_mem_alloc_host, by default (the same ops as from
 * pageable memory reduced on the host, with its bits); and pinned with
 * $TALLY_CUDA_PINNED=gpu, every op the GPU's way (under 8 MiB read over the bus by the
 * kernel, larger ones sent by DMA from where they are); at a 16-byte boundary and one
 * element past it; and, pageable and pinned, with opt.host_input = TALLY_HOST_INPUT_DEVICE,
 * whose bits must be those of the GPU's ways forced by the switches. Checked against the
 * cpu device like the rest. NORM2 of f64 twice, the second time with squares that
 * overflow (its rescue pass, on the host where the host reduces it). */
/* The ops stream.c reduces on the host from pageable memory on every ISA (what
 * tally__cpu_reads_at_memory_speed says of any CPU). */
static int host_reduced(tally_op op, tally_dtype dt) {
  size_t es = tally_dtype_size(dt);
  int fam = op == TALLY_SUM || op == TALLY_MEAN || op == TALLY_DOT || op == TALLY_SUMSQ ||
            op == TALLY_NORM2 || op == TALLY_MIN || op == TALLY_MAX || op == TALLY_MINMAX ||
            op == TALLY_ARGMIN || op == TALLY_ARGMAX;
  return fam && (es == 4 || es == 8);
}

static void part_host(void) {
  static const opspec hops[] = {
      {TALLY_SUM, TALLY_F32, 0, 0},    {TALLY_SUM, TALLY_F64, 0, 0},  {TALLY_SUM, TALLY_I32, 0, 0},
      {TALLY_ARGMAX, TALLY_F32, 0, 0}, {TALLY_DOT, TALLY_F32, 0, 0},  {TALLY_VAR, TALLY_F64, 1, 0},
      {TALLY_MINMAX, TALLY_I32, 0, 0}, {TALLY_AFFINE, TALLY_F64, 0, 0}, {TALLY_MEAN, TALLY_F16, 0, 0},
      {TALLY_DOT, TALLY_F64, 0, 0},    {TALLY_ARGMIN, TALLY_I64, 0, 0}, {TALLY_MAX, TALLY_U32, 0, 0},
      {TALLY_SUM, TALLY_U8, 0, 0},     {TALLY_VAR, TALLY_I16, 0, 0},  {TALLY_PROD, TALLY_F32, 0, 0},
      {TALLY_ARGMAX, TALLY_F16, 0, 0}, {TALLY_VAR, TALLY_F32, 0, 0},  {TALLY_COUNT_NONZERO, TALLY_I16, 0, 0},
      {TALLY_NORM2, TALLY_F64, 0, 0},  {TALLY_NORM2, TALLY_F64, 0, 1}, {TALLY_NORM2, TALLY_U16, 0, 0},
  };
  static const int64_t hsizes[] = {4099, 262147, 1048583, 6000011};
  int nsizes = quick ? 3 : 4, f0 = tg_failures;
  /* mode 0: pageable; 1: pageable, half the chunks streamed to the GPU; 2: pinned;
   * 3: pageable, every chunk on the host; 4: pinned, the GPU's ways; 5 and 6: pageable and
   * pinned with opt.host_input = TALLY_HOST_INPUT_DEVICE (the bits of the GPU's ways) */
  static const char *const mode_name[] = {"pageable", "pageable, chunks 1/2 on the host", "pinned",
                                          "pageable, every chunk on the host", "pinned, the GPU's ways",
                                          "pageable, host_input DEVICE", "pinned, host_input DEVICE"};
  for (int mode = 0; mode < 7; mode++)
    for (size_t c = 0; c < sizeof hops / sizeof hops[0]; c++)
      for (int si = 0; si < nsizes; si++)
        for (int off = 0; off < 2; off++) {
          opspec o = hops[c];
          int pinned = mode == 2 || mode == 4 || mode == 6;
          tally_dtype odt;
          if (tally_result_dtype(o.op, o.dt, &odt) != TALLY_OK) continue;
          if (mode == 1 || mode == 3) setenv("TALLY_CUDA_HOST_SHARE", mode == 1 ? "1/2" : "1/1", 1);
          else unsetenv("TALLY_CUDA_HOST_SHARE");
          if (mode == 4) setenv("TALLY_CUDA_PINNED", "gpu", 1);
          else unsetenv("TALLY_CUDA_PINNED");
          int64_t n = hsizes[si], width = tally_result_width(o.op);
          size_t es = tally_dtype_size(o.dt), osz = tally_dtype_size(odt), bytes = (size_t)(n + 1) * es;
          void *bx = NULL, *by = NULL;
          tally_status s = TALLY_OK;
          if (pinned) {
            s = tally_mem_alloc_host(gpu, bytes, &bx);
            if (s == TALLY_OK && two_inputs(o.op)) s = tally_mem_alloc_host(gpu, bytes, &by);
          } else {
            bx = malloc(bytes);
            if (two_inputs(o.op)) by = malloc(bytes);
          }
          TG_CHECK(s == TALLY_OK && bx && (by || !two_inputs(o.op)), "%s host memory of %zu bytes: %s: %s",
                   pinned ? "pinned" : "pageable", bytes, tally_status_name(s), tally_errmsg(gpu));
          if (s != TALLY_OK || !bx || (two_inputs(o.op) && !by)) goto next;
          {
            tt_rng r;
            tt_rng_stream(&r, seed, (UINT64_C(11) << 40) | ((uint64_t)mode << 24) | (c << 16) |
                                        ((uint64_t)si << 8) | (uint64_t)off);
            char *x = (char *)bx + off * es, *y = by ? (char *)by + off * es : NULL;
            fill(x, o.dt, n, &r, o.op == TALLY_AFFINE || o.op == TALLY_PROD); /* PROD: near 1, no underflow */
            if (y) fill(y, o.dt, n, &r, 0);
            if (o.op == TALLY_ARGMAX || o.op == TALLY_ARGMIN || o.op == TALLY_MINMAX) plant_ties(x, o.dt, n, &r);
            if (o.op == TALLY_NORM2 && o.big) /* here: squares that overflow, so the rescue pass runs */
              for (int64_t i = 0; i < n; i++) ((double *)x)[i] *= 0x1p600;
            if (o.op == TALLY_NORM2 && o.dt == TALLY_U16) /* squares of up to 2^32 */
              for (int64_t i = 0; i < n; i++) ((uint16_t *)x)[i] = (uint16_t)tt_rng_below(&r, 65536);
            char what[160];
            snprintf(what, sizeof what, "[host %s] %s %s%s n=%" PRId64 " offset=%d", mode_name[mode],
                     tally_op_name(o.op), tally_dtype_name(o.dt), o.op == TALLY_NORM2 && o.big ? " (x 2^600)" : "", n, off);
            tally_options opt;
            tally_options_init(&opt);
            opt.ddof = o.ddof;
            if (mode >= 5) opt.host_input = TALLY_HOST_INPUT_DEVICE;
            tally_array in = tally_array_1d(x, o.dt, n), in2 = tally_array_1d(y, o.dt, n);
            void *want = malloc((size_t)width * osz), *got = malloc((size_t)width * osz);
            tally_array wout = tally_array_1d(want, odt, width), gout = tally_array_1d(got, odt, width);
            tg_poison(got, (size_t)width * osz);
            s = tally_reduce(cpu, o.op, &in, y ? &in2 : NULL, &wout, &opt);
            TG_CHECK(s == TALLY_OK, "%s: the cpu reference failed: %s", what, tally_errmsg(cpu));
            if (s == TALLY_OK) {
              s = tally_reduce(gpu, o.op, &in, y ? &in2 : NULL, &gout, &opt);
              TG_CHECK(s == TALLY_OK, "%s: %s: %s", what, tally_status_name(s), tally_errmsg(gpu));
            }
            if (s == TALLY_OK) {
              lay L = lay_1d(n);
              stats st = stats_of(&L, o.dt, x, y, o.op);
              tg_checks++;
              if (!compare(what, o.op, o.dt, odt, (int)width, n, o.ddof, got, want, width, &st)) tg_failures++;
              /* Reduced wholly on the host (stream.c), at any size: the cpu device's bits. */
              if (((mode == 0 || mode == 2) && host_reduced(o.op, o.dt)) || mode == 3)
                TG_CHECK(memcmp(got, want, (size_t)width * osz) == 0,
                         "%s: reduced on the host, so the cpu device's bits are expected, and they differ", what);
              if (mode >= 5) { /* the same call by the GPU's ways, forced by the measuring switches */
                void *gway = malloc((size_t)width * osz);
                tally_array g2 = tally_array_1d(gway, odt, width);
                tally_options dflt;
                tally_options_init(&dflt);
                dflt.ddof = o.ddof;
                setenv(mode == 5 ? "TALLY_CUDA_HOST_SHARE" : "TALLY_CUDA_PINNED", mode == 5 ? "0" : "gpu", 1);
                tg_poison(gway, (size_t)width * osz);
                s = tally_reduce(gpu, o.op, &in, y ? &in2 : NULL, &g2, &dflt);
                unsetenv(mode == 5 ? "TALLY_CUDA_HOST_SHARE" : "TALLY_CUDA_PINNED");
                TG_CHECK(s == TALLY_OK, "%s: the GPU's way: %s", what, tally_errmsg(gpu));
                TG_CHECK(s != TALLY_OK || memcmp(got, gway, (size_t)width * osz) == 0,
                         "%s: host_input DEVICE should give the GPU's way's bits, and they differ", what);
                free(gway);
              }
            }
            free(want);
            free(got);
          }
        next:
          if (pinned) {
            tally_mem_free_host(gpu, bx);
            tally_mem_free_host(gpu, by);
          } else {
            free(bx);
            free(by);
          }
        }
  unsetenv("TALLY_CUDA_HOST_SHARE");
  unsetenv("TALLY_CUDA_PINNED");
  printf("part host: %s\n", tg_failures == f0 ? "ok" : "FAILURES");
  fflush(stdout);
}

/* The threads of this process (from /proc; -1 where there is none). */
static int process_threads(void) {
  FILE *f = fopen("/proc/self/status", "r");
  if (!f) return -1;
  char line[256];
  int n = -1;
  while (fgets(line, sizeof line, f))
    if (sscanf(line, "Threads: %d", &n) == 1) break;
  fclose(f);
  return n;
}

/* opt.host_input = TALLY_HOST_INPUT_DEVICE keeps the host's cores free: a pinned input
 * (under 8 MiB read in place, from 8 MiB streamed by DMA) starts none of the host's
 * threads; and the same input with TALLY_HOST_INPUT_AUTO, reduced on the host, does start
 * them (where the host has more than one CPU), which shows the count can tell. A fresh
 * context, warmed on a device array first so that the driver's own threads are there. */
static void part_host_threads(const char *device) {
  int f0 = tg_failures;
  tally_context *g = NULL;
  if (tally_open(device, &g) != TALLY_OK || process_threads() < 0) {
    printf("part host threads: left out (%s)\n", g ? "no /proc/self/status" : tally_errmsg(NULL));
    tally_close(g);
    return;
  }
  const int64_t sizes[] = {1 << 20, 5 << 20}; /* f32: 4 MiB (read in place), 20 MiB (streamed) */
  float *x = NULL;
  void *d = NULL;
  tally_status s = tally_mem_alloc_host(g, (size_t)sizes[1] * sizeof(float), (void **)&x);
  if (s == TALLY_OK) s = tally_mem_alloc(g, 1024 * sizeof(float), &d);
  TG_CHECK(s == TALLY_OK, "host threads: memory: %s", tally_errmsg(g));
  if (s == TALLY_OK) {
    tt_rng r;
    tt_rng_stream(&r, seed, UINT64_C(13) << 40);
    fill(x, TALLY_F32, sizes[1], &r, 0);
    float got = 0;
    tally_array out = tally_array_1d(&got, TALLY_F32, 1);
    tally_array dev = tally_array_1d(d, TALLY_F32, 1024);
    dev.mem = TALLY_MEM_DEVICE;
    tally_options opt;
    tally_options_init(&opt);
    s = tally_mem_copy(g, d, TALLY_MEM_DEVICE, x, TALLY_MEM_HOST, 1024 * sizeof(float));
    if (s == TALLY_OK) s = tally_reduce(g, TALLY_SUM, &dev, NULL, &out, &opt); /* the warm-up */
    TG_CHECK(s == TALLY_OK, "host threads: warm-up on a device array: %s", tally_errmsg(g));
    const int before = process_threads();
    opt.host_input = TALLY_HOST_INPUT_DEVICE;
    for (int i = 0; i < 2 && s == TALLY_OK; i++) {
      tally_array in = tally_array_1d(x, TALLY_F32, sizes[i]);
      s = tally_reduce(g, TALLY_SUM, &in, NULL, &out, &opt);
      TG_CHECK(s == TALLY_OK, "host threads: pinned %" PRId64 " f32, host_input DEVICE: %s", sizes[i], tally_errmsg(g));
      const int now = process_threads();
      tg_checks++;
      TG_CHECK(now == before, "host threads: a pinned input of %" PRId64 " f32 with host_input DEVICE started "
               "threads: %d before, %d after", sizes[i], before, now);
    }
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    if (s == TALLY_OK && cpus > 1) {
      opt.host_input = TALLY_HOST_INPUT_AUTO;
      tally_array in = tally_array_1d(x, TALLY_F32, sizes[1]);
      s = tally_reduce(g, TALLY_SUM, &in, NULL, &out, &opt);
      const int now = process_threads();
      tg_checks++;
      TG_CHECK(s == TALLY_OK && now > before, "host threads: the same input reduced on the host (AUTO) should "
               "start the host's threads: %d before, %d after (%s)", before, now, tally_errmsg(g));
    }
  }
  tally_mem_free(g, d);
  tally_mem_free_host(g, x);
  tally_close(g);
  printf("part host threads: %s\n", tg_failures == f0 ? "ok" : "FAILURES");
  fflush(stdout);
}

/* Strided, reversed and 2-D device inputs, axis -1, 0 and 1. */
static void part_layouts(void) {
  static const int64_t shapes[][2] = {{3, 1000}, {1000, 3}, {129, 513}, {1024, 2051}};
  int nshapes = quick ? 3 : 4;
  static const opspec lops[] = {{TALLY_SUM, TALLY_F32, 0, 0},    {TALLY_ARGMAX, TALLY_F32, 0, 0},
                                {TALLY_MINMAX, TALLY_I32, 0, 0}, {TALLY_DOT, TALLY_F64, 0, 0},
                                {TALLY_VAR, TALLY_F32, 0, 0}};
  int f0 = tg_failures;
  for (int sh = 0; sh < nshapes; sh++) {
    int64_t R = shapes[sh][0], C = shapes[sh][1], n = R * C;
    lay Ls[5] = {
        {"stride3", 1, {n, 0}, {3, 0}, 0, 3 * (n - 1) + 1},
        {"reversed", 1, {n, 0}, {-1, 0}, n - 1, n},
        {"2d", 2, {R, C}, {C, 1}, 0, n},
        {"2d-transposed", 2, {R, C}, {1, R}, 0, n},
        {"2d-padded", 2, {R, C}, {C + 3, 1}, 0, R * (C + 3)},
    };
    for (size_t c = 0; c < sizeof lops / sizeof lops[0]; c++) {
      opspec o = lops[c];
      size_t es = tally_dtype_size(o.dt);
      for (int li = 0; li < 5; li++) {
        const lay *L = &Ls[li];
        tt_rng r;
        tt_rng_stream(&r, seed, (UINT64_C(7) << 40) | ((uint64_t)sh << 20) | (c << 8) | (uint64_t)li);
        void *x = malloc((size_t)L->buf * es), *y = two_inputs(o.op) ? malloc((size_t)L->buf * es) : NULL;
        if (!x || (two_inputs(o.op) && !y)) {
          TG_CHECK(0, "out of host memory");
          free(x), free(y);
          return;
        }
        fill(x, o.dt, L->buf, &r, 0); /* gaps hold random values too: reading one shows */
        if (y) fill(y, o.dt, L->buf, &r, 0);
        for (int axis = -1; axis <= (L->ndim == 2 ? 1 : -1); axis++) {
          if (o.op == TALLY_VAR && axis >= 0 && (axis == 0 ? R : C) < 2) continue;
          run_case(K_TALLY, o, L, axis, x, y, NULL, NULL);
        }
        free(x);
        free(y);
      }
    }
  }
  printf("part layouts: %s\n", tg_failures == f0 ? "ok" : "FAILURES");
  fflush(stdout);
}

/* Every variant of the backend on a device input: SUM f32, or AFFINE f64 for the rungs
 * that do only non-commutative reductions. */
static void part_variants(void) {
  static const int64_t vsizes[] = {1, 1000, 1048579, 4194319};
  int nv = quick ? 3 : 4, f0 = tg_failures;
  for (int v = 0; tally_variant_name(gpu, v); v++) {
    const char *name = tally_variant_name(gpu, v);
    if (strcmp(name, "naive") == 0) { /* input-type accumulators: losing accuracy is its point */
      printf("note variant naive: left out (its results are not held to the default bounds)\n");
      continue;
    }
    int any = 0;
    for (int pass = 0; pass < 2 && !any; pass++) {
      opspec o = pass == 0 ? (opspec){TALLY_SUM, TALLY_F32, 0, 0} : (opspec){TALLY_AFFINE, TALLY_F64, 0, 0};
      size_t es = tally_dtype_size(o.dt);
      for (int si = 0; si < nv; si++) {
        int64_t n = vsizes[si];
        tt_rng r;
        tt_rng_stream(&r, seed, (UINT64_C(9) << 40) | ((uint64_t)v << 20) | ((uint64_t)pass << 8) | (uint64_t)si);
        void *x = malloc((size_t)n * es), *y = o.op == TALLY_AFFINE ? malloc((size_t)n * es) : NULL;
        if (!x || (o.op == TALLY_AFFINE && !y)) {
          TG_CHECK(0, "out of host memory");
          free(x), free(y);
          return;
        }
        fill(x, o.dt, n, &r, o.op == TALLY_AFFINE);
        if (y) fill(y, o.dt, n, &r, 0);
        lay L = lay_1d(n);
        int64_t u0 = n_unsupported;
        run_case(K_TALLY, o, &L, -1, x, y, name, NULL);
        any |= n_unsupported == u0;
        free(x);
        free(y);
      }
    }
    if (!any) printf("note variant %s: neither SUM f32 nor AFFINE f64 (not a failure)\n", name);
  }
  printf("part variants: %s\n", tg_failures == f0 ? "ok" : "FAILURES");
  fflush(stdout);
}

int main(int argc, char **argv) {
  const char *device = "cuda:0";
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--quick") == 0) quick = 1;
    else if (strcmp(argv[i], "--device") == 0 && i + 1 < argc) device = argv[++i];
    else {
      fprintf(stderr, "usage: test_gpu_device_arrays [--quick] [--device DEV]\n");
      return 2;
    }
  }
  setvbuf(stdout, NULL, _IOLBF, 0);
  int rc = tg_open(device, &gpu);
  if (rc) return rc;
  tally_context_info info;
  have_driver = tally_context_describe(gpu, &info) == TALLY_OK && strcmp(info.backend, "cuda") == 0;
  char why[256];
  if (have_driver && tg_cu_load(&cu, why, sizeof why) != 0) {
    printf("FAIL: tally opened %s, but the test cannot use the driver: %s\n", device, why);
    tally_close(gpu);
    return 1;
  }
  if (!have_driver) printf("note: backend %s is not CUDA: the driver part is left out\n", info.backend);
  if (tally_open("cpu", &cpu) != TALLY_OK) {
    printf("FAIL: tally_open(cpu): %s\n", tally_errmsg(NULL));
    return 1;
  }
  seed = tt_test_seed("test_gpu_device_arrays");
  if (have_driver) {
    check_current("after tally_open", NULL);
    /* The caller's own memory, in the primary context that the caller made current. */
    int ordinal = strncmp(device, "cuda:", 5) == 0 ? atoi(device + 5) : 0;
    CUresult r = cu.DeviceGet(&cudev, ordinal);
    if (r == 0) r = cu.DevicePrimaryCtxRetain(&prim, cudev);
    if (r == 0) r = cu.CtxPushCurrent(prim);
    if (r != 0) {
      printf("FAIL: the primary context of device %d: %s\n", ordinal, tg_cu_name(&cu, r));
      return 1;
    }
    part_matrix(K_DRIVER, prim);
    CUcontext popped = NULL;
    r = cu.CtxPopCurrent(&popped);
    TG_CHECK(r == 0 && popped == prim, "cuCtxPopCurrent gave %p, expected the primary context %p",
             (void *)popped, (void *)prim);
    check_current("after popping the caller's context (tally left a push behind?)", NULL);
  }

  /* tally's own device memory, with no context current on the calling thread. */
  part_matrix(K_TALLY, NULL);
  part_matrix(K_DEVOUT, NULL);
  part_layouts();
  part_host();
  part_host_threads(device);
  part_variants();

  if (have_driver) {
    CUresult r = cu.DevicePrimaryCtxRelease(cudev);
    TG_CHECK(r == 0, "cuDevicePrimaryCtxRelease: %s", tg_cu_name(&cu, r));
  }
  tally_close(gpu);
  tally_close(cpu);
  return tg_done("test_gpu_device_arrays");
}

/* tally_scan and tally_scan_user: every op on every dtype over the size list, inclusive
 * and exclusive, with and without init, in place, strided and reversed input, strided
 * output, NaN modes, both accuracies, segments by flags and by offsets; thread counts
 * (CPU: the same bits for 1, 2 and 4 threads); device arrays. Every output value is
 * checked against tests/support/ref_scan.c on fresh data drawn with the run's seed;
 * outputs are poisoned first, and the guards around them must stay poisoned. */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "elem.h"
#include "ref_scan.h"
#include "tc.h"

#define GUARD 16

typedef struct {
  tally_op op;
  tally_dtype dt;
  int64_t n;
  tt_dist dist;
  tally_accuracy acc;
  tally_nan nan;
  int exclusive, with_init, inplace;
  tc_layout layout; /* TC_CONTIG, TC_STRIDE3 or TC_REVERSE */
  int out_step;     /* 1, or 2: a strided output (gaps must stay poisoned) */
  int out2d;        /* AFFINE: out as n x 2 */
  int seg;          /* 0 none, 1 flags, 2 offsets */
  int64_t nseg;     /* offsets: segments; flags: about n / nseg heads */
  int order;        /* the input as drawn (0), or sorted: see sort_input */
} sc_case;

static const char *seg_name(int s) { return s == 1 ? "flags" : s == 2 ? "offsets" : "none"; }
static const char *const order_names[] = {"drawn", "ascending", "descending", "rough-ascending",
                                          "rough-descending", "spike"};

static void describe(const sc_case *c, uint64_t id, const char *dev, char *buf, size_t len) {
  snprintf(buf, len,
           "case=%" PRIu64 " scan op=%s dtype=%s n=%" PRId64 " dist=%s accuracy=%s nan=%s "
           "%s init=%d inplace=%d layout=%s out_step=%d seg=%s nseg=%" PRId64 " order=%s%s%s",
           id, tally_op_name(c->op), tally_dtype_name(c->dt), c->n, tt_dist_name(c->dist),
           c->acc == TALLY_ACCURACY_FAST ? "fast" : "default",
           c->nan == TALLY_NAN_IGNORE ? "ignore" : "propagate",
           c->exclusive ? "exclusive" : "inclusive", c->with_init, c->inplace,
           tc_layout_name(c->layout), c->out_step, seg_name(c->seg), c->nseg, order_names[c->order],
           dev ? " device=" : "",
           dev ? dev : "");
}

/* The dtype's top (sign) bit, and all its bits. */
static uint64_t top_bit(tally_dtype t) { return (uint64_t)1 << (tt_bits(t) - 1); }
static uint64_t all_bits(tally_dtype t) {
  return tt_bits(t) == 64 ? ~(uint64_t)0 : (top_bit(t) << 1) - 1;
}

/* A key of element bits whose unsigned order is the dtype's (floats: -NaN < -Inf < ... <
 * -0 < +0 < ... < +Inf < NaN, the MIN and MAX scans' order on the CPU's keys). */
static uint64_t order_key(tally_dtype t, uint64_t bits) {
  uint64_t top = top_bit(t), all = all_bits(t);
  if (tt_is_float(t)) return bits & top ? ~bits & all : bits | top;
  return tt_is_signed(t) ? (bits ^ top) & all : bits;
}

typedef struct {
  uint64_t key, bits;
} keyed;

static int by_key(const void *a, const void *b) {
  uint64_t x = ((const keyed *)a)->key, y = ((const keyed *)b)->key;
  return (x > y) - (x < y);
}

/* Where order 5 puts its extreme: past the first 2^15 elements of a 2^17-element chunk
 * (1-byte MIN/MAX) and of a 2^16-element one (2-byte), so that only a whole chunk's pass
 * 1 sees it, and every later chunk's carry depends on it. */
#define SPIKE_AT (131072 - 1000)

/* Order 5: x[0] everywhere but one extreme of the op (the smallest value for MIN, the
 * largest for MAX) at SPIKE_AT (see settling). */
static void place_spike(const sc_case *c, void *x) {
  uint64_t b = tt_load_bits(c->dt, x, 0), e, inf = 0;
  const int mn = c->op == TALLY_MIN;
  if (c->dt == TALLY_BOOL) {
    e = !mn, b = mn;
  } else if (tt_is_float(c->dt)) { /* -Inf or +Inf (b, drawn from TT_NORMAL, is finite) */
    tt_store_f(c->dt, &inf, 0, mn ? -INFINITY : INFINITY);
    e = tt_load_bits(c->dt, &inf, 0);
  } else {
    const uint64_t top = top_bit(c->dt);
    e = tt_is_signed(c->dt) ? (mn ? top : top - 1) : (mn ? 0 : all_bits(c->dt));
    if (b == e) b ^= 1; /* (drawn as the extreme itself) */
  }
  for (int64_t i = 0; i < c->n; i++) tt_store_bits(c->dt, x, i, b);
  if (SPIKE_AT < c->n) tt_store_bits(c->dt, x, SPIKE_AT, e);
}

/* Order 1 and 2: x sorted ascending or descending, so that every element is a new
 * maximum or minimum (as far as the values are distinct): the MIN and MAX scans' running
 * value changes all the time, never settles (the CPU's IDEM path, scan_exact.c; the
 * GPU's settled runs, scan.clh run_settled). Order 3 and 4: the same, then blocks of 1
 * to 200 elements shuffled, so that the extremes change within vectors and runs and
 * between them, and settle for a while. Order 5: place_spike. */
static void sort_input(tt_rng *r, const sc_case *c, void *x) {
  if (!c->order) return;
  if (c->order == 5) {
    place_spike(c, x);
    return;
  }
  keyed *k = tc_alloc(sizeof(keyed) * (size_t)(c->n + 1));
  for (int64_t i = 0; i < c->n; i++) {
    k[i].bits = tt_load_bits(c->dt, x, i);
    k[i].key = order_key(c->dt, k[i].bits);
  }
  qsort(k, (size_t)c->n, sizeof *k, by_key);
  int desc = c->order == 2 || c->order == 4;
  for (int64_t i = 0; i < c->n; i++) tt_store_bits(c->dt, x, i, k[desc ? c->n - 1 - i : i].bits);
  free(k);
  if (c->order < 3) return;
  for (int64_t a = 0; a < c->n;) {
    int64_t len = 1 + (int64_t)tt_rng_below(r, 200), b = a + len < c->n ? a + len : c->n;
    for (int64_t i = b - 1; i > a; i--) { /* Fisher-Yates over [a, b) */
      int64_t j = a + (int64_t)tt_rng_below(r, (uint64_t)(i - a + 1));
      uint64_t t = tt_load_bits(c->dt, x, i);
      tt_store_bits(c->dt, x, i, tt_load_bits(c->dt, x, j));
      tt_store_bits(c->dt, x, j, t);
    }
    a = b;
  }
}

/* Draw the inputs as the reduction suite does: PROD near one, AFFINE a's near one. */
static void draw(tt_rng *r, const sc_case *c, void *x, void *y) {
  int fl = tt_is_float(c->dt);
  tt_genopt g = {-1, (fl && c->op == TALLY_PROD) ? TT_NEAR_ONE : TT_NORMAL};
  if (c->op == TALLY_AFFINE) {
    tt_genopt plain = {0, TT_NORMAL};
    int near = fl || (tt_rng_next(r) & 1);
    tt_generate(r, near ? TT_NEAR_ONE : c->dist, c->dt, x, c->n, &plain);
    tt_generate(r, c->dist, c->dt, y, c->n, &g);
    return;
  }
  tt_generate(r, c->dist, c->dt, x, c->n, &g);
  sort_input(r, c, x);
}

/* A random init value of the result dtype (width values). */
static void draw_init(tt_rng *r, const sc_case *c, tally_dtype rd, void *init) {
  for (int w = 0; w < tt_width(c->op); w++) {
    if (tt_is_float(rd)) {
      double v = tt_rng_normal(r);
      if (c->op == TALLY_PROD || (c->op == TALLY_AFFINE && w == 0)) v = 1 + 0.25 * v / 4;
      tt_store_f(rd, init, w, v);
    } else {
      tt_store_int(rd, init, w, (__int128)tt_rng_next(r));
    }
  }
}

/* Segment heads for the reference, and the flags or offsets for the library. */
static void draw_segments(tt_rng *r, const sc_case *c, uint8_t *head, uint8_t *flags,
                          int64_t *off) {
  int64_t n = c->n;
  memset(head, 0, (size_t)n + 1);
  if (c->seg == 1) {
    int64_t every = c->nseg > 0 ? (n / c->nseg > 0 ? n / c->nseg : 1) : 1;
    for (int64_t i = 0; i < n; i++) {
      flags[i] = (uint8_t)(tt_rng_below(r, (uint64_t)every) == 0 ? 1 + tt_rng_below(r, 255) : 0);
      head[i] = flags[i] != 0;
    }
    /* heads at the CPU's chunk boundaries (2^15 elements; exact ops on narrow types
     * 2^16 or 2^17) and next to them, when the input reaches them */
    if (n > 32768) flags[32768] = head[32768] = 1;
    if (n > 65536) flags[65535] = head[65535] = 1;
    if (n > 131072) flags[131071] = head[131071] = 1;
    if (n > 131072) flags[131072] = head[131072] = 1;
    if (n > 131073) flags[131073] = head[131073] = 1;
    if (n > 196608) flags[196607] = head[196607] = 1;
    if (n > 262144) flags[262143] = head[262143] = 1;
  } else if (c->seg == 2) {
    int64_t k = c->nseg;
    off[0] = 0;
    off[k] = n;
    for (int64_t i = 1; i < k; i++) off[i] = (int64_t)tt_rng_below(r, (uint64_t)n + 1);
    for (int64_t i = 1; i < k; i++) /* insertion sort (few segments) */
      for (int64_t j = i; j > 1 && off[j] < off[j - 1]; j--) {
        int64_t t = off[j]; off[j] = off[j - 1]; off[j - 1] = t;
      }
    if (k >= 3) off[2] = off[1]; /* an empty segment */
    for (int64_t i = 0; i < k; i++)
      if (off[i] < n) head[off[i]] = 1;
  }
}

static int all_bytes(const unsigned char *p, size_t len, unsigned char b) {
  for (size_t i = 0; i < len; i++)
    if (p[i] != b) return 0;
  return 1;
}

/* Run one case on ctx (the suite's context, or another CPU context); out receives the
 * contiguous result (n * W values) when not NULL. 1: passed. */
static int run_on(tc_run *R, tally_context *ctx, const char *dev, const sc_case *c, uint64_t id,
                  void *result, int device_mem, int warm) {
  char desc[512], why[600] = "";
  describe(c, id, dev, desc, sizeof desc);
  tt_rng rng;
  tt_rng_stream(&rng, R->seed, id);
  int ok;
  tally_dtype rd = tt_scan_rdtype(c->op, c->dt, &ok);
  int W = tt_width(c->op);
  int64_t n = c->n, es = (int64_t)tt_size(c->dt), rs = (int64_t)tt_size(rd);
  int has2 = c->op == TALLY_AFFINE;
  void *x = tc_alloc((size_t)(n * es) + 1), *y = has2 ? tc_alloc((size_t)(n * es) + 1) : NULL;
  draw(&rng, c, x, y);
  unsigned char init[16];
  draw_init(&rng, c, rd, init);
  uint8_t *head = tc_alloc((size_t)n + 1), *flags = tc_alloc((size_t)n + 1);
  int64_t *off = tc_alloc(sizeof(int64_t) * (size_t)(c->nseg + 2));
  draw_segments(&rng, c, head, flags, off);

  tally_scan_options o;
  tally_scan_options_init(&o);
  o.exclusive = c->exclusive;
  o.init = c->with_init ? init : NULL;
  o.accuracy = c->acc;
  o.nan = c->nan;
  if (c->seg == 1) o.flags = flags;
  if (c->seg == 2) o.offsets = off, o.nsegments = c->nseg;
  o.variant = R->scan_variant;

  /* The output: n*W values out_step apart, GUARD values of poison on each side. */
  int64_t span = n * W * c->out_step;
  unsigned char *obuf = tc_alloc((size_t)((span + 2 * GUARD) * rs));
  unsigned char *ob = obuf + GUARD * rs;
  tc_placed px = {0}, py = {0};
  tally_array in, in2, out;
  void *dev_in = NULL, *dev_in2 = NULL, *dev_out = NULL;
  int pass = 1;
  if (c->inplace) {
    /* out over the input itself: same address, dtype and stride (rd == dt here). */
    memset(obuf, 0xa5, (size_t)((span + 2 * GUARD) * rs));
    for (int64_t i = 0; i < n; i++) {
      memcpy(ob + (i * W) * c->out_step * rs, (char *)x + i * es, (size_t)es);
      if (has2) memcpy(ob + (i * W + 1) * c->out_step * rs, (char *)y + i * es, (size_t)es);
    }
    in = tally_array_strided(ob, c->dt, n, W * c->out_step);
    if (has2) in2 = tally_array_strided(ob + c->out_step * rs, c->dt, n, W * c->out_step);
  } else {
    tc_place(c->layout, c->dt, x, 1, n, (int)tt_rng_below(&rng, 4), &px);
    in = px.arr;
    if (has2) {
      tc_place(c->layout, c->dt, y, 1, n, (int)tt_rng_below(&rng, 4), &py);
      in2 = py.arr;
    }
    memset(obuf, 0xa5, (size_t)((span + 2 * GUARD) * rs));
  }
  if (c->out2d && c->out_step == 1) out = tally_array_2d(ob, rd, n, W);
  else out = tally_array_strided(ob, rd, n * W, c->out_step);

  tally_status st;
  if (device_mem) {
    /* The same call on device arrays (contiguous copies made with tally_mem_*). CUDA: the
     * input and the output 0-3 elements past their allocations' start, so the kernels'
     * unaligned ways run too; OpenCL device arrays are whole cl_mem buffers (tally.h). */
    const int cuda = strcmp(R->device, "cuda") == 0;
    size_t xoff = cuda ? (size_t)tt_rng_below(&rng, 4) * (size_t)es : 0;
    size_t ooff = cuda ? (size_t)tt_rng_below(&rng, 4) * (size_t)rs : 0;
    size_t ib = (size_t)(n * es), obytes = (size_t)(n * W * rs);
    st = tally_mem_alloc(ctx, ib + xoff ? ib + xoff : 1, &dev_in);
    if (!st && has2) st = tally_mem_alloc(ctx, ib + xoff ? ib + xoff : 1, &dev_in2);
    if (!st) st = tally_mem_alloc(ctx, obytes + ooff ? obytes + ooff : 1, &dev_out);
    if (!st) st = tally_mem_copy(ctx, (char *)dev_in + xoff, TALLY_MEM_DEVICE, x, TALLY_MEM_HOST, ib);
    if (!st && has2)
      st = tally_mem_copy(ctx, (char *)dev_in2 + xoff, TALLY_MEM_DEVICE, y, TALLY_MEM_HOST, ib);
    if (st) {
      tc_fail(R, "%s: device memory: %s: %s", desc, tally_status_name(st), tally_errmsg(ctx));
      pass = 0;
      goto done;
    }
    tally_array din = tally_array_1d((char *)dev_in + xoff, c->dt, n);
    tally_array din2 = tally_array_1d(has2 ? (char *)dev_in2 + xoff : NULL, c->dt, n);
    tally_array dout = tally_array_1d((char *)dev_out + ooff, rd, n * W);
    din.mem = din2.mem = dout.mem = TALLY_MEM_DEVICE;
    st = tally_scan(ctx, c->op, &din, has2 ? &din2 : NULL, &dout, &o);
    if (st == TALLY_EUNSUPPORTED) {
      /* Said explicitly: a backend may not scan device arrays yet. Skipped, not passed. */
      R->skipped_device++;
      R->cases--;
      printf("  skipped (device arrays): %s: %s\n", desc, tally_errmsg(ctx));
      goto done;
    }
    if (!st) st = tally_mem_copy(ctx, ob, TALLY_MEM_HOST, (char *)dev_out + ooff, TALLY_MEM_DEVICE, obytes);
  } else {
    /* warm: a first call wakes the CPU's threads, so that the checked call runs on all of
     * them (a call below a few MiB on sleeping threads runs on one: the same bits) */
    if (warm && !c->inplace) tally_scan(ctx, c->op, &in, has2 ? &in2 : NULL, &out, &o);
    st = tally_scan(ctx, c->op, &in, has2 ? &in2 : NULL, &out, &o);
  }
  if (st != TALLY_OK) {
    tc_fail(R, "%s: %s: %s", desc, tally_status_name(st), tally_errmsg(ctx));
    pass = 0;
    goto done;
  }
  /* Guards and gaps keep their poison; gather the values into contiguous order. */
  unsigned char *vals = tc_alloc((size_t)(n * W * rs) + 1);
  if (!all_bytes(obuf, (size_t)(GUARD * rs), 0xa5) ||
      !all_bytes(ob + span * rs, (size_t)(GUARD * rs), 0xa5)) {
    snprintf(why, sizeof why, "wrote outside the output");
    pass = 0;
  }
  for (int64_t v = 0; v < n * W && pass; v++) {
    memcpy(vals + v * rs, ob + v * c->out_step * rs, (size_t)rs);
    if (c->out_step > 1 && !c->inplace && !all_bytes(ob + (v * c->out_step + 1) * rs, (size_t)rs, 0xa5)) {
      snprintf(why, sizeof why, "wrote into the gap after output value %" PRId64, v);
      pass = 0;
    }
  }
  tt_scan_spec spec = {c->op, c->dt, c->acc, c->nan, c->exclusive, c->with_init ? init : NULL};
  int ai = c->acc == TALLY_ACCURACY_FAST;
  double worst = 0;
  if (pass && !tt_scan_check(&spec, x, y, n, c->seg ? head : NULL, vals, &worst, why, sizeof why))
    pass = 0;
  if (worst > R->worst[c->op][c->dt][ai]) R->worst[c->op][c->dt][ai] = worst;
  /* Values still holding the poison: run again with another poison to tell (not in
   * place, where the first run consumed the input). */
  if (pass && !c->inplace && !device_mem) {
    int poisoned = 0;
    for (int64_t v = 0; v < n * W; v++) poisoned |= all_bytes(vals + v * rs, (size_t)rs, 0xa5);
    if (poisoned) {
      for (int64_t v = 0; v < n * W; v++) memset(ob + v * c->out_step * rs, 0x5a, (size_t)rs);
      tally_scan(ctx, c->op, &in, has2 ? &in2 : NULL, &out, &o);
      for (int64_t v = 0; v < n * W && pass; v++)
        if (all_bytes(vals + v * rs, (size_t)rs, 0xa5) &&
            all_bytes(ob + v * c->out_step * rs, (size_t)rs, 0x5a)) {
          snprintf(why, sizeof why, "output value %" PRId64 " was never written", v);
          pass = 0;
        }
    }
  }
  if (result) memcpy(result, vals, (size_t)(n * W * rs));
  free(vals);
  if (!pass) {
    if (++R->fail_by[c->op][c->dt] <= 3) tc_fail(R, "%s: %s", desc, why);
    else R->failures++;
  }
done:
  if (device_mem) {
    tally_mem_free(ctx, dev_in);
    tally_mem_free(ctx, dev_in2);
    tally_mem_free(ctx, dev_out);
  }
  if (!c->inplace) {
    tc_unplace(&px);
    if (has2) tc_unplace(&py);
  }
  free(obuf);
  free(x);
  free(y);
  free(head);
  free(flags);
  free(off);
  return pass;
}

static int one(tc_run *R, const sc_case *c) {
  uint64_t id;
  if (R->scan_variant && c->seg) return 1; /* the ladder's rungs take no segments */
  if (!tc_wanted(R, c->op, c->dt)) return 1; /* --ops, --dtypes */
  if (!tc_begin(R, &id)) return 1;
  return run_on(R, R->ctx, NULL, c, id, NULL, 0, 0);
}

static const tally_op scan_ops[] = {TALLY_SUM, TALLY_PROD, TALLY_MIN, TALLY_MAX, TALLY_AFFINE};

static int defined(tally_op op, tally_dtype dt) {
  int ok;
  tt_scan_rdtype(op, dt, &ok);
  return ok;
}

static int dists_for(tally_op op, tally_dtype dt, tt_dist *out) {
  int k = 0;
  for (int d = 0; d < TT_DIST_COUNT; d++) {
    tt_dist dd = (tt_dist)d;
    tally_op as = op == TALLY_AFFINE ? TALLY_SUM : op; /* the b's: summed */
    if (op == TALLY_AFFINE && tt_is_float(dt) && (dd == TT_HUGE || dd == TT_EXTREMES)) continue;
    if (tt_dist_applies(dd, as, dt)) out[k++] = dd;
  }
  return k;
}

/* The case at rotation `rot` of (op, dt, n). */
static sc_case make(tally_op op, tally_dtype dt, int64_t n, int rot, const tt_dist *ds, int nd) {
  sc_case c = {0};
  int ok, fl = tt_is_float(dt);
  tally_dtype rd = tt_scan_rdtype(op, dt, &ok);
  c.op = op;
  c.dt = dt;
  c.n = n;
  c.dist = ds[rot % nd];
  c.exclusive = rot & 1;
  c.with_init = (rot >> 1) & 1;
  c.acc = fl && ((rot >> 2) & 1) ? TALLY_ACCURACY_FAST : TALLY_ACCURACY_DEFAULT;
  c.nan = fl && op != TALLY_AFFINE && ((rot >> 3) & 1) ? TALLY_NAN_IGNORE : TALLY_NAN_PROPAGATE;
  c.layout = (tc_layout)(rot % 3);
  c.out_step = 1 + (rot / 3) % 2;
  c.out2d = (rot / 5) & 1;
  c.inplace = rd == dt && rot % 5 == 0;
  return c;
}

static void sizes(tc_run *R) {
  int64_t big_limit = R->quick ? 140000 : INT64_MAX;
  int big_every = R->quick ? 8 : 4, combo = 0;
  for (size_t oi = 0; oi < sizeof scan_ops / sizeof *scan_ops; oi++)
    for (int d = 0; d < TALLY_DTYPE_COUNT_; d++) {
      tally_op op = scan_ops[oi];
      tally_dtype dt = (tally_dtype)d;
      if (!defined(op, dt)) continue;
      tt_dist ds[TT_DIST_COUNT];
      int nd = dists_for(op, dt, ds);
      combo++;
      for (int si = 0; si < tc_nsizes; si++) {
        int64_t n = tc_sizes[si];
        if (n > big_limit) break;
        int rot = si + 7 * combo;
        if (n > 1025 && rot % big_every != 0) continue;
        /* float sums check every value exactly: the largest sizes once per dtype */
        if (n > 300000 && tt_is_float(dt) && op == TALLY_SUM && (combo & 1)) continue;
        sc_case c = make(op, dt, n, rot, ds, nd);
        one(R, &c);
      }
      /* every distribution once at a small size, both NaN modes and accuracies */
      for (int k = 0; k < nd * (tt_is_float(dt) ? 4 : 1); k++) {
        sc_case c = make(op, dt, 100 + k, k, ds, nd);
        c.dist = ds[k % nd];
        if (tt_is_float(dt)) {
          c.acc = (k / nd) & 1 ? TALLY_ACCURACY_FAST : TALLY_ACCURACY_DEFAULT;
          c.nan = op != TALLY_AFFINE && ((k / nd) & 2) ? TALLY_NAN_IGNORE : TALLY_NAN_PROPAGATE;
        }
        one(R, &c);
      }
      /* ... and again contiguous in both accuracies and both NaN modes, so that every
       * distribution (Inf, NaN, huge values) reaches the vector kernels too: the rotation
       * above gave some of them only strided layouts (a vector kernel that turned Inf into
       * NaN passed it; one that propagated NaN under NAN_IGNORE passed MAX) */
      for (int k = 0; tt_is_float(dt) && k < (op == TALLY_AFFINE ? 2 : 4) * nd; k++) {
        sc_case c = make(op, dt, 100 + k, k, ds, nd);
        c.dist = ds[k % nd];
        c.acc = (k / nd) & 1 ? TALLY_ACCURACY_FAST : TALLY_ACCURACY_DEFAULT;
        c.nan = (k / nd) & 2 ? TALLY_NAN_IGNORE : TALLY_NAN_PROPAGATE;
        c.layout = TC_CONTIG;
        one(R, &c);
      }
    }
}

static void segments(tc_run *R) {
  static const tally_dtype dts[] = {TALLY_I32, TALLY_U8, TALLY_I64, TALLY_F32, TALLY_F64, TALLY_F16};
  static const int64_t ns[] = {1, 7, 100, 32768 + 5, 100003, 300007};
  int rot = 0;
  for (size_t oi = 0; oi < sizeof scan_ops / sizeof *scan_ops; oi++)
    for (size_t di = 0; di < sizeof dts / sizeof *dts; di++)
      for (size_t ni = 0; ni < sizeof ns / sizeof *ns; ni++)
        for (int seg = 1; seg <= 2; seg++) {
          tally_op op = scan_ops[oi];
          tally_dtype dt = dts[di];
          if (!defined(op, dt)) continue;
          if (R->quick && ns[ni] > 140000) continue;
          tt_dist ds[TT_DIST_COUNT];
          int nd = dists_for(op, dt, ds);
          sc_case c = make(op, dt, ns[ni], rot++, ds, nd);
          c.dist = tt_is_float(dt) && op == TALLY_PROD ? TT_NEAR_ONE : TT_NORMAL;
          c.seg = seg;
          c.nseg = 1 + (int64_t)(rot % 7) * (ns[ni] > 1000 ? 9 : 1);
          one(R, &c);
        }
}

/* AFFINE keeps order: three maps whose composition in any other order differs. */
static void affine_order(tc_run *R) {
  uint64_t id;
  if (!tc_begin(R, &id)) return;
  int64_t a[3] = {2, 3, 5}, b[3] = {1, 1, 1}, out[6];
  memset(out, 0xa5, sizeof out);
  tally_array in = tally_array_1d(a, TALLY_I64, 3), in2 = tally_array_1d(b, TALLY_I64, 3);
  tally_array o = tally_array_2d(out, TALLY_I64, 3, 2);
  tally_status st = tally_scan(R->ctx, TALLY_AFFINE, &in, &in2, &o, NULL);
  /* x1 = 2·x0 + 1, x2 = 3·x1 + 1 = 6·x0 + 4, x3 = 5·x2 + 1 = 30·x0 + 21 */
  static const int64_t want[6] = {2, 1, 6, 4, 30, 21};
  if (st != TALLY_OK || memcmp(out, want, sizeof want) != 0)
    tc_fail(R, "case=%" PRIu64 " affine order: %s: got (%lld,%lld) (%lld,%lld) (%lld,%lld), want "
            "(2,1) (6,4) (30,21)", id, tally_status_name(st), (long long)out[0], (long long)out[1],
            (long long)out[2], (long long)out[3], (long long)out[4], (long long)out[5]);
}

/* CPU, float AFFINE: a lane of a block with no term k lanes back keeps its value in the
 * Hillis-Steele steps (docs/SEMANTICS.md). Composed with the identity (1, +0.0) instead,
 * a B of -0.0 would turn +0.0. Maps x -> 1·x + (-0.0) from the init (1, -0.0): every B
 * is -0.0, inclusive and exclusive, in the vector kernels (contiguous) and the scalar
 * ones (a stride of 2). */
static void affine_signed_zero(tc_run *R) {
  tally_context_info info;
  if (tally_context_describe(R->ctx, &info) != TALLY_OK || strcmp(info.backend, "cpu") != 0) return;
  enum { N = 1003 };
  static double a[2 * N], b[2 * N], out[2 * N];
  for (int k = 0; k < 2 * N; k++) a[k] = 1.0, b[k] = -0.0;
  static const struct { tally_dtype dt; tally_accuracy acc; } kinds[] = {
      {TALLY_F64, TALLY_ACCURACY_DEFAULT}, {TALLY_F32, TALLY_ACCURACY_DEFAULT},
      {TALLY_F32, TALLY_ACCURACY_FAST}};
  for (size_t k = 0; k < sizeof kinds / sizeof *kinds; k++)
    for (int mode = 0; mode < 4; mode++) { /* bit 0: exclusive; bit 1: stride 2 */
      uint64_t id;
      if (!tc_begin(R, &id)) continue;
      const tally_dtype dt = kinds[k].dt;
      const int stride = mode & 2 ? 2 : 1;
      float af[2 * N], bf[2 * N], outf[2 * N];
      for (int i = 0; i < 2 * N; i++) af[i] = 1.0f, bf[i] = -0.0f;
      double initd[2] = {1.0, -0.0};
      float initf[2] = {1.0f, -0.0f};
      tally_scan_options opt;
      tally_scan_options_init(&opt);
      opt.exclusive = mode & 1;
      opt.accuracy = kinds[k].acc;
      opt.init = dt == TALLY_F64 ? (const void *)initd : (const void *)initf;
      memset(out, 0xa5, sizeof out);
      memset(outf, 0xa5, sizeof outf);
      tally_array in = tally_array_strided(dt == TALLY_F64 ? (void *)a : (void *)af, dt, N, stride);
      tally_array in2 = tally_array_strided(dt == TALLY_F64 ? (void *)b : (void *)bf, dt, N, stride);
      tally_array o = tally_array_2d(dt == TALLY_F64 ? (void *)out : (void *)outf, dt, N, 2);
      tally_status rc = tally_scan(R->ctx, TALLY_AFFINE, &in, &in2, &o, &opt);
      int64_t bad = -1;
      for (int64_t i = 0; i < N && bad < 0 && rc == TALLY_OK; i++) {
        double A = dt == TALLY_F64 ? out[2 * i] : outf[2 * i];
        double B = dt == TALLY_F64 ? out[2 * i + 1] : outf[2 * i + 1];
        if (A != 1.0 || B != 0.0 || !signbit(B)) bad = i;
      }
      if (rc != TALLY_OK || bad >= 0)
        tc_fail(R, "case=%" PRIu64 " affine signed zero %s %s%s%s: %s, first wrong pair at %" PRId64,
                id, tally_dtype_name(dt), kinds[k].acc == TALLY_ACCURACY_FAST ? "fast" : "default",
                mode & 1 ? " exclusive" : "", mode & 2 ? " stride 2" : "", tally_status_name(rc), bad);
    }
}

/* MIN and MAX on sorted input, every dtype: the running value changes at every element
 * (the CPU vector kernels' slowest path; on the GPU no run settles, where the values are
 * distinct), or in bursts between settled stretches (the CPU's IDEM path, the GPU's
 * settled runs, and back); with NaNs (placed anywhere by TT_NAN, then sorted to an end or
 * shuffled by the rough orders), signed zeros and infinities. Contiguous in and out, so
 * the vector kernels run; about 3 · 2^16 elements, so that every dtype spans several of
 * the CPU's chunks (2^17 for 1-byte MIN/MAX); a third of the cases segmented by flags
 * (heads at the chunk edges among them). On the CPU each case runs again on 2 threads
 * from any size (the threaded chain and its fused pass 1). And one extreme among equal
 * values where only a whole chunk's pass 1 finds it (order 5, SPIKE_AT). */
static void settling(tc_run *R) {
  static const tt_dist fdists[] = {TT_NORMAL, TT_NAN, TT_NEGZERO, TT_INF, TT_UNIFORM};
  static const char *const dev2 = "cpu:threads=2,parallel_bytes=0";
  tally_context_info info;
  tally_context *ctx2 = NULL;
  if (tally_context_describe(R->ctx, &info) == TALLY_OK && strcmp(info.backend, "cpu") == 0 &&
      tally_open(dev2, &ctx2) != TALLY_OK) {
    tc_fail(R, "settling: tally_open(%s): %s", dev2, tally_errmsg(NULL));
    ctx2 = NULL;
  }
  int rot = 0;
  for (int oi = 0; oi < 2; oi++)
    for (int d = 0; d < TALLY_DTYPE_COUNT_; d++)
      for (int order = 1; order <= 5; order++) {
        tally_op op = oi ? TALLY_MAX : TALLY_MIN;
        tally_dtype dt = (tally_dtype)d;
        if (!defined(op, dt) || !tc_wanted(R, op, dt)) continue;
        tt_dist ds[TT_DIST_COUNT];
        int nd = dists_for(op, dt, ds);
        sc_case c = make(op, dt, 3 * 65536 + 3 + rot % 61, rot, ds, nd);
        rot++;
        c.dist = tt_is_float(dt) ? fdists[rot % 5] : TT_UNIFORM;
        if (order == 5) c.dist = tt_is_float(dt) ? TT_NORMAL : TT_UNIFORM;
        /* in place a quarter of the time: the 2-thread run has no warm-up call then (it
         * would consume the input), and may find its pool asleep */
        c.inplace = rot % 4 == 1;
        c.layout = TC_CONTIG; /* the vector kernels: contiguous in and out */
        c.out_step = 1;
        c.out2d = 0;
        c.order = order;
        if (rot % 3 == 0 && order != 5 && !R->scan_variant) c.seg = 1, c.nseg = 5;
        uint64_t id;
        if (!tc_begin(R, &id)) continue;
        if (run_on(R, R->ctx, NULL, &c, id, NULL, 0, 0) && ctx2)
          run_on(R, ctx2, dev2, &c, id, NULL, 0, 1);
      }
  if (ctx2) tally_close(ctx2);
}

/* CPU: 1, 2 and 4 threads (parallel; the last with the scalar ISA) give the same
 * bits, and pass the reference; so does strided input (scalar code) against contiguous
 * input (vector code). */
static void threads(tc_run *R) {
  tally_context_info info;
  if (tally_context_describe(R->ctx, &info) != TALLY_OK || strcmp(info.backend, "cpu") != 0) return;
  static const struct { tally_op op; tally_dtype dt; tally_accuracy acc; int seg; } combos[] = {
      {TALLY_SUM, TALLY_F32, TALLY_ACCURACY_DEFAULT, 0}, {TALLY_SUM, TALLY_F32, TALLY_ACCURACY_FAST, 0},
      {TALLY_SUM, TALLY_F64, TALLY_ACCURACY_DEFAULT, 2}, {TALLY_SUM, TALLY_F64, TALLY_ACCURACY_FAST, 1},
      {TALLY_PROD, TALLY_F32, TALLY_ACCURACY_DEFAULT, 0}, {TALLY_AFFINE, TALLY_F64, TALLY_ACCURACY_DEFAULT, 1},
      {TALLY_SUM, TALLY_I32, TALLY_ACCURACY_DEFAULT, 2}, {TALLY_MAX, TALLY_F16, TALLY_ACCURACY_DEFAULT, 0},
      /* inclusive, no segments (k even, k & 2 clear): the fused passes of f64 DEFAULT */
      {TALLY_SUM, TALLY_F64, TALLY_ACCURACY_DEFAULT, 0},
      /* f16, bf16 sums through the f32 vector kernels (contiguous) against the scalar
       * blocks (strided); MIN by keys; exact ops with the pass-1 accumulators interleaved */
      {TALLY_SUM, TALLY_F16, TALLY_ACCURACY_DEFAULT, 0}, {TALLY_SUM, TALLY_BF16, TALLY_ACCURACY_FAST, 1},
      {TALLY_MIN, TALLY_F32, TALLY_ACCURACY_DEFAULT, 2}, {TALLY_PROD, TALLY_I64, TALLY_ACCURACY_DEFAULT, 0},
      {TALLY_AFFINE, TALLY_I32, TALLY_ACCURACY_DEFAULT, 0}, {TALLY_SUM, TALLY_BF16, TALLY_ACCURACY_DEFAULT, 0},
      /* the exact ops' vector kernels (scan_exact.c), lanes of every width, against the
       * scalar kernels (strided) and the SSE2 set (isa=scalar) */
      {TALLY_MIN, TALLY_U8, TALLY_ACCURACY_DEFAULT, 0}, {TALLY_MAX, TALLY_I16, TALLY_ACCURACY_DEFAULT, 1},
      {TALLY_MAX, TALLY_F64, TALLY_ACCURACY_DEFAULT, 0}, {TALLY_SUM, TALLY_U16, TALLY_ACCURACY_DEFAULT, 0},
      {TALLY_PROD, TALLY_I8, TALLY_ACCURACY_DEFAULT, 2}, {TALLY_MIN, TALLY_BF16, TALLY_ACCURACY_DEFAULT, 0},
      /* the float PRODs' vector kernels (scan_simd.c), f16 through the f32 ones */
      {TALLY_PROD, TALLY_F16, TALLY_ACCURACY_FAST, 0}, {TALLY_PROD, TALLY_F64, TALLY_ACCURACY_DEFAULT, 1},
      /* AFFINE's vector kernels (scan_affine.c): f64 lanes from every float dtype, f32
       * lanes (FAST), u64 lanes from narrow and 64-bit integers (k = 23 to 29: the float
       * ones of f32 and f64 inclusive, where a rounding apart shows through) */
      {TALLY_AFFINE, TALLY_U8, TALLY_ACCURACY_DEFAULT, 0}, {TALLY_AFFINE, TALLY_F32, TALLY_ACCURACY_DEFAULT, 0},
      {TALLY_AFFINE, TALLY_F16, TALLY_ACCURACY_FAST, 1}, {TALLY_AFFINE, TALLY_F32, TALLY_ACCURACY_FAST, 0},
      {TALLY_AFFINE, TALLY_I64, TALLY_ACCURACY_DEFAULT, 1}, {TALLY_AFFINE, TALLY_F64, TALLY_ACCURACY_DEFAULT, 2},
      {TALLY_AFFINE, TALLY_BF16, TALLY_ACCURACY_DEFAULT, 0},
      /* k = 30, inclusive: f16 DEFAULT SUM converted in registers, fused passes (AVX2 set);
       * the products' f64-lane kernels of the halves, exclusive and inclusive (fused) */
      {TALLY_SUM, TALLY_F16, TALLY_ACCURACY_DEFAULT, 0}, {TALLY_PROD, TALLY_BF16, TALLY_ACCURACY_DEFAULT, 0},
      {TALLY_PROD, TALLY_F16, TALLY_ACCURACY_DEFAULT, 0}};
  /* Above the CPU's WAKE_BYTES (4 MiB) even in f32: smaller scans run on one thread while
   * a fresh context's workers sleep, and the threaded (fused) passes would go unchecked. */
  int64_t n = ((int64_t)1 << 20) + 4099;
  static const char *const devs[] = {"cpu:threads=1,parallel_bytes=0", "cpu:threads=2,parallel_bytes=0",
                                     "cpu:threads=4,parallel_bytes=0,isa=scalar"};
  for (size_t k = 0; k < sizeof combos / sizeof *combos; k++) {
    uint64_t id;
    if (!tc_wanted(R, combos[k].op, combos[k].dt)) continue; /* --ops, --dtypes */
    if (!tc_begin(R, &id)) continue;
    sc_case c = {0};
    c.op = combos[k].op;
    c.dt = combos[k].dt;
    c.acc = combos[k].acc;
    c.n = n;
    c.dist = c.op == TALLY_PROD ? TT_NEAR_ONE : TT_NORMAL;
    c.layout = TC_CONTIG;
    c.out_step = 1;
    c.exclusive = k & 1;
    c.with_init = (k >> 1) & 1;
    c.seg = combos[k].seg;
    c.nseg = 17;
    int ok;
    size_t bytes = (size_t)(n * tt_width(c.op)) * tt_size(tt_scan_rdtype(c.op, c.dt, &ok));
    unsigned char *res[4];
    int pass = 1;
    res[3] = tc_alloc(bytes);
    sc_case strided = c;
    strided.layout = TC_STRIDE3;
    pass &= run_on(R, R->ctx, "stride 3", &strided, id, res[3], 0, 1);
    for (int t = 0; t < 3; t++) {
      res[t] = tc_alloc(bytes);
      tally_context *ctx;
      if (tally_open(devs[t], &ctx) != TALLY_OK) {
        tc_fail(R, "case=%" PRIu64 " tally_open(%s): %s", id, devs[t], tally_errmsg(NULL));
        pass = 0;
        continue;
      }
      pass &= run_on(R, ctx, devs[t], &c, id, res[t], 0, 1);
      tally_close(ctx);
    }
    if (pass && (memcmp(res[0], res[1], bytes) != 0 || memcmp(res[0], res[2], bytes) != 0))
      tc_fail(R, "case=%" PRIu64 " scan %s %s n=%" PRId64 ": results differ between 1, 2 and 4 "
              "threads", id, tally_op_name(c.op), tally_dtype_name(c.dt), n);
    if (pass && memcmp(res[0], res[3], bytes) != 0)
      tc_fail(R, "case=%" PRIu64 " scan %s %s n=%" PRId64 ": strided input gives other bits than "
              "contiguous input", id, tally_op_name(c.op), tally_dtype_name(c.dt), n);
    for (int t = 0; t < 4; t++) free(res[t]);
  }
}

/* CPU, two threads: the thread that scans chunk c runs pass 1 of chunk c + 2 beside it,
 * and f64 DEFAULT leaves in that chunk's outputs what its pass 2 will need (a stash, at
 * the pass-1 pieces' places). Where chunk c + 2 holds a segment head after its start,
 * its pass 1 starts at the head and its pieces are not its pass 2's: no stash may be
 * left (a driver that left one gave wrong sums from that chunk on). One head, at places
 * in chunk 3 and at chunk boundaries; inclusive (the fused passes), out of place. */
static void stash_heads(tc_run *R) {
  tally_context_info info;
  if (tally_context_describe(R->ctx, &info) != TALLY_OK || strcmp(info.backend, "cpu") != 0) return;
  const int64_t C = 32768, n = 8 * C + 100;
  static const int64_t heads[] = {3 * 32768 + 777, 3 * 32768 + 256, 4 * 32768 - 1, 3 * 32768, 5 * 32768 + 1};
  for (size_t k = 0; k < sizeof heads / sizeof *heads; k++) {
    uint64_t id;
    if (!tc_begin(R, &id)) continue;
    tt_rng rng;
    tt_rng_stream(&rng, R->seed, id);
    double *x = tc_alloc((size_t)n * 8), *out = tc_alloc((size_t)n * 8);
    uint8_t *head = tc_alloc((size_t)n);
    for (int64_t i = 0; i < n; i++) x[i] = tt_rng_normal(&rng);
    memset(out, 0xa5, (size_t)n * 8);
    int64_t off[3] = {0, heads[k], n};
    head[heads[k]] = 1;
    tally_context *ctx;
    if (tally_open("cpu:threads=2,parallel_bytes=0", &ctx) != TALLY_OK) {
      tc_fail(R, "case=%" PRIu64 " tally_open: %s", id, tally_errmsg(NULL));
    } else {
      tally_scan_options o;
      tally_scan_options_init(&o);
      o.offsets = off;
      o.nsegments = 2;
      tally_array in = tally_array_1d(x, TALLY_F64, n), ou = tally_array_1d(out, TALLY_F64, n);
      tally_status st = tally_scan(ctx, TALLY_SUM, &in, NULL, &ou, &o);
      tt_scan_spec spec = {TALLY_SUM, TALLY_F64, TALLY_ACCURACY_DEFAULT, TALLY_NAN_PROPAGATE, 0, NULL};
      char why[300] = "";
      double worst = 0;
      if (st != TALLY_OK)
        tc_fail(R, "case=%" PRIu64 " scan, one head at %" PRId64 ": %s: %s", id, heads[k],
                tally_status_name(st), tally_errmsg(ctx));
      else if (!tt_scan_check(&spec, x, NULL, n, head, out, &worst, why, sizeof why))
        tc_fail(R, "case=%" PRIu64 " scan sum f64 default n=%" PRId64 " threads=2, one head at %" PRId64
                ": %s", id, n, heads[k], why);
      tally_close(ctx);
    }
    free(x);
    free(out);
    free(head);
  }
}

/* f64 sums whose prefixes overflow partway (every element near 2^1014, one sign): from
 * there on every result is ±Inf, never NaN. The CPU's compensated vector kernel leaves
 * out the tests for Inf and redoes a block where a sum overflowed; here the running value
 * crosses the largest double inside a block whose own total is finite (a block of 256
 * such elements totals below 2^1023), which only a check of the lanes' last values
 * catches (a kernel without it gave NaN). In place too, inclusive and exclusive, both
 * accuracies, one thread and the threaded passes (above WAKE_BYTES). */
/* tally_scan's SUM of n f64 from x into out (x itself where in place; copy: the input as it
 * was), in `acc`, checked against the exact prefix; a failure names the case by `what`. */
static void f64_sum_checked(tc_run *R, uint64_t id, double *x, const double *copy, double *out, int64_t n,
                            int excl, tally_accuracy acc, const char *what) {
  tally_scan_options o;
  tally_scan_options_init(&o);
  o.exclusive = excl;
  o.accuracy = acc;
  tally_array in = tally_array_1d(x, TALLY_F64, n), ou = tally_array_1d(out, TALLY_F64, n);
  tally_status st = tally_scan(R->ctx, TALLY_SUM, &in, NULL, &ou, &o);
  tt_scan_spec spec = {TALLY_SUM, TALLY_F64, acc, TALLY_NAN_PROPAGATE, excl, NULL};
  char why[300] = "";
  double worst = 0;
  if (st != TALLY_OK)
    tc_fail(R, "case=%" PRIu64 " scan sum f64 n=%" PRId64 " %s: %s: %s", id, n, what, tally_status_name(st),
            tally_errmsg(R->ctx));
  else if (!tt_scan_check(&spec, copy, NULL, n, NULL, out, &worst, why, sizeof why))
    tc_fail(R, "case=%" PRIu64 " scan sum f64 %s %s n=%" PRId64 " %s: %s", id,
            acc == TALLY_ACCURACY_FAST ? "fast" : "default", excl ? "exclusive" : "inclusive", n, what, why);
}

static void overflow(tc_run *R) {
  static const int64_t ns[] = {3000, ((int64_t)1 << 20) + 77};
  for (int k = 0; k < 32; k++) {
    uint64_t id;
    if (!tc_begin(R, &id)) continue;
    int64_t n = ns[k & 1];
    int excl = (k >> 1) & 1, inplace = (k >> 2) & 1, neg = (k >> 3) & 1;
    tally_accuracy acc = (k >> 4) & 1 ? TALLY_ACCURACY_FAST : TALLY_ACCURACY_DEFAULT;
    tt_rng rng;
    tt_rng_stream(&rng, R->seed, id);
    double *x = tc_alloc((size_t)n * 8), *copy = tc_alloc((size_t)n * 8);
    double *out = inplace ? x : tc_alloc((size_t)n * 8);
    for (int64_t i = 0; i < n; i++) x[i] = copy[i] = (neg ? -0x1p1014 : 0x1p1014) * (1 + tt_rng_unit(&rng));
    if (!inplace) memset(out, 0xa5, (size_t)n * 8); /* poison: every value must be written */
    char what[64];
    snprintf(what, sizeof what, "%s, elements ~%s2^1014", inplace ? "in place" : "out of place", neg ? "-" : "+");
    f64_sum_checked(R, id, x, copy, out, n, excl, acc, what);
    free(copy);
    if (!inplace) free(out);
    free(x);
  }
}

/* The compensated f64 sum near the top of the range: totals 2^1023, -2^1005, 2^1023 in
 * three far-apart elements (zeros between, so each lands in its own GPU tile), whose sum
 * 2^1024 - 2^1005 is finite though the first and last alone would overflow. The binned
 * carries (src/gpu/scan.clh) once turned that into +Inf: the top bin's limb alone was
 * 2^1024. Every prefix must be finite and within the bound. */
static void near_overflow(tc_run *R) {
  static const int64_t ns[] = {3 * 4096 + 5, 3 * 65536 + 5};
  for (int k = 0; k < 8; k++) {
    uint64_t id;
    if (!tc_begin(R, &id)) continue;
    const int64_t n = ns[k & 1];
    const int excl = (k >> 1) & 1, neg = (k >> 2) & 1;
    double *x = tc_alloc((size_t)n * 8), *out = tc_alloc((size_t)n * 8);
    for (int64_t i = 0; i < n; i++) x[i] = 0.0;
    const double s = neg ? -1.0 : 1.0;
    x[0] = s * 0x1p1023;
    x[n / 3] = -s * 0x1p1005;
    x[2 * (n / 3)] = s * 0x1p1023;
    memset(out, 0xa5, (size_t)n * 8); /* poison: every value must be written */
    char what[64];
    snprintf(what, sizeof what, "%s2^1023, %s2^1005, %s2^1023", neg ? "-" : "", neg ? "" : "-", neg ? "-" : "");
    f64_sum_checked(R, id, x, x, out, n, excl, TALLY_ACCURACY_DEFAULT, what);
    free(out);
    free(x);
  }
}

/* Device arrays (tally_mem_alloc): scanned in place on the device, or skipped (counted)
 * where the backend says it cannot yet. */
static void device_arrays(tc_run *R) {
  static const struct { tally_op op; tally_dtype dt; } combos[] = {
      {TALLY_SUM, TALLY_F32}, {TALLY_MAX, TALLY_I16}, {TALLY_AFFINE, TALLY_F64},
      {TALLY_SUM, TALLY_F64}, {TALLY_MAX, TALLY_I32}, {TALLY_SUM, TALLY_I64}};
  for (size_t k = 0; k < sizeof combos / sizeof *combos; k++) {
    uint64_t id;
    if (!tc_wanted(R, combos[k].op, combos[k].dt)) continue; /* --ops, --dtypes */
    if (!tc_begin(R, &id)) continue;
    sc_case c = {0};
    c.op = combos[k].op;
    c.dt = combos[k].dt;
    c.n = 70001;
    c.dist = TT_NORMAL;
    c.out_step = 1;
    c.exclusive = (int)k & 1;
    run_on(R, R->ctx, "device arrays", &c, id, NULL, 1, 0);
  }
}

/* tally_scan_user: a non-commutative operator (2x2 matrix product modulo 2^64), in place
 * or not, exclusive, with init and segments, against the left-to-right fold. */
typedef struct { uint64_t m[4]; } mat;
static void mat_mul(void *acc, const void *x, void *user) {
  (void)user;
  mat *a = acc;
  const mat *b = x;
  mat r = {{a->m[0] * b->m[0] + a->m[1] * b->m[2], a->m[0] * b->m[1] + a->m[1] * b->m[3],
            a->m[2] * b->m[0] + a->m[3] * b->m[2], a->m[2] * b->m[1] + a->m[3] * b->m[3]}};
  *a = r;
}

static void user(tc_run *R) {
  static const int64_t ns[] = {0, 1, 5, 1000, 32767, 32768, 32769, 100003, 200003};
  static const mat ident = {{1, 0, 0, 1}};
  tally_user_op u = {sizeof(mat), &ident, mat_mul, NULL, 0};
  for (size_t ni = 0; ni < sizeof ns / sizeof *ns; ni++)
    for (int mode = 0; mode < 6; mode++) {
      uint64_t id;
      if (!tc_begin(R, &id)) continue;
      int64_t n = ns[ni];
      tt_rng rng;
      tt_rng_stream(&rng, R->seed, id);
      int inplace = mode == 1, excl = mode & 2, init_on = mode >= 4, seg = mode == 5;
      int64_t stride = mode == 3 ? 2 : 1;
      mat *data = tc_alloc(sizeof(mat) * (size_t)(n * stride + 1));
      mat *copy = tc_alloc(sizeof(mat) * (size_t)(n + 1));
      for (int64_t i = 0; i < n; i++) {
        for (int q = 0; q < 4; q++) data[i * stride].m[q] = tt_rng_next(&rng) | (q == 0 || q == 3);
        copy[i] = data[i * stride];
      }
      mat init = {{3, 1, 1, 2}};
      uint8_t *flags = tc_alloc((size_t)n + 1);
      for (int64_t i = 0; i < n && seg; i++) flags[i] = tt_rng_below(&rng, 50) == 0;
      mat *out = inplace ? data : tc_alloc(sizeof(mat) * (size_t)(n + 2));
      if (!inplace) memset(out, 0xa5, sizeof(mat) * (size_t)(n + 2));
      tally_scan_options o;
      tally_scan_options_init(&o);
      o.exclusive = excl != 0;
      o.init = init_on ? &init : NULL;
      o.flags = seg ? flags : NULL;
      tally_status st = tally_scan_user(R->ctx, &u, data, n, stride, inplace ? data : out + 1,
                                        inplace ? stride : 1, &o);
      const mat *got = inplace ? data : out + 1;
      int64_t gs = inplace ? stride : 1;
      mat acc = init_on ? init : ident;
      const char *bad = NULL;
      int64_t at = -1;
      for (int64_t i = 0; i < n && !bad && st == TALLY_OK; i++) {
        if (i > 0 && seg && flags[i]) acc = init_on ? init : ident;
        mat before = acc;
        mat_mul(&acc, &copy[i], NULL);
        if (memcmp(&got[i * gs], excl ? &before : &acc, sizeof(mat)) != 0) bad = "value", at = i;
      }
      if (!inplace && !bad && st == TALLY_OK) {
        unsigned char g0[sizeof(mat)], g1[sizeof(mat)];
        memcpy(g0, &out[0], sizeof g0);
        memcpy(g1, &out[n + 1], sizeof g1);
        if (!all_bytes(g0, sizeof g0, 0xa5) || !all_bytes(g1, sizeof g1, 0xa5)) bad = "guard";
      }
      if (st != TALLY_OK || bad)
        tc_fail(R, "case=%" PRIu64 " user scan mat2x2 n=%" PRId64 " mode=%d: %s%s%s at %" PRId64,
                id, n, mode, tally_status_name(st), bad ? ": wrong " : "", bad ? bad : "", at);
      if (!inplace) free(out);
      free(data);
      free(copy);
      free(flags);
    }
}

void tc_group_scan(tc_run *R) {
  affine_order(R);
  affine_signed_zero(R);
  sizes(R);
  segments(R);
  settling(R);
  threads(R);
  stash_heads(R);
  overflow(R);
  near_overflow(R);
  device_arrays(R);
  user(R);
}

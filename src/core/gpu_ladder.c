/* The ladder variants' host side, shared by the GPU backends (see gpu_ladder.h). Each
 * run_* function is one seed algorithm's host code: which kernels of src/gpu/ladder.clh
 * it launches, over what grid, and where the last parts are folded. */
#include "gpu_ladder.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LBLOCK TALLY__LADDER_BLOCK
#define WORDS TALLY__LADDER_WORDS
#define NONE TALLY__LADDER_NONE

typedef struct {
  tally_context *ctx;
  const tally__ladder_dev *dev;
  tally__family fam;
  tally__lslice sl;
} lrun;

static int64_t cdiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

static tally_status launch(lrun *r, const char *entry, int64_t grid, int in, int64_t m, int64_t s,
                           int out) {
  return r->dev->launch(r->dev->self, &r->sl, entry, grid < 1 ? 1 : grid, in, m, s, out);
}

/* The first m parts of buffer b, folded in order on the host (the seeds' final
 * std::accumulate over the copied-out partial results). */
static tally_status fold_on_host(lrun *r, int b, int64_t m, tally__part *acc) {
  tally__part_init(acc, r->fam, 0);
  if (m <= 0) return TALLY_OK;
  uint64_t *w = malloc((size_t)(WORDS * m) * 8);
  if (!w)
    return tally__fail(r->ctx, TALLY_ENOMEM, "ladder: no host memory for %" PRId64 " parts", m);
  tally_status s = r->dev->read_parts(r->dev->self, b, m, w);
  for (int64_t j = 0; j < m && !s; j++) {
    tally__gpu_part g;
    uint64_t words[WORDS];
    for (int i = 0; i < WORDS; i++) words[i] = w[i * m + j];
    memcpy(&g, words, sizeof g);
    tally__part part;
    tally__gpu_part_to_part(&g, &part);
    tally__part_merge(acc, &part, r->fam);
  }
  free(w);
  return s;
}

static tally_status read_result(lrun *r, tally__part *acc) {
  tally__gpu_part g;
  tally_status s = r->dev->read_result(r->dev->self, &g);
  if (!s) tally__gpu_part_to_part(&g, acc);
  return s;
}

/* One launch that leaves the slice's part in the result. */
static tally_status one_launch(lrun *r, const char *entry, int64_t grid, tally__part *acc) {
  tally_status s = launch(r, entry, grid, NONE, r->sl.len, 0, 0);
  return s ? s : read_result(r, acc);
}

static int64_t grid_units(const lrun *r, int per_unit) { return (int64_t)r->dev->units * per_unit; }

/* ------------------------------------------------------------ the variants */

static tally_status run_serial(lrun *r, tally__part *acc) {
  return one_launch(r, "ladder_serial", 1, acc);
}

/* Kernels that add into the result words atomically: start them from zeros. */
static tally_status run_atomic_common(lrun *r, const char *entry, int64_t grid, tally__part *acc) {
  tally_status s = r->dev->zero_result(r->dev->self);
  if (!s) s = launch(r, entry, grid, NONE, r->sl.len, 0, NONE);
  if (!s) s = read_result(r, acc);
  acc->idx = -1;
  return s;
}

static tally_status run_atomic(lrun *r, tally__part *acc) {
  return run_atomic_common(r, "ladder_atomic", cdiv(r->sl.len, LBLOCK), acc);
}

static tally_status run_block_atomic(lrun *r, tally__part *acc) {
  return run_atomic_common(r, "ladder_block_atomic", grid_units(r, 4), acc);
}

static tally_status run_simple_1(lrun *r, tally__part *acc) {
  int64_t m = r->sl.len;
  tally_status s;
  if (m <= 1) {
    if ((s = launch(r, "ladder_load", 1, NONE, m, 0, 0))) return s;
    return fold_on_host(r, 0, m, acc);
  }
  int in = NONE;
  while (m > 1) {
    int64_t half = m / 2;
    if ((s = launch(r, "ladder_simple_1", cdiv(half, LBLOCK), in, m, half, 0))) return s;
    in = 0; /* in place from here on */
    m = half;
  }
  return fold_on_host(r, 0, 1, acc);
}

static tally_status run_simple_2(lrun *r, tally__part *acc) {
  int64_t m = r->sl.len;
  tally_status s;
  int in = NONE;
  if (m < 8) {
    if ((s = launch(r, "ladder_load", 1, NONE, m, 0, 0))) return s;
    return fold_on_host(r, 0, m, acc);
  }
  while (m >= 8) {
    int64_t w = m / 8;
    if ((s = launch(r, "ladder_simple_2", cdiv(w, LBLOCK), in, m, w, 0))) return s;
    in = 0;
    m = w;
  }
  return fold_on_host(r, 0, m, acc);
}

/* The OpenCL tutorial's reduce_add_1 (window 16: four fixed steps) and reduce_add_2 (window
 * of a work-group: computed steps): trees in global memory, one work-item per item over
 * the length padded to the work-group size. Window k's result stays at slot k * window of
 * the pass's buffer, where the next pass reads it (item stride = window); the buffers
 * alternate so that no pass reads what another work-group of it writes. */
static tally_status run_global_tree(lrun *r, const char *entry, int64_t window, tally__part *acc) {
  int64_t m = r->sl.len, stride = 1;
  int in = NONE, b = 0;
  tally_status s;
  do {
    if ((s = launch(r, entry, cdiv(m, LBLOCK), in, m, stride, b))) return s;
    in = b;
    b ^= 1;
    stride = window;
    m = cdiv(m, window);
  } while (m > 1);
  return fold_on_host(r, in, 1, acc);
}

static tally_status run_reduce_add_1(lrun *r, tally__part *acc) {
  return run_global_tree(r, "ladder_reduce_add_1", 16, acc);
}

static tally_status run_reduce_add_2(lrun *r, tally__part *acc) {
  return run_global_tree(r, "ladder_reduce_add_2", LBLOCK, acc);
}

/* tiled_1..4, the ECE 408 tree and reduce_add_3: passes of one tile per block until at
 * most a tile's worth of parts is left; the host folds those. */
static tally_status run_tiles(lrun *r, const char *entry, int64_t per_block, tally__part *acc) {
  int64_t m = r->sl.len;
  int in = NONE, b = 0;
  tally_status s;
  do {
    int64_t blocks = cdiv(m, per_block);
    if (blocks < 1) blocks = 1;
    if ((s = launch(r, entry, blocks, in, m, 0, b))) return s;
    in = b;
    b ^= 1;
    m = blocks;
  } while (m > LBLOCK);
  return fold_on_host(r, in, m, acc);
}

static tally_status run_reduce_add_3(lrun *r, tally__part *acc) { return run_tiles(r, "ladder_reduce_add_3", LBLOCK, acc); }
static tally_status run_tiled_1(lrun *r, tally__part *acc) { return run_tiles(r, "ladder_tiled_1", LBLOCK, acc); }
static tally_status run_tiled_2(lrun *r, tally__part *acc) { return run_tiles(r, "ladder_tiled_2", LBLOCK, acc); }
static tally_status run_tiled_3(lrun *r, tally__part *acc) { return run_tiles(r, "ladder_tiled_3", LBLOCK, acc); }
static tally_status run_tiled_4(lrun *r, tally__part *acc) { return run_tiles(r, "ladder_tiled_4", 2 * LBLOCK, acc); }
static tally_status run_tree_2x(lrun *r, tally__part *acc) { return run_tiles(r, "ladder_tree_2x", 2 * LBLOCK, acc); }

/* reduce_add_4 and its sequential-addressing twin: one work-group per tile of the padded
 * input, each adding its result into the output atomically. */
static tally_status run_reduce_add_4(lrun *r, tally__part *acc) {
  return run_atomic_common(r, "ladder_reduce_add_4", cdiv(r->sl.len, LBLOCK), acc);
}

static tally_status run_reduce_add_seq(lrun *r, tally__part *acc) {
  return run_atomic_common(r, "ladder_reduce_add_seq", cdiv(r->sl.len, LBLOCK), acc);
}

static tally_status run_cascade(lrun *r, tally__part *acc) {
  int64_t G = grid_units(r, 4);
  tally_status s = launch(r, "ladder_cascade", G, NONE, r->sl.len, 0, 0);
  return s ? s : fold_on_host(r, 0, G, acc);
}

static tally_status run_single_block(lrun *r, tally__part *acc) {
  return one_launch(r, "ladder_single_block", 1, acc);
}

static tally_status run_two_launch(lrun *r, tally__part *acc) {
  int64_t G = grid_units(r, 2); /* the seed: "#SM*2 is a good number" */
  tally_status s = launch(r, "ladder_comm_multi", G, NONE, r->sl.len, 0, 0);
  if (!s) s = launch(r, "ladder_comm_multi", 1, 0, G, 0, 1);
  return s ? s : fold_on_host(r, 1, 1, acc);
}

static tally_status run_last_block(lrun *r, tally__part *acc) {
  return one_launch(r, "ladder_last_block", grid_units(r, 2), acc);
}

static tally_status run_noncomm_single(lrun *r, tally__part *acc) {
  return one_launch(r, "ladder_noncomm_single", 1, acc);
}

static tally_status run_noncomm_multi(lrun *r, tally__part *acc) {
  return one_launch(r, "ladder_noncomm_multi", grid_units(r, 2), acc);
}

static tally_status run_warp_volatile(lrun *r, tally__part *acc) {
  return one_launch(r, "ladder_warp_volatile", grid_units(r, 4), acc);
}

static tally_status run_warp_padded(lrun *r, tally__part *acc) {
  return one_launch(r, "ladder_warp_padded", grid_units(r, 4), acc);
}

static tally_status run_warp_shuffle(lrun *r, tally__part *acc) {
  return one_launch(r, "ladder_warp_shuffle", grid_units(r, 4), acc);
}

/* ------------------------------------------------------------ the table */

struct tally__ladder_variant {
  const char *name;
  tally_status (*run)(lrun *r, tally__part *acc); /* one slice */
  int needs;                                      /* TALLY__LADDER_NEEDS_* */
  int full_cap; /* its first pass writes one part per element (global-memory trees) */
  int (*supports)(tally_op op, tally_dtype dt);   /* NULL: every op */
  const char *ops_text;                           /* what it computes, when not every op */
};

static int not_affine(tally_op op, tally_dtype dt) { (void)dt; return op != TALLY_AFFINE; }
static int sum_atomic(tally_op op, tally_dtype dt) { return op == TALLY_SUM && dt != TALLY_F64; }

#define COMM not_affine, "commutative ops (every op but affine)"
#define ALL NULL, NULL
#define ATOMIC sum_atomic, "sum of integers, bool, f16, bf16 and f32 (64-bit atomic adds)"
#define A64 TALLY__LADDER_NEEDS_ATOMIC64
#define WARPS (TALLY__LADDER_NEEDS_WARPS | TALLY__LADDER_NEEDS_GUARD)
#define GUARD TALLY__LADDER_NEEDS_GUARD

static const struct tally__ladder_variant ladder[] = {
    {"serial", run_serial, 0, 0, ALL},
    {"atomic", run_atomic, A64, 0, ATOMIC},
    {"simple_1", run_simple_1, 0, 0, COMM},
    {"simple_2", run_simple_2, 0, 0, COMM},
    {"reduce_add_1", run_reduce_add_1, 0, 1, ALL},
    {"reduce_add_2", run_reduce_add_2, 0, 1, ALL},
    {"reduce_add_3", run_reduce_add_3, 0, 0, ALL},
    {"reduce_add_4", run_reduce_add_4, A64, 0, ATOMIC},
    {"reduce_add_seq", run_reduce_add_seq, A64, 0, ATOMIC},
    {"tiled_1", run_tiled_1, 0, 0, ALL},
    {"tiled_2", run_tiled_2, 0, 0, ALL},
    {"tiled_3", run_tiled_3, 0, 0, COMM},
    {"tiled_4", run_tiled_4, 0, 0, COMM},
    {"tree_2x", run_tree_2x, 0, 0, ALL},
    {"cascade", run_cascade, 0, 0, COMM},
    {"single_block", run_single_block, 0, 0, COMM},
    {"noncomm_single", run_noncomm_single, 0, 0, ALL},
    {"two_launch", run_two_launch, 0, 0, COMM},
    {"last_block", run_last_block, GUARD, 0, COMM},
    {"noncomm_multi", run_noncomm_multi, GUARD, 0, ALL},
    {"block_atomic", run_block_atomic, A64, 0, ATOMIC},
    {"warp_volatile", run_warp_volatile, WARPS, 0, COMM},
    {"warp_padded", run_warp_padded, WARPS, 0, ALL},
    {"warp_shuffle", run_warp_shuffle, WARPS, 0, ALL},
    {NULL, NULL, 0, 0, NULL, NULL}};

static const char *needs_text(int missing) {
  if (missing & TALLY__LADDER_NEEDS_WARPS) return "warp shuffles and __syncwarp (CUDA only)";
  if (missing & TALLY__LADDER_NEEDS_GUARD)
    return "a last-block guard, whose device-wide fence OpenCL 1.2 does not promise (CUDA only)";
  return "64-bit atomics (OpenCL: the device's cl_khr_int64_base_atomics)";
}

const tally__ladder_variant *tally__ladder_at(int caps, int i) {
  for (const tally__ladder_variant *v = ladder; v->name; v++)
    if ((v->needs & ~caps) == 0 && i-- == 0) return v;
  return NULL;
}

const char *tally__ladder_name(const tally__ladder_variant *v) { return v->name; }

const char *tally__ladder_variant_name(int caps, int i) {
  if (i < 0) return NULL;
  const tally__ladder_variant *v = tally__ladder_at(caps, i);
  if (v) return v->name;
  return tally__ladder_at(caps, i - 1) || i == 0 ? "best" : NULL;
}

tally_status tally__ladder_find(tally_context *ctx, const char *backend, int caps, const char *name,
                                tally_op op, tally_dtype dt, const tally__ladder_variant **out) {
  *out = NULL;
  if (!name || strcmp(name, "best") == 0) return TALLY_OK;
  for (const tally__ladder_variant *v = ladder; v->name; v++) {
    if (strcmp(v->name, name) != 0) continue;
    if (v->needs & ~caps)
      return tally__fail(ctx, TALLY_EUNSUPPORTED, "opt->variant: '%s' needs %s, which this %s "
                         "device lacks", name, needs_text(v->needs & ~caps), backend);
    if (v->supports && !v->supports(op, dt))
      return tally__fail(ctx, TALLY_EUNSUPPORTED, "opt->variant: '%s' computes only %s, not %s of %s",
                         name, v->ops_text, tally_op_name(op), tally_dtype_name(dt));
    *out = v;
    return TALLY_OK;
  }
  char known[768] = "";
  for (int i = 0; tally__ladder_variant_name(caps, i); i++) {
    if (i) strncat(known, ", ", sizeof known - strlen(known) - 1);
    strncat(known, tally__ladder_variant_name(caps, i), sizeof known - strlen(known) - 1);
  }
  return tally__fail(ctx, TALLY_EINVAL, "opt->variant: '%s' is not a variant of the %s backend "
                     "(known: %s)", name, backend, known);
}

/* Every slice of the job, one after another. */
tally_status tally__ladder_run(tally_context *ctx, const tally__ladder_dev *dev,
                               const tally__problem *p, const tally__ladder_variant *v, int64_t k0,
                               int64_t k1, tally__part *parts) {
  lrun r;
  memset(&r, 0, sizeof r);
  r.ctx = ctx;
  r.dev = dev;
  r.fam = tally__family_of(p->op, p->dtype);
  int64_t maxlen = 1;
  for (int64_t k = k0; k < k1; k++) {
    int64_t l = p->offsets ? p->offsets[k + 1] - p->offsets[k] : p->n;
    if (l > maxlen) maxlen = l;
  }
  /* The largest first pass's output: half the items (simple_1), a part per tile, per
   * block of the fixed grids; or one per element, padded (the global-memory trees). */
  int64_t cap = v->full_cap ? cdiv(maxlen, LBLOCK) * LBLOCK
                            : maxlen / 2 + LBLOCK * 8 + (int64_t)dev->units * 8;
  tally_status s = dev->scratch(dev->self, cap);
  for (int64_t k = k0; k < k1 && !s; k++) {
    if (p->offsets) {
      r.sl.len = p->offsets[k + 1] - p->offsets[k];
      r.sl.o0 = p->offsets[k] * p->cstride[0];
      r.sl.o1 = p->offsets[k] * p->cstride[1];
    } else {
      r.sl.len = p->n;
      r.sl.o0 = k * p->slice_stride[0];
      r.sl.o1 = k * p->slice_stride[1];
    }
    r.sl.cols = p->rows > 1 && !p->offsets ? p->cols : (r.sl.len > 0 ? r.sl.len : 1);
    r.sl.rs0 = p->rstride[0];
    r.sl.rs1 = p->rstride[1];
    r.sl.cs0 = p->cstride[0];
    r.sl.cs1 = p->cstride[1];
    s = v->run(&r, &parts[k - k0]);
  }
  return s;
}

/* The ladder variants' host side: for each slice, the launches each seed algorithm makes
 * (one, two, or a shrinking series), and the final fold on the host where the seed copies
 * partial results out. Kernels: src/gpu/ladder.clh. */
#include "core/finalize.h"
#include "cuda_ctx.h"
#include "core/gpu_part.h"
#include "ladder.h"

#include <stdlib.h>
#include <string.h>

#define LBLOCK 256
#define WORDS 9

typedef struct tally__lrun {
  tally__cuda_ctx *c;
  const tally__problem *p;
  tally__family fam;
  CUdeviceptr x, y;   /* element 0 of the slice */
  long long len, cols, rs0, rs1, cs0, cs1;
  CUdeviceptr buf[2]; /* part buffers (ping-pong), cap parts each */
  long long cap;
  CUdeviceptr counter, result;
} lrun;

static tally_status fn_for(lrun *r, const char *entry, CUfunction *fn) {
  static const char *const srcs[] = {"reduce_part.clh", "reduce_best.clh", "ladder.clh", NULL};
  char defs[256];
  tally__cuda_defs(r->p, r->fam, 0, defs, sizeof defs);
  return tally__cuda_kernel_get(r->c, srcs, defs, entry, fn);
}

/* One launch of a ladder kernel: grid blocks; items m of the pass (from parts in `in`
 * when in != 0), pass parameter s, output parts to `out`. */
static tally_status launch(lrun *r, const char *entry, int64_t grid, CUdeviceptr in, long long m,
                           long long s, CUdeviceptr out) {
  CUfunction fn;
  tally_status st = fn_for(r, entry, &fn);
  if (st) return st;
  if (grid < 1) grid = 1;
  double scale = 1.0;
  void *args[] = {&r->x, &r->y, &r->len, &r->cols, &r->rs0, &r->rs1, &r->cs0, &r->cs1, &scale,
                  &in, &m, &s, &out, &r->cap, &r->counter, &r->result};
  CUresult e = r->c->cu->cuLaunchKernel(fn, (unsigned)grid, 1, 1, LBLOCK, 1, 1, 0, r->c->stream,
                                        args, NULL);
  if (!e) e = r->c->cu->cuStreamSynchronize(r->c->stream);
  if (e) {
    r->c->cu->cuMemsetD8Async(r->counter, 0, 4, r->c->stream);
    return tally__cuda_fail(r->c, e, entry);
  }
  return TALLY_OK;
}

/* The first m parts of buffer b, folded in order on the host (the seeds' final
 * std::accumulate over the copied-out partial results). */
static tally_status fold_on_host(lrun *r, CUdeviceptr b, int64_t m, tally__part *acc) {
  tally__part_init(acc, r->fam, 0);
  if (m <= 0) return TALLY_OK;
  uint64_t *w = malloc((size_t)(WORDS * m) * 8);
  if (!w) return tally__fail(&r->c->base, TALLY_ENOMEM, "ladder: no host memory for %lld parts", (long long)m);
  CUresult e = 0;
  for (int i = 0; i < WORDS && !e; i++)
    e = r->c->cu->cuMemcpyDtoHAsync(w + i * m, b + (CUdeviceptr)(i * r->cap * 8), (size_t)m * 8,
                                     r->c->stream);
  if (!e) e = r->c->cu->cuStreamSynchronize(r->c->stream);
  if (e) { free(w); return tally__cuda_fail(r->c, e, "cuMemcpyDtoH (ladder parts)"); }
  for (int64_t j = 0; j < m; j++) {
    tally__gpu_part g;
    uint64_t words[WORDS];
    for (int i = 0; i < WORDS; i++) words[i] = w[i * m + j];
    memcpy(&g, words, sizeof g);
    tally__part part;
    tally__gpu_part_to_part(&g, &part);
    tally__part_merge(acc, &part, r->fam);
  }
  free(w);
  return TALLY_OK;
}

/* The single part the kernel stored at r->result. */
static tally_status read_result(lrun *r, tally__part *acc) {
  tally__gpu_part g;
  CUresult e = r->c->cu->cuMemcpyDtoHAsync(&g, r->result, sizeof g, r->c->stream);
  if (!e) e = r->c->cu->cuStreamSynchronize(r->c->stream);
  if (e) return tally__cuda_fail(r->c, e, "cuMemcpyDtoH (ladder result)");
  tally__gpu_part_to_part(&g, acc);
  return TALLY_OK;
}

static int64_t cdiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

/* One launch that leaves the slice's part at r->result: grid blocks, items from the input. */
static tally_status one_launch(lrun *r, const char *entry, int64_t grid, tally__part *acc) {
  tally_status s = launch(r, entry, grid, 0, r->len, 0, r->buf[0]);
  return s ? s : read_result(r, acc);
}


/* ------------------------------------------------------------ the variants */

static tally_status run_serial(lrun *r, tally__part *acc) {
  return one_launch(r, "ladder_serial", 1, acc);
}

static tally_status run_atomic_common(lrun *r, const char *entry, int64_t grid, tally__part *acc) {
  /* The kernels add into the result words: start them from the identity (zeros). */
  CUresult e = r->c->cu->cuMemsetD8Async(r->result, 0, WORDS * 8, r->c->stream);
  if (e) return tally__cuda_fail(r->c, e, "cuMemsetD8Async");
  tally_status s = launch(r, entry, grid, 0, r->len, 0, 0);
  if (s) return s;
  s = read_result(r, acc);
  acc->idx = -1;
  return s;
}

static tally_status run_atomic(lrun *r, tally__part *acc) {
  return run_atomic_common(r, "ladder_atomic", cdiv(r->len, LBLOCK), acc);
}

static tally_status run_block_atomic(lrun *r, tally__part *acc) {
  return run_atomic_common(r, "ladder_block_atomic", (int64_t)r->c->sms * 4, acc);
}

static tally_status run_simple_1(lrun *r, tally__part *acc) {
  int64_t m = r->len;
  tally_status s;
  if (m <= 1) {
    if ((s = launch(r, "ladder_load", 1, 0, m, 0, r->buf[0]))) return s;
    return fold_on_host(r, r->buf[0], m, acc);
  }
  CUdeviceptr in = 0;
  while (m > 1) {
    int64_t half = m / 2;
    if ((s = launch(r, "ladder_simple_1", cdiv(half, LBLOCK), in, m, half, r->buf[0]))) return s;
    in = r->buf[0]; /* in place from here on */
    m = half;
  }
  return fold_on_host(r, r->buf[0], 1, acc);
}

static tally_status run_simple_2(lrun *r, tally__part *acc) {
  int64_t m = r->len;
  tally_status s;
  CUdeviceptr in = 0;
  if (m < 8) {
    if ((s = launch(r, "ladder_load", 1, 0, m, 0, r->buf[0]))) return s;
    return fold_on_host(r, r->buf[0], m, acc);
  }
  while (m >= 8) {
    int64_t w = m / 8;
    if ((s = launch(r, "ladder_simple_2", cdiv(w, LBLOCK), in, m, w, r->buf[0]))) return s;
    in = r->buf[0];
    m = w;
  }
  return fold_on_host(r, r->buf[0], m, acc);
}

/* tiled_1..4 and the ECE 408 tree: passes of one tile per block until at most a tile's
 * worth of parts is left; the host folds those. */
static tally_status run_tiles(lrun *r, const char *entry, int64_t per_block, tally__part *acc) {
  int64_t m = r->len;
  CUdeviceptr in = 0;
  int b = 0;
  tally_status s;
  do {
    int64_t blocks = cdiv(m, per_block);
    if (blocks < 1) blocks = 1;
    if ((s = launch(r, entry, blocks, in, m, 0, r->buf[b]))) return s;
    in = r->buf[b];
    b ^= 1;
    m = blocks;
  } while (m > LBLOCK);
  return fold_on_host(r, in, m, acc);
}

static tally_status run_tiled_1(lrun *r, tally__part *acc) { return run_tiles(r, "ladder_tiled_1", LBLOCK, acc); }
static tally_status run_tiled_2(lrun *r, tally__part *acc) { return run_tiles(r, "ladder_tiled_2", LBLOCK, acc); }
static tally_status run_tiled_3(lrun *r, tally__part *acc) { return run_tiles(r, "ladder_tiled_3", LBLOCK, acc); }
static tally_status run_tiled_4(lrun *r, tally__part *acc) { return run_tiles(r, "ladder_tiled_4", 2 * LBLOCK, acc); }
static tally_status run_tree_2x(lrun *r, tally__part *acc) { return run_tiles(r, "ladder_tree_2x", 2 * LBLOCK, acc); }

static int64_t grid_sm(const lrun *r, int per_sm) { return (int64_t)r->c->sms * per_sm; }

static tally_status run_cascade(lrun *r, tally__part *acc) {
  int64_t G = grid_sm(r, 4);
  tally_status s = launch(r, "ladder_cascade", G, 0, r->len, 0, r->buf[0]);
  return s ? s : fold_on_host(r, r->buf[0], G, acc);
}

static tally_status run_single_block(lrun *r, tally__part *acc) {
  return one_launch(r, "ladder_single_block", 1, acc);
}

static tally_status run_two_launch(lrun *r, tally__part *acc) {
  int64_t G = grid_sm(r, 2); /* the seed: "#SM*2 is a good number" */
  tally_status s = launch(r, "ladder_comm_multi", G, 0, r->len, 0, r->buf[0]);
  if (!s) s = launch(r, "ladder_comm_multi", 1, r->buf[0], G, 0, r->buf[1]);
  return s ? s : fold_on_host(r, r->buf[1], 1, acc);
}

static tally_status run_last_block(lrun *r, tally__part *acc) {
  return one_launch(r, "ladder_last_block", grid_sm(r, 2), acc);
}

static tally_status run_noncomm_single(lrun *r, tally__part *acc) {
  return one_launch(r, "ladder_noncomm_single", 1, acc);
}

static tally_status run_noncomm_multi(lrun *r, tally__part *acc) {
  return one_launch(r, "ladder_noncomm_multi", grid_sm(r, 2), acc);
}

static tally_status run_warp_volatile(lrun *r, tally__part *acc) {
  return one_launch(r, "ladder_warp_volatile", grid_sm(r, 4), acc);
}

static tally_status run_warp_padded(lrun *r, tally__part *acc) {
  return one_launch(r, "ladder_warp_padded", grid_sm(r, 4), acc);
}

static tally_status run_warp_shuffle(lrun *r, tally__part *acc) {
  return one_launch(r, "ladder_warp_shuffle", grid_sm(r, 4), acc);
}

/* ------------------------------------------------------------ the table */

static int not_affine(tally_op op, tally_dtype dt) { (void)dt; return op != TALLY_AFFINE; }
static int sum_atomic(tally_op op, tally_dtype dt) { return op == TALLY_SUM && dt != TALLY_F64; }

#define COMM not_affine, "commutative ops (every op but affine)"
#define ALL NULL, NULL
#define ATOMIC sum_atomic, "sum of integers, bool, f16, bf16 and f32 (hardware atomic adds)"

const tally__ladder_variant tally__ladder[] = {
    {"serial", run_serial, ALL},
    {"atomic", run_atomic, ATOMIC},
    {"simple_1", run_simple_1, COMM},
    {"simple_2", run_simple_2, COMM},
    {"tiled_1", run_tiled_1, ALL},
    {"tiled_2", run_tiled_2, ALL},
    {"tiled_3", run_tiled_3, COMM},
    {"tiled_4", run_tiled_4, COMM},
    {"tree_2x", run_tree_2x, ALL},
    {"cascade", run_cascade, COMM},
    {"single_block", run_single_block, COMM},
    {"noncomm_single", run_noncomm_single, ALL},
    {"two_launch", run_two_launch, COMM},
    {"last_block", run_last_block, COMM},
    {"noncomm_multi", run_noncomm_multi, ALL},
    {"block_atomic", run_block_atomic, ATOMIC},
    {"warp_volatile", run_warp_volatile, COMM},
    {"warp_padded", run_warp_padded, ALL},
    {"warp_shuffle", run_warp_shuffle, ALL},
    {NULL, NULL, NULL, NULL}};

/* Part buffers (two), a ticket counter and a result part, kept in the context. */
static tally_status scratch(tally__cuda_ctx *c, size_t bytes, CUdeviceptr buf[2], CUdeviceptr *counter,
                            CUdeviceptr *result) {
  const tally__cu_api *cu = c->cu;
  if (c->ladder_bytes < bytes) {
    for (int i = 0; i < 2; i++)
      if (c->ladder_buf[i]) cu->cuMemFree(c->ladder_buf[i]), c->ladder_buf[i] = 0;
    c->ladder_bytes = 0;
    for (int i = 0; i < 2; i++) {
      CUresult e = cu->cuMemAlloc(&c->ladder_buf[i], bytes);
      if (e) { c->ladder_buf[i] = 0; return tally__cuda_fail(c, e, "cuMemAlloc (ladder parts)"); }
    }
    c->ladder_bytes = bytes;
  }
  if (!c->ladder_small) {
    CUresult e = cu->cuMemAlloc(&c->ladder_small, 128);
    if (e) { c->ladder_small = 0; return tally__cuda_fail(c, e, "cuMemAlloc (ladder result)"); }
    e = cu->cuMemsetD8Async(c->ladder_small, 0, 128, c->stream);
    if (e) {
      cu->cuMemFree(c->ladder_small);
      c->ladder_small = 0;
      return tally__cuda_fail(c, e, "cuMemsetD8Async (ladder ticket)");
    }
  }
  buf[0] = c->ladder_buf[0];
  buf[1] = c->ladder_buf[1];
  *counter = c->ladder_small;
  *result = c->ladder_small + 8;
  return TALLY_OK;
}

/* Every slice of the job, one after another. */
tally_status tally__ladder_run(tally__cuda_ctx *c, const tally__problem *p, const tally__ladder_variant *v,
                               CUdeviceptr x, CUdeviceptr y, int64_t k0, int64_t k1, tally__part *parts) {
  lrun r;
  memset(&r, 0, sizeof r);
  r.c = c;
  r.p = p;
  r.fam = tally__family_of(p->op, p->dtype);
  int64_t es = (int64_t)tally_dtype_size(p->dtype), maxlen = 1;
  for (int64_t k = k0; k < k1; k++) {
    int64_t l = p->offsets ? p->offsets[k + 1] - p->offsets[k] : p->n;
    if (l > maxlen) maxlen = l;
  }
  r.cap = maxlen / 2 + LBLOCK * 8 + (int64_t)c->sms * 8; /* the largest first pass's output */
  tally_status s = scratch(c, (size_t)(WORDS * r.cap) * 8, r.buf, &r.counter, &r.result);
  if (s) return s;
  for (int64_t k = k0; k < k1 && !s; k++) {
    int64_t o0, o1;
    if (p->offsets) {
      r.len = p->offsets[k + 1] - p->offsets[k];
      o0 = p->offsets[k] * p->cstride[0];
      o1 = p->offsets[k] * p->cstride[1];
    } else {
      r.len = p->n;
      o0 = k * p->slice_stride[0];
      o1 = k * p->slice_stride[1];
    }
    r.x = x + (CUdeviceptr)(o0 * es);
    r.y = (y ? y : x) + (CUdeviceptr)(o1 * es);
    r.cols = p->rows > 1 && !p->offsets ? p->cols : (r.len > 0 ? r.len : 1);
    r.rs0 = p->rstride[0];
    r.rs1 = p->rstride[1];
    r.cs0 = p->cstride[0];
    r.cs1 = p->cstride[1];
    s = v->run(&r, &parts[k - k0]);
  }
  return s;
}

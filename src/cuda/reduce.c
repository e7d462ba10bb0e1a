/* The CUDA driver for tally_reduce: place the input on the device (host arrays are
 * copied; device arrays are used in place), launch the variant's kernel over batches of
 * slices, and finalize each slice's part on the host with the rules every backend shares
 * (core/finalize.c). */
#include "cuda_ctx.h"
#include "core/clock.h"
#include "core/finalize.h"
#include "core/gpu_part.h"
#include "core/gpu_host.h"
#include "core/gpu_hist.h"
#include "core/gpu_scan.h"
#include "core/stage_trace.h"
#include "cpu/cpu.h"
#include "variants.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define BLOCK TALLY_CUDA_BLOCK
#define MAX_SLICES_PER_LAUNCH 65535 /* grid y */
#define MAX_PARTIALS (1 << 16)      /* block parts per launch: 4.5 MiB of scratch */

/* ------------------------------------------------------------ scratch */

tally_status tally__cuda_grow(tally__cuda_ctx *c, CUdeviceptr *buf, size_t *have, size_t need,
                              const char *what) {
  if (*have >= need) return TALLY_OK;
  if (*buf) c->cu->cuMemFree(*buf);
  *buf = 0;
  *have = 0;
  CUresult r = c->cu->cuMemAlloc(buf, need);
  if (r) {
    *buf = 0;
    char w[96];
    snprintf(w, sizeof w, "cuMemAlloc of %zu bytes for %s", need, what);
    return tally__cuda_fail(c, r, w);
  }
  *have = need;
  return TALLY_OK;
}

tally_status tally__cuda_scratch(tally__cuda_ctx *c, int64_t G, int64_t nslices, int64_t nresults) {
  size_t partial_words = G > 1 ? (size_t)(G * nslices) * 9 : 0;
  tally_status s;
  if ((s = tally__cuda_grow(c, &c->partials, &c->partials_bytes, partial_words * 8 + 8, "block parts")))
    return s;
  if (!c->counters) {
    size_t bytes = (size_t)(MAX_SLICES_PER_LAUNCH + 1) * 4;
    if ((s = tally__cuda_grow(c, &c->counters, &c->counters_n, bytes, "tickets"))) return s;
    CUresult r = c->cu->cuMemsetD8Async(c->counters, 0, bytes, c->stream);
    if (r) { /* unzeroed tickets would make every later result stale: start over next time */
      c->cu->cuMemFree(c->counters);
      c->counters = 0;
      c->counters_n = 0;
      return tally__cuda_fail(c, r, "cuMemsetD8Async (tickets)");
    }
  }
  /* Each result part, then a flag per result (reduce_best.clh: result_store). */
  size_t rbytes = (size_t)nresults * (sizeof(tally__gpu_part) + sizeof(unsigned long long));
  if (c->results_bytes < rbytes) {
    if (c->results_host) c->cu->cuMemFreeHost(c->results_host);
    c->results_host = NULL;
    c->results_bytes = 0;
    /* Mapped pinned memory: the last block writes the slice's part straight into host
     * memory, so no copy (and no second call) follows the kernel. */
    CUresult r = c->cu->cuMemHostAlloc(&c->results_host, rbytes,
                                       CU_MEMHOSTALLOC_DEVICEMAP_ | CU_MEMHOSTALLOC_PORTABLE_);
    if (r) {
      c->results_host = NULL;
      return tally__cuda_fail(c, r, "cuMemHostAlloc (results)");
    }
    r = c->cu->cuMemHostGetDevicePointer(&c->results_dev, c->results_host, 0);
    if (r) {
      c->cu->cuMemFreeHost(c->results_host);
      c->results_host = NULL;
      return tally__cuda_fail(c, r, "cuMemHostGetDevicePointer (results)");
    }
    memset(c->results_host, 0, rbytes); /* no flag may hold a later launch's number */
    c->results_bytes = rbytes;
  }
  return TALLY_OK;
}

/* ------------------------------------------------------------ input placement */

/* Device address of element 0 of input `which`: a device array as it is, a host array
 * copied (the span it touches) into staging memory first. */
static tally_status place_input(tally__cuda_ctx *c, const tally__problem *p, int which,
                                const void *host_or_dev, CUdeviceptr *dev0) {
  if (p->in_mem == TALLY_MEM_DEVICE) {
    *dev0 = (CUdeviceptr)(uintptr_t)host_or_dev;
    return TALLY_OK;
  }
  int64_t lo, hi, es = (int64_t)tally_dtype_size(p->dtype);
  tally__input_span(p, which, &lo, &hi);
  size_t bytes = (size_t)((hi - lo + 1) * es);
  tally_status s = tally__cuda_grow(c, &c->staging[which], &c->staging_bytes[which], bytes, "a host input");
  if (s) return s;
  const char *src = (const char *)host_or_dev + lo * es;
  CUresult r = c->cu->cuMemcpyHtoDAsync(c->staging[which], src, bytes, c->stream);
  if (r) return tally__cuda_fail(c, r, "cuMemcpyHtoDAsync (input)");
  *dev0 = c->staging[which] - (CUdeviceptr)(lo * es);
  return TALLY_OK;
}

/* A pinned host input that the host does not reduce (tally__cuda_host_reduces: by default
 * the ops its CPU reads at memory speed) and under MAP_MAX_BYTES is read by the kernel where it is, over the bus:
 * no DMA, no staging, one launch (so the device array's bits). Measured on an H200
 * (2026-11-26, f32 SUM, × the pinned copy): 0.72-0.78 against the DMA stream's 0.63 at
 * 2^18, 0.85-0.87 against 0.80-0.83 at 2^20, equal (0.90) at 2^22 (16 MiB), and behind
 * from 2^24 (0.92 against 0.97-0.99): the kernel's reads over the bus reach 51 GB/s, the
 * DMA engines 55. Contiguous 1-D inputs only (what was measured). For measuring,
 * $TALLY_CUDA_PINNED=dma or =map forces either way, and =gpu keeps this choice, for every
 * op (any of the three: never the host). */
#define MAP_MAX_BYTES ((int64_t)8 << 20)

/* Device addresses of such an input; false where it does not qualify. */
static bool map_pinned(tally__cuda_ctx *c, const tally__problem *p, const void *in, const void *in2,
                       CUdeviceptr *dx, CUdeviceptr *dy) {
  if (p->in_mem != TALLY_MEM_HOST || p->offsets || p->nslices != 1 || p->rows > 1 ||
      p->cstride[0] != 1 || (in2 && p->cstride[1] != 1))
    return false;
  const char *how = getenv("TALLY_CUDA_PINNED"); /* after those: device inputs skip it */
  const bool force = how && strcmp(how, "map") == 0, never = how && strcmp(how, "dma") == 0;
  int64_t es = (int64_t)tally_dtype_size(p->dtype);
  if (never) return false;
  if (!force && p->n * es >= MAP_MAX_BYTES) return false;
  const void *ins[2] = {in, in2};
  CUdeviceptr *outs[2] = {dx, dy};
  for (int w = 0; w < 2; w++) {
    if (!ins[w]) continue;
    uint64_t start = 0;
    size_t size = 0;
    if (!tally__cuda_pinned(c, ins[w], p->n * es)) return false;
    tally__cuda_mem_type(c, ins[w], &start, &size);
    CUdeviceptr base = 0;
    if (c->cu->cuMemHostGetDevicePointer(&base, (void *)(uintptr_t)start, 0)) return false;
    *outs[w] = base + (CUdeviceptr)((uint64_t)(uintptr_t)ins[w] - start);
  }
  return true;
}

/* ------------------------------------------------------------ launching */

typedef struct {
  tally__cuda_ctx *c;
  const tally__problem *p;
  tally__family fam;
  CUdeviceptr x, y, offsets;
} job_t;

static int64_t slice_len(const tally__problem *p, int64_t k) {
  return p->offsets ? p->offsets[k + 1] - p->offsets[k] : p->n;
}

/* -D definitions for the kernel (core/gpu_sources.c). */
/* Loads in flight per thread: TALLY_CUDA_UNROLL, or $TALLY_CUDA_UNROLL (1..16, for
 * measuring; read once). The kernel's -DUNROLL and the host's block count both use it. */
int tally__cuda_unroll(void) {
  static int unroll; /* 0: not read yet (a race here only reads the same value twice) */
  if (!unroll) {
    const char *e = getenv("TALLY_CUDA_UNROLL");
    int u = e ? atoi(e) : 0;
    unroll = u >= 1 && u <= 16 ? u : TALLY_CUDA_UNROLL;
  }
  return unroll;
}

void tally__cuda_defs(const tally__problem *p, tally__family fam, int contig, char *defs, size_t len) {
  tally__gpu_defs(p, fam, contig, BLOCK, defs, len);
  size_t used = strlen(defs);
  snprintf(defs + used, len - used, " -DUNROLL=%d", tally__cuda_unroll());
}

tally_status tally__cuda_best_fn(tally__cuda_ctx *c, const tally__problem *p, tally__family fam,
                                 int contig, CUfunction *fn) {
  static const char *const srcs[] = {"reduce_part.clh", "reduce_best.clh", NULL};
  /* UNROLL, the one other definition, is the same for the whole process. */
  tally__gpu_key key;
  tally__gpu_defs_key(p, fam, contig, BLOCK, &key);
  for (int i = 0; i < c->best_memo_n; i++)
    if (memcmp(&c->best_memo[i].key, &key, sizeof key) == 0) {
      *fn = c->best_memo[i].fn;
      return TALLY_OK;
    }
  char defs[256];
  tally__cuda_defs(p, fam, contig, defs, sizeof defs);
  tally_status s = tally__cuda_kernel_get(c, srcs, defs, "reduce_best", fn);
  if (s) return s;
  const int cap = (int)(sizeof c->best_memo / sizeof c->best_memo[0]);
  int slot = c->best_memo_next;
  c->best_memo_next = (slot + 1) % cap;
  if (c->best_memo_n < cap) c->best_memo_n++;
  c->best_memo[slot].key = key;
  c->best_memo[slot].fn = *fn;
  return TALLY_OK;
}

void tally__cuda_arch_sm_limits(const char *arch, tally__cuda_sm_limits *lim) {
  int cc = 0;
  if (sscanf(arch, "sm_%d", &cc) != 1) cc = 90;
  /* sm_101 is sm_110's earlier name; sm_110 as CCCL's architecture traits give it */
  const int t1536 = cc == 86 || cc == 87 || cc == 89 || cc == 101 || cc == 110 || cc >= 120;
  lim->threads = cc == 75 ? 1024 : t1536 ? 1536 : 2048;
  lim->smem = 1024 * (cc == 75 ? 64 : cc < 80 ? 96 : cc == 80 || cc == 87 ? 164
                      : cc == 86 || cc == 89 || cc >= 120 ? 100 : 228); /* sm_90, sm_10x, sm_110 */
  lim->smem_reserved = cc >= 80 ? 1024 : 0;
  lim->smem_unit = cc >= 80 ? 128 : 256;
}

int tally__cuda_each_spec(const char *arch, void (*fn)(const char *const *srcs, const char *defs, void *user),
                          void *user) {
  static const char *const srcs[] = {"reduce_part.clh", "reduce_best.clh", NULL};
  static const char *const ladder_srcs[] = {"reduce_part.clh", "reduce_best.clh", "ladder.clh", NULL};
  int count = 0;
  for (int op = 0; op < TALLY_OP_COUNT_; op++)
    for (int dt = 0; dt < TALLY_DTYPE_COUNT_; dt++) {
      tally_dtype rd;
      if (tally_result_dtype((tally_op)op, (tally_dtype)dt, &rd) != TALLY_OK) continue;
      for (int acc = 0; acc < 2; acc++)
        for (int nan = 0; nan < 2; nan++)
          for (int layout = 0; layout < 3; layout++) { /* contiguous, strided, 2-D */
            tally__problem p;
            memset(&p, 0, sizeof p);
            p.op = (tally_op)op;
            p.dtype = (tally_dtype)dt;
            p.opt.accuracy = (tally_accuracy)acc;
            p.opt.nan = (tally_nan)nan;
            p.rows = layout == 2 ? 2 : 1;
            tally__family fam = tally__family_of(p.op, p.dtype);
            int contig = layout == 0 && fam != TALLY__FAM_AFFINE;
            char defs[256];
            tally__cuda_defs(&p, fam, contig, defs, sizeof defs);
            fn(srcs, defs, user);
            count++;
            if (!contig) { /* the ladder's kernels: scalar loads only */
              fn(ladder_srcs, defs, user);
              count++;
            }
            if (op == TALLY_NORM2 && dt == TALLY_F64) { /* its rescue pass */
              tally__cuda_defs(&p, TALLY__FAM_MINMAX, contig, defs, sizeof defs);
              fn(srcs, defs, user);
              count++;
            }
          }
    }
  /* Scans (scan.c): one kernel per op, dtype, NaN mode and accuracy. */
  static const char *const scan_srcs[] = {"reduce_part.clh", "scan.clh", NULL};
  static const char *const ladder_scan_srcs[] = {"reduce_part.clh", "scan.clh", "scan_ladder.clh",
                                                 NULL};
  static const tally_op scan_ops[] = {TALLY_SUM, TALLY_PROD, TALLY_MIN, TALLY_MAX, TALLY_AFFINE};
  tally__cuda_sm_limits lim; /* the scans' launch bounds, for this architecture */
  tally__cuda_arch_sm_limits(arch, &lim);
  for (size_t oi = 0; oi < sizeof scan_ops / sizeof *scan_ops; oi++)
    for (int dt = 0; dt < TALLY_DTYPE_COUNT_; dt++)
      for (int acc = 0; acc < 2; acc++)
        for (int nan = 0; nan < 2; nan++) {
          tally__scan_problem sp;
          memset(&sp, 0, sizeof sp);
          sp.op = scan_ops[oi];
          sp.dtype = (tally_dtype)dt;
          if (tally_result_dtype(sp.op, sp.dtype, &sp.rdtype) != TALLY_OK) continue;
          if (sp.op == TALLY_MIN || sp.op == TALLY_MAX) sp.rdtype = sp.dtype;
          if (sp.op == TALLY_AFFINE && nan) continue; /* refused with NaN ignore */
          sp.accuracy = (tally_accuracy)acc;
          sp.nan = (tally_nan)nan;
          sp.width = sp.op == TALLY_AFFINE ? 2 : 1;
          tally__gpu_scan_plan pl;
          /* Some shapes depend on the length, and so does the tree of carries (scan.c,
           * carry_radix): 0 elements take the radix-32 tree for every op that has one,
           * 2^30 the binary indexed tree; the compensated f64 sum carries in bins up to
           * 2^20 tiles (tally__gpu_scan_binned) and takes the binary tree beyond, at 2^35
           * (its radix tree, only where TALLY_SCAN_CARRIES=radix asks, is not listed). */
          static const int64_t lengths[] = {0, (int64_t)1 << 23, (int64_t)1 << 30, (int64_t)1 << 35};
          const int binned = sp.op == TALLY_SUM && sp.dtype == TALLY_F64 && acc != TALLY_ACCURACY_FAST;
          for (int li = 0; li < (binned ? 4 : 3); li++) {
            sp.n = lengths[li];
            tally__cuda_scan_plan(&sp, &lim, &pl);
            fn(scan_srcs, pl.defs, user);
            count++;
          }
          tally__gpu_scan_ladder_plan_make(&sp, TALLY_LADDER_SCAN_BLOCK, &pl); /* the scan ladder */
          fn(ladder_scan_srcs, pl.defs, user);
          count++;
        }
  /* Histograms (hist.c): local bins of three sizes or 64-bit atomics, even bins or edges. */
  static const char *const hist_srcs[] = {"reduce_part.clh", "hist.clh", NULL};
  static const int64_t hist_bins[] = {256, 1000, 4096, 100000};
  for (int dt = 0; dt < TALLY_DTYPE_COUNT_; dt++)
    for (size_t b = 0; b < sizeof hist_bins / sizeof *hist_bins; b++)
      for (int edges = 0; edges < 2; edges++) {
        tally__hist_problem hp;
        memset(&hp, 0, sizeof hp);
        static const double e2[2] = {0, 1};
        hp.dtype = (tally_dtype)dt;
        hp.n = 1;
        hp.nbins = hist_bins[b];
        hp.lo = 0;
        hp.hi = 1;
        hp.edges = edges ? e2 : NULL;
        tally__gpu_hist_plan pl;
        tally__gpu_hist_plan_make(&hp, 256, 1, 1, &pl); /* as cuda/hist.c */
        fn(hist_srcs, pl.defs, user);
        count++;
      }
  return count;
}

/* Whether slices can be read with 16-byte loads: contiguous 1-D runs, and (DOT) the two
 * inputs equally misaligned so one vector index serves both. */
static int contiguous(const job_t *j) {
  const tally__problem *p = j->p;
  if (p->rows > 1 && !p->offsets) return 0;
  if (p->cstride[0] != 1) return 0;
  if (tally__op_binary(p->op)) {
    if (p->cstride[1] != 1) return 0;
    int64_t es = (int64_t)tally_dtype_size(p->dtype);
    /* Every slice starts at the same misalignment in both inputs. */
    if ((j->x & 15) != (j->y & 15)) return 0;
    if (!p->offsets && ((p->slice_stride[0] - p->slice_stride[1]) * es) % 16 != 0) return 0;
  }
  return 1;
}

/* Blocks per slice: enough for each thread to have a few 16-byte loads, at most the
 * number that fills every multiprocessor. Depends only on the length and the device, so
 * results are the same run to run. */
int64_t tally__cuda_gmax(tally__cuda_ctx *c, CUfunction fn) {
  /* One wave: as many blocks as can be resident at once (registers permitting), so no
   * multiprocessor waits on a second wave's straggler. Remembered for the last kernel:
   * calls of one kind ask again and again. */
  if (fn == c->gmax_fn) return c->gmax;
  int resident = 0;
  if (c->cu->cuOccupancyMaxActiveBlocksPerMultiprocessor(&resident, fn, BLOCK, 0) || resident < 1)
    resident = c->sm.threads / BLOCK > 0 ? c->sm.threads / BLOCK : 1;
  c->gmax_fn = fn;
  c->gmax = (int64_t)c->sms * resident;
  return c->gmax;
}

/* Keep in step with the kernel's own per-slice G in reduce_best.clh. */
int64_t tally__cuda_blocks_for(tally__cuda_ctx *c, CUfunction fn, int64_t len, int contig,
                               size_t esize) {
  int64_t units = contig ? len / (int64_t)(16 / esize) : len;
  int64_t per_block = (int64_t)BLOCK * tally__cuda_unroll();
  int64_t g = (units + per_block - 1) / per_block;
  int64_t gmax = tally__cuda_gmax(c, fn);
  if (g > gmax) g = gmax;
  return g < 1 ? 1 : g;
}

/* Wait for a launch of nb slices whose last blocks set their flags to seq once their parts
 * are in host memory (reduce_best.clh, result_store). Watching the flags returns as soon as
 * the parts are there, without waiting for the kernel to retire and the stream to say so
 * (docs/DECISIONS.md, "Waiting on flags"). The stream is asked every QUERY_NS, so a kernel
 * that failed (and so set no flag) is reported, not waited on forever. Not more often: a
 * query takes 1.6 us on an H200 host, and a flag set meanwhile waits for it to return
 * (asked every 64 looks, the wait spent most of its time in queries). *missing: the stream
 * ended with a flag unset (never expected). */
#define QUERY_NS 20000

static CUresult wait_flags(tally__cuda_ctx *c, int64_t nb, unsigned long long seq, int *missing) {
  const unsigned long long *flag =
      (const unsigned long long *)((const char *)c->results_host + (size_t)nb * sizeof(tally__gpu_part));
  int64_t k = 0; /* flags 0 .. k-1 seen */
  *missing = 0;
  int64_t next_query = 0; /* 0: the clock not read yet */
  for (unsigned spin = 1;; spin++) {
    /* Acquire: the parts, written before each flag, are read after it. */
    while (k < nb && __atomic_load_n(&flag[k], __ATOMIC_ACQUIRE) == seq) k++;
    if (k == nb) return CUDA_SUCCESS_;
    if (spin % 64) continue; /* the clock itself costs a few looks */
    int64_t now = tally__now_ns();
    if (!next_query) next_query = now + QUERY_NS;
    if (now < next_query) continue;
    next_query = now + QUERY_NS;
    CUresult r = c->cu->cuStreamQuery(c->stream);
    if (r == CUDA_ERROR_NOT_READY_) continue;
    if (r) return r;
    while (k < nb && __atomic_load_n(&flag[k], __ATOMIC_ACQUIRE) == seq) k++;
    *missing = k < nb;
    return CUDA_SUCCESS_;
  }
}

/* Reduce slices [k0, k1) into the parts at parts[0 .. k1 - k0). */
static tally_status launch_slices(job_t *j, tally__family fam, int64_t k0, int64_t k1, double scale,
                                  tally__gpu_part *parts) {
  tally__cuda_ctx *c = j->c;
  const tally__problem *p = j->p;
  int contig = fam != TALLY__FAM_AFFINE && contiguous(j);
  CUfunction fn;
  tally_status s = tally__cuda_best_fn(c, p, fam, contig, &fn);
  if (s) return s;
  TALLY__STAGE(5);
  int64_t maxlen = 0;
  for (int64_t k = k0; k < k1; k++) {
    int64_t l = slice_len(p, k);
    if (l > maxlen) maxlen = l;
  }
  int64_t G = tally__cuda_blocks_for(c, fn, maxlen, contig, tally_dtype_size(p->dtype));
  int64_t per_launch = MAX_SLICES_PER_LAUNCH;
  if (G > 1 && MAX_PARTIALS / G < per_launch) per_launch = MAX_PARTIALS / G > 0 ? MAX_PARTIALS / G : 1;
  int64_t nb_max = per_launch < k1 - k0 ? per_launch : k1 - k0;
  if ((s = tally__cuda_scratch(c, G, nb_max, nb_max))) return s;
  TALLY__STAGE(6);
  for (int64_t b0 = k0; b0 < k1; b0 += per_launch) {
    int64_t nb = k1 - b0 < per_launch ? k1 - b0 : per_launch;
    long long n = p->n, cols = p->cols, ss0 = p->slice_stride[0], ss1 = p->slice_stride[1];
    long long rs0 = p->rstride[0], rs1 = p->rstride[1], cs0 = p->cstride[0], cs1 = p->cstride[1];
    long long slice0 = b0, idx0 = 0;
    double kshift = 0.0;
    int kgiven = 0;
    long long gmax = tally__cuda_gmax(c, fn);
    CUdeviceptr x = j->x, y = j->y ? j->y : j->x, off = j->offsets;
    CUdeviceptr partials = c->partials, counters = c->counters, results = c->results_dev;
    unsigned long long seq = c->wait_sync ? 0 : ++c->launch_seq;
    void *args[] = {&x, &y, &n, &cols, &ss0, &ss1, &rs0, &rs1, &cs0, &cs1, &off, &slice0,
                    &scale, &idx0, &kshift, &kgiven, &gmax, &partials, &counters, &results, &seq};
    CUresult r = c->cu->cuLaunchKernel(fn, (unsigned)G, (unsigned)nb, 1, BLOCK, 1, 1, 0,
                                       c->stream, args, NULL);
    TALLY__STAGE(7);
    int missing = 0;
    if (!r) r = seq ? wait_flags(c, nb, seq, &missing) : c->cu->cuStreamSynchronize(c->stream);
    TALLY__STAGE(8);
    if (r || missing) {
      tally_status e = r ? tally__cuda_fail(c, r, "the reduce_best kernel")
                         : tally__fail(&c->base, TALLY_EBACKEND, "cuda: the reduce_best kernel "
                                       "ended without its result (launch %llu, %lld slices)",
                                       seq, (long long)nb);
      /* Tickets may be left counted: clear them for the next call. */
      c->cu->cuMemsetD8Async(c->counters, 0, c->counters_n, c->stream);
      return e;
    }
    memcpy(parts + (b0 - k0), c->results_host, (size_t)nb * sizeof(tally__gpu_part));
  }
  return TALLY_OK;
}

/* ------------------------------------------------------------ NORM2 of f64 */

/* One slice, for the rescue (core/gpu_host.c). */
static tally_status launch_one(void *job, tally__family fam, int64_t k, double scale,
                               tally__gpu_part *out) {
  return launch_slices(job, fam, k, k + 1, scale, out);
}

/* ------------------------------------------------------------ the driver */

static int64_t total_elements(const tally__problem *p) {
  return p->offsets ? p->offsets[p->nslices] - p->offsets[0] : p->nslices * p->n;
}

unsigned tally__cuda_mem_type(tally__cuda_ctx *c, const void *ptr, uint64_t *start, size_t *size) {
  unsigned type = 0;
  CUdeviceptr s0 = 0;
  size_t sz = 0;
  int attrs[3] = {CU_POINTER_ATTRIBUTE_MEMORY_TYPE_, CU_POINTER_ATTRIBUTE_RANGE_START_ADDR_,
                  CU_POINTER_ATTRIBUTE_RANGE_SIZE_};
  void *data[3] = {&type, &s0, &sz};
  CUdeviceptr a = (CUdeviceptr)(uintptr_t)ptr;
  if (start) *start = 0;
  if (size) *size = 0;
  if (c->cu->cuPointerGetAttributes(3, attrs, data, a)) {
    /* Not expected (it answers 0 for unknown memory); the single query errs for those. */
    type = 0;
    if (c->cu->cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE_, a)) type = 0;
    return type; /* the range unknown: no direct DMA from it */
  }
  if (type && start) *start = (uint64_t)s0;
  if (type && size) *size = sz;
  return type;
}

/* A pointer's kind must match its tally_mem: a host pointer handed in as device memory
 * would fault inside a kernel (and leave the primary context, the caller's too, broken);
 * device memory handed in as host memory would fault in a host copy. The driver knows
 * every pointer it allocated or mapped; for others it answers "not mine". */
static tally_status check_pointer(tally__cuda_ctx *c, const char *arg, const void *ptr,
                                  tally_mem mem) {
  if (!ptr) return TALLY_OK;
  unsigned type = tally__cuda_mem_type(c, ptr, NULL, NULL);
  if (mem == TALLY_MEM_DEVICE && type == 0)
    return tally__fail(&c->base, TALLY_EINVAL, "%s->data: %p is TALLY_MEM_DEVICE but is not memory "
                       "the CUDA driver knows (host memory?)", arg, ptr);
  if (mem == TALLY_MEM_HOST && type == CU_MEMORYTYPE_DEVICE_)
    return tally__fail(&c->base, TALLY_EINVAL, "%s->data: %p is TALLY_MEM_HOST but is CUDA device "
                       "memory (set mem = TALLY_MEM_DEVICE)", arg, ptr);
  return TALLY_OK;
}

/* Device pointers always (a driver lookup, well under a microsecond); host pointers only
 * where tally's own threads read them (the streaming path): elsewhere the driver's copy
 * reports a device pointer itself. */
static tally_status check_pointers(tally__cuda_ctx *c, const tally__problem *p, const void *in,
                                   const void *in2, const void *out, bool streaming) {
  tally_status s;
  if (p->in_mem == TALLY_MEM_DEVICE || streaming) {
    if ((s = check_pointer(c, "in", in, p->in_mem))) return s;
    if ((s = check_pointer(c, "in2", in2, p->in_mem))) return s;
  }
  if (p->out_mem == TALLY_MEM_DEVICE) return check_pointer(c, "out", out, p->out_mem);
  return TALLY_OK;
}

/* NORM2 of an f64 input the host reduced (tally__cuda_host_reduces): its rescue, where
 * needed, on the host too, as the cpu device does it (the same bits). */
typedef struct {
  tally_context *cpu;
  const tally__problem *p;
  const void *in;
} host_norm2_env;
static double host_norm2_f64(void *env, double ss) {
  const host_norm2_env *e = env;
  return tally__cpu_norm2_f64(e->cpu, e->p, e->in, e->p->n, ss);
}

/* The best variant (reduce_best.clh) on slices [k0, k1). */
static tally_status run_best(job_t *j, int64_t k0, int64_t k1, tally__part *parts) {
  tally__gpu_part *g = malloc((size_t)(k1 - k0) * sizeof *g);
  if (!g) return tally__fail(&j->c->base, TALLY_ENOMEM, "cuda: no host memory for parts");
  tally_status s = launch_slices(j, j->fam, k0, k1, 1.0, g);
  for (int64_t k = k0; k < k1 && !s; k++) tally__gpu_part_to_part(&g[k - k0], &parts[k - k0]);
  free(g);
  return s;
}

#define SLICES_PER_ROUND 65536 /* parts held on the host between launches and finalizing */

tally_status tally__cuda_reduce(tally_context *ctx, const tally__problem *p, const void *in,
                                const void *in2, void *out, int64_t s0, int64_t s1, void *ws) {
  (void)ws;
  tally__cuda_ctx *c = (tally__cuda_ctx *)ctx;
  if (p->nslices == 0) return TALLY_OK;
  tally__cuda_variant v = {NULL, NULL};
  tally_status s = tally__cuda_variant_find(ctx, p, &v);
  if (s) return s;
  if ((s = tally__cuda_enter(c))) return s;
  TALLY__STAGE(2);
  job_t j = {c, p, tally__family_of(p->op, p->dtype), 0, 0, 0};
  tally__part *parts = NULL;
  void *out_host = out;   /* where finalize writes: out itself, or a host copy of its span */
  char *out_copy = NULL;  /* that copy (malloc'd), for a device output */
  size_t out_bytes = 0;
  int64_t out_lo = 0, rs = (int64_t)tally_dtype_size(p->rdtype);
  CUdeviceptr mx = 0, my = 0;
  bool on_host = !v.ladder && total_elements(p) > 0 && tally__cuda_host_reduces(c, p, in, in2);
  bool mapped = !on_host && !v.ladder && total_elements(p) > 0 && map_pinned(c, p, in, in2, &mx, &my);
  bool streaming = on_host || (!mapped && !v.ladder && tally__cuda_can_stream(p));
  if ((s = check_pointers(c, p, in, in2, out, streaming))) goto done;
  TALLY__STAGE(3);
  if (streaming) {
    tally__part acc;
    host_norm2_env env = {NULL, p, in};
    const bool rescue_on_host = on_host && p->op == TALLY_NORM2 && p->dtype == TALLY_F64;
    if (rescue_on_host && (s = tally__host_cpu(&c->base, &c->cpu, &env.cpu))) goto done;
    if (!(s = tally__cuda_stream(c, p, in, in2, &acc)))
      s = tally__finalize(ctx, p, 0, p->n, &acc, out, 0, s1, host_norm2_f64, &env);
    goto done;
  }
  if (mapped) {
    j.x = mx;
    j.y = my;
  } else if (total_elements(p) > 0) { /* empty inputs are never read (their pointer may be NULL) */
    if ((s = place_input(c, p, 0, in, &j.x))) goto done;
    if (in2 && (s = place_input(c, p, 1, in2, &j.y))) goto done;
  }
  if (p->offsets) {
    size_t bytes = (size_t)(p->nslices + 1) * 8;
    if ((s = tally__cuda_grow(c, &c->offsets_dev, &c->offsets_bytes, bytes, "segment offsets"))) goto done;
    CUresult r = c->cu->cuMemcpyHtoDAsync(c->offsets_dev, p->offsets, bytes, c->stream);
    if (r) { s = tally__cuda_fail(c, r, "cuMemcpyHtoDAsync (offsets)"); goto done; }
    j.offsets = c->offsets_dev;
  }
  if (p->out_mem == TALLY_MEM_DEVICE) {
    /* Finalize into a host copy of the output's span (gaps kept), then write it back. */
    int64_t lo, hi;
    tally__out_span(p, s0, s1, &lo, &hi);
    out_lo = lo;
    out_bytes = (size_t)((hi - lo + 1) * rs);
    out_copy = malloc(out_bytes);
    if (!out_copy) {
      s = tally__fail(ctx, TALLY_ENOMEM, "out: no host memory for a copy of %zu bytes", out_bytes);
      goto done;
    }
    CUresult r = c->cu->cuMemcpyDtoHAsync(out_copy, (CUdeviceptr)(uintptr_t)out + (CUdeviceptr)(lo * rs),
                                          out_bytes, c->stream);
    if (!r) r = c->cu->cuStreamSynchronize(c->stream);
    if (r) { s = tally__cuda_fail(c, r, "cuMemcpyDtoH (out)"); goto done; }
    out_host = out_copy - lo * rs;
  }
  int64_t round = p->nslices < SLICES_PER_ROUND ? p->nslices : SLICES_PER_ROUND;
  parts = malloc((size_t)round * sizeof *parts);
  if (!parts) { s = tally__fail(ctx, TALLY_ENOMEM, "cuda: no host memory for %" PRId64 " parts", round); goto done; }
  TALLY__STAGE(4);
  for (int64_t k0 = 0; k0 < p->nslices && !s; k0 += round) {
    int64_t k1 = k0 + round < p->nslices ? k0 + round : p->nslices;
    s = v.ladder ? tally__cuda_ladder_run(c, p, v.ladder, j.x, j.y, k0, k1, parts)
                 : run_best(&j, k0, k1, parts);
    if (s) break;
    s = tally__gpu_finalize_slices(ctx, p, k0, k1, parts, out_host, s0, s1, launch_one, &j);
    TALLY__STAGE(9);
  }
  if (!s && out_copy) {
    CUresult r = c->cu->cuMemcpyHtoDAsync((CUdeviceptr)(uintptr_t)out + (CUdeviceptr)(out_lo * rs),
                                          out_copy, out_bytes, c->stream);
    if (!r) r = c->cu->cuStreamSynchronize(c->stream);
    if (r) s = tally__cuda_fail(c, r, "cuMemcpyHtoD (out)");
  }
done:
  free(out_copy);
  free(parts);
  /* Host inputs were copied asynchronously: make sure nothing still reads them. A device
   * input needs no wait: what may still run is the last block's exit, past every read. */
  if (p->in_mem != TALLY_MEM_DEVICE || s) c->cu->cuStreamSynchronize(c->stream);
  TALLY__STAGE(10);
  tally__cuda_leave(c);
  TALLY__STAGE(11);
  return s;
}


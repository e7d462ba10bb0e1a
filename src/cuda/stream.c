/* Host arrays streamed to the GPU: the input is cut into fixed chunks; each chunk is copied
 * by the host's threads into one of two pinned buffers, sent to the device by DMA, and
 * reduced there while the next chunk is being copied, so the copy over PCIe is the only
 * cost that shows. Each chunk's part lands in mapped host memory; the parts are merged in
 * index order on the host. The chunking depends only on the length, so results are the
 * same run to run.
 *
 * Used for large contiguous 1-D host inputs (the common case of a file or a buffer);
 * other host layouts are copied whole before the launch (reduce.c). */
#include "cpu/cpu.h"
#include "cuda_ctx.h"
#include "gpu_part.h"

#include <string.h>

/* 16 MiB chunks: at ~50 GB/s a chunk takes ~0.3 ms over PCIe, long enough to hide the
 * launch and the kernel (~10 µs), short enough that the first chunk's unhidden copy
 * costs little. Below STREAM_MIN_BYTES one copy and one launch are as fast. */
#define CHUNK_BYTES ((int64_t)16 << 20)
#define STREAM_MIN_BYTES ((int64_t)32 << 20)
#define NBUF 2
/* Host copies into pinned memory in pieces of this size, spread over the host's threads
 * (one thread's memcpy is slower than PCIe). */
#define COPY_PIECE ((int64_t)1 << 20)

bool tally__cuda_can_stream(const tally__problem *p) {
  int64_t es = (int64_t)tally_dtype_size(p->dtype);
  if (p->in_mem != TALLY_MEM_HOST || p->out_mem != TALLY_MEM_HOST) return false;
  if (p->offsets || p->nslices != 1 || p->rows > 1 || p->cstride[0] != 1) return false;
  if (tally__op_binary(p->op) && p->cstride[1] != 1) return false;
  if (p->op == TALLY_NORM2 && p->dtype == TALLY_F64) return false; /* may need a second pass */
  return p->n * es >= STREAM_MIN_BYTES;
}

static tally_status alloc_buffers(tally__cuda_ctx *c, int ninputs) {
  for (int i = 0; i < ninputs; i++)
    for (int b = 0; b < NBUF; b++) {
      CUresult r = 0;
      if (!c->pin[i][b]) r = c->cu->cuMemHostAlloc(&c->pin[i][b], (size_t)CHUNK_BYTES, CU_MEMHOSTALLOC_PORTABLE_);
      if (r) { c->pin[i][b] = NULL; return tally__cuda_fail(c, r, "cuMemHostAlloc (streaming buffer)"); }
      if (!c->dbuf[i][b]) r = c->cu->cuMemAlloc(&c->dbuf[i][b], (size_t)CHUNK_BYTES);
      if (r) { c->dbuf[i][b] = 0; return tally__cuda_fail(c, r, "cuMemAlloc (streaming buffer)"); }
    }
  for (int b = 0; b < NBUF; b++)
    if (!c->copied[b]) {
      CUresult r = c->cu->cuEventCreate(&c->copied[b], CU_EVENT_DISABLE_TIMING_);
      if (r) { c->copied[b] = NULL; return tally__cuda_fail(c, r, "cuEventCreate"); }
    }
  return TALLY_OK;
}

void tally__cuda_stream_free(tally__cuda_ctx *c) {
  for (int i = 0; i < 2; i++)
    for (int b = 0; b < NBUF; b++) {
      if (c->pin[i][b]) c->cu->cuMemFreeHost(c->pin[i][b]);
      if (c->dbuf[i][b]) c->cu->cuMemFree(c->dbuf[i][b]);
      c->pin[i][b] = NULL;
      c->dbuf[i][b] = 0;
    }
  for (int b = 0; b < NBUF; b++)
    if (c->copied[b]) c->cu->cuEventDestroy(c->copied[b]), c->copied[b] = NULL;
}

typedef struct {
  char *dst;
  const char *src;
  int64_t bytes;
} copy_job;

static void copy_piece(void *arg, int64_t t) {
  copy_job *j = arg;
  int64_t lo = t * COPY_PIECE, len = j->bytes - lo < COPY_PIECE ? j->bytes - lo : COPY_PIECE;
  memcpy(j->dst + lo, j->src + lo, (size_t)len);
}

static void host_copy(tally__pool *pool, void *dst, const void *src, int64_t bytes) {
  copy_job j = {dst, src, bytes};
  tally__pool_run(pool, (bytes + COPY_PIECE - 1) / COPY_PIECE, copy_piece, &j, NULL, NULL);
}

/* The first element as a double: VAR's shift, the same for every chunk. */
static double first_value(tally_dtype dt, const void *x) {
  double v = 0.0;
  switch (dt) {
  case TALLY_F16: v = tally_f16_to_f32(*(const uint16_t *)x); break;
  case TALLY_BF16: v = tally_bf16_to_f32(*(const uint16_t *)x); break;
  case TALLY_F32: v = *(const float *)x; break;
  case TALLY_F64: v = *(const double *)x; break;
  case TALLY_BOOL: v = *(const uint8_t *)x != 0; break;
  case TALLY_I8: v = *(const int8_t *)x; break;
  case TALLY_I16: v = *(const int16_t *)x; break;
  case TALLY_I32: v = *(const int32_t *)x; break;
  case TALLY_I64: v = (double)*(const int64_t *)x; break;
  case TALLY_U8: v = *(const uint8_t *)x; break;
  case TALLY_U16: v = *(const uint16_t *)x; break;
  case TALLY_U32: v = *(const uint32_t *)x; break;
  default: v = (double)*(const uint64_t *)x; break;
  }
  return v - v == 0.0 ? v : 0.0;
}

tally_status tally__cuda_stream(tally__cuda_ctx *c, const tally__problem *p, const void *x,
                                const void *y, tally__part *acc) {
  const tally__cu_api *cu = c->cu;
  const int64_t es = (int64_t)tally_dtype_size(p->dtype), per = CHUNK_BYTES / es;
  const int64_t n = p->n, nchunks = (n + per - 1) / per;
  const int ninputs = tally__op_binary(p->op) ? 2 : 1;
  tally__family fam = tally__family_of(p->op, p->dtype);
  tally_context *cpuctx;
  tally_status s;
  if ((s = tally__cuda_cpu(c, &cpuctx))) return s;
  tally__pool *pool = ((tally__cpu_ctx *)cpuctx)->pool;
  if ((s = alloc_buffers(c, ninputs))) return s;
  CUfunction fn;
  int contig = fam != TALLY__FAM_AFFINE; /* AFFINE: contiguous runs per thread, in order */
  if ((s = tally__cuda_best_fn(c, p, fam, contig, &fn))) return s;
  int64_t G = tally__cuda_blocks_for(c, fn, per, contig, (size_t)es);
  long long gmax = tally__cuda_gmax(c, fn);
  if ((s = tally__cuda_scratch(c, G, 1, nchunks))) return s; /* chunks run one after another */

  const char *in[2] = {x, y};
  long long zero = 0, one = 1, slice0 = 0;
  double scale = 1.0, kshift = fam == TALLY__FAM_VAR ? first_value(p->dtype, x) : 0.0;
  int kgiven = 1;
  CUdeviceptr null_off = 0, partials = c->partials, counters = c->counters;
  for (int64_t k = 0; k < nchunks; k++) {
    int b = (int)(k % NBUF);
    long long lo = k * per, len = n - lo < per ? n - lo : per;
    /* The pinned buffer is free once its previous chunk's DMA has finished. */
    CUresult r = k >= NBUF ? cu->cuEventSynchronize(c->copied[b]) : 0;
    for (int i = 0; i < ninputs && !r; i++) {
      host_copy(pool, c->pin[i][b], in[i] + lo * es, len * es);
      r = cu->cuMemcpyHtoDAsync(c->dbuf[i][b], c->pin[i][b], (size_t)(len * es), c->stream);
    }
    if (!r) r = cu->cuEventRecord(c->copied[b], c->stream);
    if (r) return tally__cuda_fail(c, r, "streaming a host input (copy)");
    CUdeviceptr dx = c->dbuf[0][b], dy = ninputs == 2 ? c->dbuf[1][b] : dx;
    CUdeviceptr results = c->results_dev + (CUdeviceptr)(k * (int64_t)sizeof(tally__gpu_part));
    long long cols = len;
    void *args[] = {&dx, &dy, &len, &cols, &zero, &zero, &zero, &zero, &one, &one, &null_off,
                    &slice0, &scale, &lo, &kshift, &kgiven, &gmax, &partials, &counters, &results};
    r = cu->cuLaunchKernel(fn, (unsigned)G, 1, 1, TALLY_CUDA_BLOCK, 1, 1, 0, c->stream, args, NULL);
    if (r) return tally__cuda_fail(c, r, "streaming a host input (kernel)");
    if (p->opt.progress) p->opt.progress(lo + len, n, p->opt.progress_user);
  }
  CUresult r = cu->cuStreamSynchronize(c->stream);
  if (r) return tally__cuda_fail(c, r, "streaming a host input");
  tally__part_init(acc, fam, 0);
  const tally__gpu_part *parts = c->results_host;
  for (int64_t k = 0; k < nchunks; k++) {
    tally__part part;
    tally__gpu_part_to_part(&parts[k], &part);
    tally__part_merge(acc, &part, fam);
  }
  return TALLY_OK;
}

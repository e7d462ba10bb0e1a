/* Host arrays streamed to the GPU: the input is cut into fixed chunks; each chunk is copied
 * by the host's threads into one of two pinned buffers, sent to the device by DMA, and
 * reduced there while the next chunk is being copied, so the copy over PCIe is the only
 * cost that shows. An input already in pinned memory (tally_mem_alloc_host, cudaHostAlloc,
 * cudaHostRegister) skips the host copy: each chunk goes by DMA straight from where it is.
 * Each chunk's part lands in mapped host memory; the parts are merged in index order on
 * the host. The chunking depends only on the length, so results are the same run to run.
 *
 * Used for contiguous 1-D host inputs of 1 MiB and more (the common case of a file or a
 * buffer); other host layouts are copied whole before the launch (reduce.c).
 *
 * Measured on the lent H100 machine (2026-11-23, 16 cores): pinned host-to-device DMA
 * 55 GB/s; the driver's own copy from pageable memory 7.7 GB/s; memcpy from pageable into
 * pinned memory 45 GB/s on 16 threads (6 GB/s on one); page-locking the caller's memory
 * in place (cuMemHostRegister) 2-18 GB/s. So a pageable input streams at the host's
 * memcpy speed, and a pinned one at the DMA's; which is why a pageable input of the ops
 * the CPU reduces at memory speed is reduced on the host instead (host_share_for), and,
 * since the CPU reads it at 2-4 x the DMA's rate, a pinned one too. */
#include "cpu/cpu.h"
#include "core/gpu_host.h"
#include "cuda_ctx.h"
#include "core/gpu_part.h"

#include <stdlib.h>
#include <string.h>
#if defined(__x86_64__) || defined(__i386__)
#include <emmintrin.h> /* SSE2: in every x86-64 */
#define HAVE_STREAM_STORES 1
#else
#define HAVE_STREAM_STORES 0
#endif

/* Chunks of an eighth of the input, from 1 MiB to 16 MiB: enough chunks that the first
 * one's unhidden copy is a small part of the whole, few enough that each kernel launch
 * (~10 µs) hides behind a copy (16 MiB takes ~0.3 ms over PCIe). */
#define CHUNK_MIN ((int64_t)1 << 20)
#define CHUNK_MAX ((int64_t)16 << 20)
#define STREAM_MIN_BYTES CHUNK_MIN
#define NBUF 2
/* Host copies into pinned memory in this many pieces per chunk, spread over the host's
 * threads (one thread's memcpy is far slower than PCIe). */
#define COPY_PIECES 16

/* The chunk size for an input of `bytes` (a power of two): depends only on the length. */
static int64_t chunk_bytes(int64_t bytes) {
  int64_t c = CHUNK_MIN;
  while (c < CHUNK_MAX && c * 8 < bytes) c *= 2;
  return c;
}

/* A contiguous 1-D host input and a host output, which tally__cuda_stream takes. */
static bool stream_shape(const tally__problem *p) {
  if (p->in_mem != TALLY_MEM_HOST || p->out_mem != TALLY_MEM_HOST) return false;
  if (p->offsets || p->nslices != 1 || p->rows > 1 || p->cstride[0] != 1) return false;
  if (tally__op_binary(p->op) && p->cstride[1] != 1) return false;
  return true;
}

/* NORM2 of f64 may need a second pass over the input (its rescue, scaled): the host does
 * it where it reduces the whole input (reduce.c), but the GPU's chunks are gone by then. */
static bool norm2_f64(const tally__problem *p) { return p->op == TALLY_NORM2 && p->dtype == TALLY_F64; }

bool tally__cuda_can_stream(const tally__problem *p) {
  return stream_shape(p) && !norm2_f64(p) && p->n * (int64_t)tally_dtype_size(p->dtype) >= STREAM_MIN_BYTES;
}

static tally_status alloc_buffers(tally__cuda_ctx *c, int ninputs) {
  for (int i = 0; i < ninputs; i++)
    for (int b = 0; b < NBUF; b++) {
      CUresult r = 0;
      if (!c->pin[i][b]) r = c->cu->cuMemHostAlloc(&c->pin[i][b], (size_t)CHUNK_MAX, CU_MEMHOSTALLOC_PORTABLE_);
      if (r) { c->pin[i][b] = NULL; return tally__cuda_fail(c, r, "cuMemHostAlloc (streaming buffer)"); }
      if (!c->dbuf[i][b]) r = c->cu->cuMemAlloc(&c->dbuf[i][b], (size_t)CHUNK_MAX);
      if (r) { c->dbuf[i][b] = 0; return tally__cuda_fail(c, r, "cuMemAlloc (streaming buffer)"); }
    }
  for (int b = 0; b < NBUF; b++)
    for (int e = 0; e < 2; e++) {
      CUevent *ev = e ? &c->reduced[b] : &c->copied[b];
      if (*ev) continue;
      CUresult r = c->cu->cuEventCreate(ev, CU_EVENT_DISABLE_TIMING_);
      if (r) { *ev = NULL; return tally__cuda_fail(c, r, "cuEventCreate"); }
    }
  if (!c->copy_stream) {
    /* Blocking, like c->stream: ordered after the caller's legacy default-stream work. */
    CUresult r = c->cu->cuStreamCreate(&c->copy_stream, 0);
    if (r) { c->copy_stream = NULL; return tally__cuda_fail(c, r, "cuStreamCreate (streaming copies)"); }
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
  for (int b = 0; b < NBUF; b++) {
    if (c->copied[b]) c->cu->cuEventDestroy(c->copied[b]), c->copied[b] = NULL;
    if (c->reduced[b]) c->cu->cuEventDestroy(c->reduced[b]), c->reduced[b] = NULL;
  }
  if (c->copy_stream) c->cu->cuStreamDestroy(c->copy_stream), c->copy_stream = NULL;
}

typedef struct {
  char *dst;
  const char *src;
  int64_t bytes, piece;
  bool plain; /* memcpy, not streaming stores */
} copy_job;

/* Copy into a pinned buffer with streaming (non-temporal) stores where the CPU has them:
 * the buffer is read next by the DMA engine, not by this CPU, so its lines need not be
 * read first (a plain store reads each line before writing it, unless memcpy's own
 * threshold for streaming stores is reached, and 1 MiB pieces stay below glibc's) nor
 * kept in the cache. dst is 16-byte aligned (pinned buffers are page-aligned and the
 * pieces whole pages); src may be anywhere. $TALLY_CUDA_COPY=memcpy: plain memcpy, for
 * measuring. */
static void copy_streaming(char *dst, const char *src, int64_t len) {
#if HAVE_STREAM_STORES
  int64_t i = 0;
  for (; i + 64 <= len; i += 64) {
    __m128i a = _mm_loadu_si128((const __m128i *)(src + i));
    __m128i b = _mm_loadu_si128((const __m128i *)(src + i + 16));
    __m128i c = _mm_loadu_si128((const __m128i *)(src + i + 32));
    __m128i d = _mm_loadu_si128((const __m128i *)(src + i + 48));
    _mm_stream_si128((__m128i *)(dst + i), a);
    _mm_stream_si128((__m128i *)(dst + i + 16), b);
    _mm_stream_si128((__m128i *)(dst + i + 32), c);
    _mm_stream_si128((__m128i *)(dst + i + 48), d);
  }
  _mm_sfence(); /* the streamed lines are written before the DMA that follows may start */
  memcpy(dst + i, src + i, (size_t)(len - i));
#else
  memcpy(dst, src, (size_t)len);
#endif
}

static void copy_piece(void *arg, int64_t t) {
  copy_job *j = arg;
  int64_t lo = t * j->piece, len = j->bytes - lo < j->piece ? j->bytes - lo : j->piece;
  if (j->plain) memcpy(j->dst + lo, j->src + lo, (size_t)len);
  else copy_streaming(j->dst + lo, j->src + lo, len);
}

static void host_copy(tally__pool *pool, void *dst, const void *src, int64_t bytes) {
  int64_t piece = (bytes + COPY_PIECES - 1) / COPY_PIECES;
  piece = (piece + 4095) & ~(int64_t)4095; /* whole pages */
  const char *how = getenv("TALLY_CUDA_COPY");
  copy_job j = {dst, src, bytes, piece, how && strcmp(how, "memcpy") == 0};
  tally__pool_run(pool, (bytes + piece - 1) / piece, copy_piece, &j, NULL, NULL);
}

/* Whether [p, p + bytes) lies in one pinned host allocation the driver knows (then the
 * DMA engine can read it where it is). */
bool tally__cuda_pinned(tally__cuda_ctx *c, const void *p, int64_t bytes) {
  uint64_t start = 0, a = (uint64_t)(uintptr_t)p;
  size_t size = 0;
  if (tally__cuda_mem_type(c, p, &start, &size) != CU_MEMORYTYPE_HOST_) return false;
  return a >= start && a - start + (uint64_t)bytes <= size;
}

/* A pageable input has to be read by the host anyway, to copy it into pinned memory, and
 * that copy (a read and a write on the host, then the DMA's read) is the bound: 0.70-0.79
 * of the pinned DMA rate on an H200 host of 16 cores (2026-11-26). Reducing it on the host
 * reads it once and writes nothing: there the whole input reduced by the CPU backend ran at
 * 1.23-1.50 x the pinned DMA rate from 2^26 f32 up, and every split tried (a chunk in 3,
 * in 2, 2 in 3 to the host, the rest streamed to the GPU meanwhile) fell between the two,
 * the host's threads being the bound of both paths. So by default a host input of an
 * (op, dtype) whose CPU kernel reads at memory speed on this host's ISA
 * (tally__cpu_reads_at_memory_speed: a table of measurements) is reduced on the host, in
 * the cpu device's chunks: the cpu device's bits. The rest is streamed.
 * Pinned inputs too: pinned memory is the host's own, cached, and the CPU reads it at
 * 2-4 x the DMA's 55 GB/s; and under 8 MiB, where the GPU's way (the kernel reading it
 * over the bus) is held to 0.5-0.85 x the copy by the bus's latency and the launch, the
 * host answers in microseconds. $TALLY_CUDA_PINNED (map, dma or gpu: see reduce.c) sends
 * pinned inputs to the GPU, for measuring.
 * opt->host_input = TALLY_HOST_INPUT_DEVICE sends every host input to the GPU (the
 * host's cores stay free), before any of the switches below.
 * $TALLY_CUDA_HOST_SHARE=NUM/DEN, for measuring, overrides that for every pageable input:
 * NUM chunks in DEN go to the host and the rest are streamed (chunk k goes to the host when
 * floor((k + 1)·NUM/DEN) > floor(k·NUM/DEN); 0: none); which chunks go where depends only
 * on the length, so the bits repeat. */
typedef struct {
  int num, den;
} host_share;

static host_share host_share_for(const tally__problem *p, tally_context *cpuctx, tally__family fam,
                                 bool pageable) {
  host_share h = {0, 1};
  if (p->opt.host_input == TALLY_HOST_INPUT_DEVICE) return h; /* the caller's choice first */
  const char *env = getenv(pageable ? "TALLY_CUDA_HOST_SHARE" : "TALLY_CUDA_PINNED");
  if (env && *env) {
    if (!pageable) return h; /* the GPU's ways, forced */
    h.num = atoi(env);
    const char *slash = strchr(env, '/');
    h.den = slash ? atoi(slash + 1) : 1;
    if (h.den < 1 || h.num < 0 || h.num > h.den) h.num = 0, h.den = 1;
    return h;
  }
  if (tally__cpu_reads_at_memory_speed(cpuctx, fam, p->dtype, p->opt.nan == TALLY_NAN_IGNORE)) h.num = 1;
  return h;
}

static bool pageable_input(tally__cuda_ctx *c, const tally__problem *p, const void *x, const void *y) {
  const int64_t bytes = p->n * (int64_t)tally_dtype_size(p->dtype);
  return !tally__cuda_pinned(c, x, bytes) || (tally__op_binary(p->op) && !tally__cuda_pinned(c, y, bytes));
}

bool tally__cuda_host_reduces(tally__cuda_ctx *c, const tally__problem *p, const void *x, const void *y) {
  /* The caller's choice before anything else: no host threads are started for it. */
  if (!stream_shape(p) || p->n <= 0 || p->opt.host_input == TALLY_HOST_INPUT_DEVICE) return false;
  tally_context *cpuctx;
  if (tally__host_cpu(&c->base, &c->cpu, &cpuctx)) return false;
  const host_share h = host_share_for(p, cpuctx, tally__family_of(p->op, p->dtype), pageable_input(c, p, x, y));
  return h.num && h.num == h.den;
}

static bool on_host(host_share h, int64_t k) {
  return h.num && (k + 1) * h.num / h.den > k * h.num / h.den;
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
  const int64_t es = (int64_t)tally_dtype_size(p->dtype), per = chunk_bytes(p->n * es) / es;
  const int64_t n = p->n, nchunks = (n + per - 1) / per;
  const int ninputs = tally__op_binary(p->op) ? 2 : 1;
  const char *in[2] = {x, y};
  bool direct[2] = {false, false}; /* pinned already: DMA from where it is */
  for (int i = 0; i < ninputs; i++) direct[i] = tally__cuda_pinned(c, in[i], n * es);
  tally__family fam = tally__family_of(p->op, p->dtype);
  tally_status s;
  const bool pageable = !direct[0] || (ninputs == 2 && !direct[1]); /* = pageable_input() */
  /* The host's threads copy a pageable input into pinned buffers and reduce the host's
   * share; a pinned input sent to the device (host_input DEVICE) needs neither, and its
   * caller asked for the host's cores to stay free: no threads are started for it. */
  tally_context *cpuctx = NULL;
  tally__pool *pool = NULL;
  if (pageable || p->opt.host_input != TALLY_HOST_INPUT_DEVICE) {
    if ((s = tally__host_cpu(&c->base, &c->cpu, &cpuctx))) return s;
    pool = ((tally__cpu_ctx *)cpuctx)->pool;
  }
  const host_share hs = host_share_for(p, cpuctx, fam, pageable);
  double kshift = fam == TALLY__FAM_VAR ? first_value(p->dtype, x) : 0.0; /* a kernel argument */
  if (hs.num && hs.num == hs.den) { /* all on the host: one run, the cpu device's chunks */
    if ((s = tally__cpu_reduce_run(cpuctx, p, x, y, 0, n, kshift, acc)))
      return tally__fail(&c->base, s, "reducing a host input on the host: %s", tally_errmsg(cpuctx));
    if (p->opt.progress) p->opt.progress(n, n, p->opt.progress_user);
    return TALLY_OK;
  }
  if (norm2_f64(p)) /* tally__cuda_can_stream and tally__cuda_host_reduces keep it out */
    return tally__fail(&c->base, TALLY_EINTERNAL, "streaming NORM2 of f64 to the GPU (its rescue pass would have no input)");
  if ((s = alloc_buffers(c, ninputs))) return s;
  CUfunction fn;
  int contig = fam != TALLY__FAM_AFFINE; /* AFFINE: contiguous runs per thread, in order */
  if ((s = tally__cuda_best_fn(c, p, fam, contig, &fn))) return s;
  int64_t G = tally__cuda_blocks_for(c, fn, per, contig, (size_t)es);
  long long gmax = tally__cuda_gmax(c, fn);
  if ((s = tally__cuda_scratch(c, G, 1, nchunks))) return s; /* chunks run one after another */

  long long zero = 0, one = 1, slice0 = 0;
  double scale = 1.0;
  int kgiven = 1;
  CUdeviceptr null_off = 0, partials = c->partials, counters = c->counters;
  unsigned long long seq = 0; /* no flags: the chunks' parts are read after the stream ends */
  tally__part *host_parts = NULL;
  if (hs.num && !(host_parts = malloc(sizeof(tally__part) * (size_t)nchunks)))
    return tally__fail(&c->base, TALLY_ENOMEM, "streaming a host input: out of memory for %lld chunk parts",
                       (long long)nchunks);
  for (int64_t k = 0, g = 0; k < nchunks; k++) {
    long long lo = k * per, len = n - lo < per ? n - lo : per;
    if (on_host(hs, k)) { /* the host's chunk, while the GPU's are in flight */
      s = tally__cpu_reduce_run(cpuctx, p, x, y, lo, len, kshift, &host_parts[k]);
      if (s) {
        cu->cuStreamSynchronize(c->copy_stream); /* nothing may still read our buffers */
        cu->cuStreamSynchronize(c->stream);
        free(host_parts);
        return tally__fail(&c->base, s, "streaming a host input: %s", tally_errmsg(cpuctx));
      }
      if (p->opt.progress) p->opt.progress(lo + len, n, p->opt.progress_user);
      continue;
    }
    int b = (int)(g++ % NBUF);
    /* The DMAs go on their own stream, back to back; each kernel waits for its chunk's DMA,
     * and a DMA into a device buffer for the kernel that last read it. (On one stream
     * each DMA waited for the kernel before it: 0.88 x the pinned copy at 2^24, H200.)
     * The pinned buffer is free for the host's next copy once its DMA has finished. */
    CUresult r = g > NBUF && pageable ? cu->cuEventSynchronize(c->copied[b]) : 0;
    if (!r && g > NBUF) r = cu->cuStreamWaitEvent(c->copy_stream, c->reduced[b], 0);
    for (int i = 0; i < ninputs && !r; i++) {
      const char *src = in[i] + lo * es;
      if (!direct[i]) {
        host_copy(pool, c->pin[i][b], src, len * es);
        src = c->pin[i][b];
      }
      r = cu->cuMemcpyHtoDAsync(c->dbuf[i][b], src, (size_t)(len * es), c->copy_stream);
    }
    if (!r) r = cu->cuEventRecord(c->copied[b], c->copy_stream);
    if (!r) r = cu->cuStreamWaitEvent(c->stream, c->copied[b], 0);
    if (r) {
      cu->cuStreamSynchronize(c->copy_stream);
      free(host_parts);
      return tally__cuda_fail(c, r, "streaming a host input (copy)");
    }
    CUdeviceptr dx = c->dbuf[0][b], dy = ninputs == 2 ? c->dbuf[1][b] : dx;
    CUdeviceptr results = c->results_dev + (CUdeviceptr)(k * (int64_t)sizeof(tally__gpu_part));
    long long cols = len;
    void *args[] = {&dx, &dy, &len, &cols, &zero, &zero, &zero, &zero, &one, &one, &null_off,
                    &slice0, &scale, &lo, &kshift, &kgiven, &gmax, &partials, &counters, &results, &seq};
    r = cu->cuLaunchKernel(fn, (unsigned)G, 1, 1, TALLY_CUDA_BLOCK, 1, 1, 0, c->stream, args, NULL);
    if (!r) r = cu->cuEventRecord(c->reduced[b], c->stream);
    if (r) {
      cu->cuStreamSynchronize(c->copy_stream);
      free(host_parts);
      return tally__cuda_fail(c, r, "streaming a host input (kernel)");
    }
    if (p->opt.progress) p->opt.progress(lo + len, n, p->opt.progress_user);
  }
  CUresult r = cu->cuStreamSynchronize(c->stream);
  if (r) { free(host_parts); return tally__cuda_fail(c, r, "streaming a host input"); }
  tally__part_init(acc, fam, 0);
  const tally__gpu_part *parts = c->results_host;
  for (int64_t k = 0; k < nchunks; k++) {
    tally__part part;
    if (on_host(hs, k)) part = host_parts[k];
    else tally__gpu_part_to_part(&parts[k], &part);
    tally__part_merge(acc, &part, fam);
  }
  free(host_parts);
  return TALLY_OK;
}

/* The CUDA backend's private declarations. */
#ifndef TALLY_CUDA_CTX_H
#define TALLY_CUDA_CTX_H

#include "core/internal.h"
#include "core/gpu_host.h"
#include "core/gpu_scan.h"
#include "core/part.h"
#include "cu_api.h"

/* A compiled kernel, kept for the context's life (in-memory cache). */
#define TALLY_CUDA_MAX_ENTRIES 32
typedef struct tally__cuda_kernel {
  struct tally__cuda_kernel *next;
  char *key; /* source set + options */
  CUmodule module;
  int nfn;
  const char *entry[TALLY_CUDA_MAX_ENTRIES]; /* static strings */
  CUfunction fn[TALLY_CUDA_MAX_ENTRIES];
} tally__cuda_kernel;

/* What one SM holds at once (the scan's launch bounds, the reductions' grids): threads,
 * bytes of shared memory its blocks can have together, bytes the system takes of that for
 * each block, and the unit a block's shared memory is given in (128 bytes from sm_80, 256
 * before). */
typedef struct {
  int threads, smem, smem_reserved, smem_unit;
} tally__cuda_sm_limits;

typedef struct {
  tally_context base; /* must be first */
  const tally__cu_api *cu;
  const tally__nvrtc_api *nv;
  int ordinal;
  CUdevice dev;
  CUcontext pctx; /* the device's primary context: shared with the caller's CUDA code */
  CUstream stream;
  char name[128];
  char arch[16];
  int sms, cc_major, cc_minor, driver, nvrtc_major, nvrtc_minor;
  size_t mem_bytes;
  int l2_bytes;
  tally__cuda_sm_limits sm;
  tally__cuda_kernel *kernels;
  /* Scratch, grown on demand and kept. */
  CUdeviceptr partials; size_t partials_bytes;
  CUdeviceptr counters; size_t counters_n; /* zero between launches */
  void *results_host; CUdeviceptr results_dev; size_t results_bytes; /* mapped, pinned */
  unsigned long long launch_seq; /* reduce_best's launches: each waits on its own flags */
  int wait_sync; /* $TALLY_CUDA_WAIT=sync: wait on the stream, not the flags (measuring) */
  CUdeviceptr staging[2]; size_t staging_bytes[2];                   /* host inputs */
  CUdeviceptr offsets_dev; size_t offsets_bytes;
  tally_context *cpu; /* host threads (user reductions, streaming copies), opened when needed */
  /* Streaming host inputs (stream.c): pinned host buffers and device buffers per input. */
  void *pin[2][2];
  CUdeviceptr dbuf[2][2];
  CUevent copied[2], reduced[2]; /* DMA into dbuf[.][b] done; the kernel reading it done */
  CUstream copy_stream;           /* the DMAs, so that they run back to back */
  /* Ladder variants (ladder.c): two part buffers, a ticket and a result part. */
  CUdeviceptr ladder_buf[2]; size_t ladder_bytes;
  CUdeviceptr ladder_small;
  CUfunction gmax_fn; int64_t gmax; /* tally__cuda_gmax's last answer */
  /* reduce_best's kernels by the values of their -D definitions (tally__cuda_best_fn): a
   * call's -D text and the module list's string keys cost 0.9 us of an 11 us call. */
  struct { tally__gpu_key key; CUfunction fn; } best_memo[8];
  int best_memo_n, best_memo_next;
  /* Scans (scan.c): the ladder's parts, segment heads, a result for host outputs; and
   * scan_1pass's block counter and tile slots, cleared only when allocated or when the
   * epoch comes round (scan_epoch 0: clear first), the counter at scan_base. */
  CUdeviceptr scan_tiles; size_t scan_tiles_bytes;
  CUdeviceptr scan_slots; size_t scan_slots_bytes;
  unsigned scan_epoch, scan_base;
  CUdeviceptr scan_heads; size_t scan_heads_bytes;
  CUdeviceptr scan_out; size_t scan_out_bytes;
  CUdeviceptr hist_buf; size_t hist_bytes; /* histograms (hist.c) */
} tally__cuda_ctx;

/* Make the context's device current on this thread for the scope of a call. */
tally_status tally__cuda_enter(tally__cuda_ctx *c);
void tally__cuda_leave(tally__cuda_ctx *c);

/* Record a failed driver call: TALLY_ENOMEM for out-of-memory, else TALLY_EBACKEND; the
 * message names the call and the driver's error. */
tally_status tally__cuda_fail(tally__cuda_ctx *c, CUresult r, const char *what);

/* The kernel `entry` of the source files `srcs` (NULL-terminated names, concatenated after
 * the dialect prelude) compiled with `defs` (-D options) for this device: from the
 * context's cache, the disk cache, or NVRTC. TALLY_ECOMPILE carries NVRTC's log. */
tally_status tally__cuda_kernel_get(tally__cuda_ctx *c, const char *const *srcs, const char *defs,
                                    const char *entry, CUfunction *fn);
void tally__cuda_kernels_free(tally__cuda_ctx *c);

/* What the driver knows of a pointer: CU_MEMORYTYPE_HOST_ (pinned host memory),
 * CU_MEMORYTYPE_DEVICE_, or 0 (memory it does not know: pageable host memory, say), and
 * the allocation it lies in (start, size; 0 when unknown). No error is raised for unknown
 * pointers (cuPointerGetAttributes), so sanitizers stay quiet. */
unsigned tally__cuda_mem_type(tally__cuda_ctx *c, const void *ptr, uint64_t *start, size_t *size);
/* Whether [p, p + bytes) lies in one pinned host allocation the driver knows. */
bool tally__cuda_pinned(tally__cuda_ctx *c, const void *p, int64_t bytes);

/* Compile without a device (tests, CI): NVRTC only, for architecture `arch` (e.g.
 * "sm_90"). On failure, log (may be NULL) receives NVRTC's log. With driver > 0, the
 * machine code is also written to the disk cache under the name a context on that driver
 * will look for (warming the cache on a GPU machine, many kernels at a time). */
tally_status tally__cuda_compile_only(const char *const *srcs, const char *defs,
                                      const char *arch, int driver, char *log, size_t loglen);

/* Every kernel specialisation the backend can ask for (possibly repeated) on a device of
 * architecture arch ("sm_90"): fn is called with each source set and -D list; returns the
 * number of calls. For the NVRTC test. */
int tally__cuda_each_spec(const char *arch, void (*fn)(const char *const *srcs, const char *defs, void *user),
                          void *user);
/* What an SM of architecture arch ("sm_86") holds at once (the CUDA C++ Programming
 * Guide's table of compute capabilities), for planning without a device. */
void tally__cuda_arch_sm_limits(const char *arch, tally__cuda_sm_limits *lim);

/* The -D definitions of a kernel for p with family fam; contig: 16-byte loads. */
void tally__cuda_defs(const tally__problem *p, tally__family fam, int contig, char *defs, size_t len);
/* The best variant's kernel for p's dtype and flags with family fam; contig: 16-byte loads. */
tally_status tally__cuda_best_fn(tally__cuda_ctx *c, const tally__problem *p, tally__family fam,
                                 int contig, CUfunction *fn);
/* Threads per block of the best kernel (its -DBLOCK). */
#define TALLY_CUDA_BLOCK 256
/* 16-byte loads in flight per thread in the best kernel (its -DUNROLL): 8 (32 KiB tiles)
 * rather than OpenCL's 4, so a mid-size input (2^21..2^23 f32) is read in one round of
 * loads by at most one wave of blocks (measured, docs/PERFORMANCE.md 2026-11-26). */
#define TALLY_CUDA_UNROLL 8
int tally__cuda_unroll(void); /* the above, or $TALLY_CUDA_UNROLL when measuring */
/* The most blocks of fn that are resident on the device at once. */
int64_t tally__cuda_gmax(tally__cuda_ctx *c, CUfunction fn);
/* Blocks per slice of length len for fn (one wave at most). */
int64_t tally__cuda_blocks_for(tally__cuda_ctx *c, CUfunction fn, int64_t len, int contig,
                               size_t esize);
/* Scratch for launches of up to nslices slices with G blocks each, and nresults slice
 * parts in mapped host memory. */
tally_status tally__cuda_scratch(tally__cuda_ctx *c, int64_t G, int64_t nslices, int64_t nresults);

/* Host arrays through pinned memory in chunks, copies overlapping kernels (stream.c). */
bool tally__cuda_can_stream(const tally__problem *p);
/* Whether tally__cuda_stream reduces a host input all on the host, at any size: a
 * contiguous 1-D input, pageable or pinned, of an (op, dtype) the host's CPU reduces at
 * memory speed (tally__cpu_reads_at_memory_speed), or pageable with
 * $TALLY_CUDA_HOST_SHARE=1/1 (stream.c, host_share_for). The GPU's way would copy a
 * pageable input through pinned buffers (0.69-0.82 x the pinned copy at 2^26) or to the
 * device first when small (0.22-0.67 x at 2^12..2^18), and read a small pinned one over
 * the bus (0.51-0.85 x under 4 MiB; H100, 2026-11-26). */
bool tally__cuda_host_reduces(tally__cuda_ctx *c, const tally__problem *p, const void *x, const void *y);
tally_status tally__cuda_stream(tally__cuda_ctx *c, const tally__problem *p, const void *x,
                                const void *y, tally__part *acc);
void tally__cuda_stream_free(tally__cuda_ctx *c);

/* Device scratch *buf of at least need bytes (grown, never shrunk; contents lost). */
tally_status tally__cuda_grow(tally__cuda_ctx *c, CUdeviceptr *buf, size_t *have, size_t need,
                              const char *what);

/* tally_scan of built-in ops (scan.c). Plan p on the tile shape this backend uses, its
 * launch bound cut to what an SM with limits lim holds (NULL: no limit). */
void tally__cuda_scan_plan(const tally__scan_problem *p, const tally__cuda_sm_limits *lim,
                           tally__gpu_scan_plan *pl);
/* Bytes of shared memory a scan_1pass block of p at block x items takes (scan.clh's
 * tile_shared), from above; kernels.nvrtc_* check it against ptxas. */
int tally__cuda_scan_shared_bytes(const tally__scan_problem *p, int block, int items);
/* The scan ladder's work-groups (src/gpu/scan_ladder.clh; a power of two). */
#define TALLY_LADDER_SCAN_BLOCK 256
tally_status tally__cuda_scan(tally_context *ctx, const tally__scan_problem *p, const void *in,
                              const void *in2, void *out);

/* tally_histogram (hist.c). */
tally_status tally__cuda_histogram(tally_context *ctx, const tally__hist_problem *p, const void *in,
                                   const void *weights, void *counts, void *weight_sums,
                                   tally_hist_stats *st);

/* Reduce (reduce.c). */
tally_status tally__cuda_reduce(tally_context *ctx, const tally__problem *p, const void *in,
                                const void *in2, void *out, int64_t s0, int64_t s1, void *ws);

#endif

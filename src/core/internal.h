/* Internal declarations shared by the core and the backends. Not installed. */
#ifndef TALLY_INTERNAL_H
#define TALLY_INTERNAL_H

#include "tally.h"

#include <stdarg.h>
#include <stdbool.h>

#define TALLY_ERRMSG_MAX 1024

#if defined(__GNUC__)
#define TALLY_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define TALLY_PRINTF(f, a)
#endif

/* ---------------------------------------------------------------- errors */

/* Record a failure: on ctx when given, else in this thread's context-less slot.
 * Returns s so callers can write `return tally__fail(ctx, TALLY_EINVAL, "...")`. */
tally_status tally__fail(const tally_context *ctx, tally_status s, const char *fmt, ...)
    TALLY_PRINTF(3, 4);
void tally__clear_error(const tally_context *ctx);

/* ---------------------------------------------------------------- tables */

typedef enum {
  TALLY__KIND_BOOL,
  TALLY__KIND_SINT,
  TALLY__KIND_UINT,
  TALLY__KIND_FLOAT
} tally__kind;

tally__kind tally__dtype_kind(tally_dtype t);
bool tally__dtype_valid(tally_dtype t);
bool tally__op_valid(tally_op op);
/* Ops whose result on empty input is an error rather than an identity. */
bool tally__op_needs_nonempty(tally_op op);
/* Ops that read a second input (DOT, AFFINE). */
bool tally__op_binary(tally_op op);

/* ---------------------------------------------------------------- validated problems */

/* A validated reduction: the input as slices, each slice a 1-D strided run or (for
 * axis -1 over a non-contiguous 2-D array) a row-major walk of a 2-D layout. */
typedef struct {
  tally_op op;
  tally_dtype dtype;   /* input dtype */
  tally_dtype rdtype;  /* result dtype */
  int width;           /* results per slice */
  tally_options opt;
  /* Logical layout of one slice: rows × cols with strides (elements). A 1-D slice has
   * rows = 1. Slices start at base + k * slice_stride (elements). */
  int64_t nslices;
  int64_t rows, cols;      /* of one slice (for segments: rows = 1, cols varies) */
  int64_t n;               /* elements per slice: rows * cols */
  /* Strides in elements of in [0] and in2 [1]: between slices, rows and columns. */
  int64_t slice_stride[2], rstride[2], cstride[2];
  const int64_t *offsets;  /* segmented: nslices + 1 offsets into a 1-D input, else NULL */
  tally_mem in_mem, out_mem; /* where the inputs (both alike) and the output live */
} tally__problem;

typedef struct tally__backend tally__backend;

/* Every backend's context starts with this header. */
struct tally_context {
  const tally__backend *backend;
  char errmsg[TALLY_ERRMSG_MAX];
  char device[64];
  /* A CPU context opened on first use by the core, for work that a backend leaves to the
   * host (scans and histograms of host arrays where the vtable entry is NULL); closed by
   * tally_close. */
  tally_context *host_cpu;
};

/* ---------------------------------------------------------------- scans, histograms */

/* A validated scan (core/validate_scan.c): 1-D, n elements. */
typedef struct {
  tally_op op;               /* SUM, PROD, MIN, MAX, AFFINE (ignored for user scans) */
  const tally_user_op *uop;  /* user scans: the operator; NULL for built-in ops */
  tally_dtype dtype, rdtype; /* input and result dtype */
  int width;                 /* values per output element: 2 for AFFINE, else 1 */
  int64_t n;
  int64_t sx, sy;            /* element strides of in and in2 (user scans: in elements) */
  int64_t so0, so1;          /* out: value w of element i at i*so0 + w*so1 */
  int exclusive;
  const void *init;          /* NULL, or width values of rdtype (user: uop->size bytes) */
  tally_accuracy accuracy;
  tally_nan nan;
  const uint8_t *flags;      /* segment heads, or NULL */
  const int64_t *offsets;    /* nsegments + 1 offsets, or NULL */
  int64_t nsegments;
  int variant;               /* TALLY__SCAN_* (0: best) */
  tally_mem in_mem, out_mem;
} tally__scan_problem;

/* The scan ladder (tally_scan_options.variant): GPU backends only. */
#define TALLY__SCAN_BEST 0
#define TALLY__SCAN_HILLIS_STEELE 1
#define TALLY__SCAN_BLELLOCH 2
#define TALLY__SCAN_FOUR_KERNEL 3

/* A validated histogram (core/validate_hist.c). Auto ranges are resolved by the core
 * (a MINMAX reduction) before the backend sees the problem. */
typedef struct {
  tally_dtype dtype, wdtype; /* input and weights dtype */
  int has_weights, want_sums;
  int64_t n, sx, sw;         /* elements, strides of in and weights */
  int64_t nbins;
  const double *edges;       /* explicit edges (nbins + 1), or NULL: even bins over [lo, hi] */
  double lo, hi;
  tally_hist_outside outside;
  tally_accuracy accuracy;
  int64_t cs, ws;            /* element strides of counts and weight sums */
  tally_mem in_mem, out_mem;
  int variant;               /* TALLY__HIST_* (0: best) */
} tally__hist_problem;

/* The histogram ladder (tally_hist_spec.variant): GPU backends only. */
#define TALLY__HIST_BEST 0
#define TALLY__HIST_SIMPLE 1

/* One vtable per backend, at the level of whole algorithms. */
struct tally__backend {
  const char *name;
  /* Open from the part of the device string after "name" (e.g. ":threads=2"). */
  tally_status (*open)(const char *args, tally_context **ctx);
  void (*close)(tally_context *ctx);
  tally_status (*describe)(const tally_context *ctx, tally_context_info *info);
  const char *(*variant_name)(const tally_context *ctx, int i);
  /* Check that the backend can run this problem (variant known, op supported). */
  tally_status (*check)(tally_context *ctx, const tally__problem *p);
  /* Scratch bytes a run of p needs (plan workspace). */
  size_t (*workspace_size)(const tally_context *ctx, const tally__problem *p);
  /* Run a validated problem; ws is NULL (backend scratch) or workspace_size bytes. */
  /* Result w of slice k goes to out + k*out_s0 + w*out_s1 (elements of p->rdtype). */
  tally_status (*reduce)(tally_context *ctx, const tally__problem *p, const void *in,
                         const void *in2, void *out, int64_t out_s0, int64_t out_s1,
                         void *ws);
  tally_status (*reduce_user)(tally_context *ctx, const tally_user_op *uop, const void *data,
                              int64_t n, int64_t stride, void *out);
  /* Enumerate devices of this backend (may report none, with why). */
  int (*devices)(tally_device_info *list, int capacity);
  /* Device memory (NULL: the backend's device memory is host memory). */
  tally_status (*mem_alloc)(tally_context *ctx, size_t bytes, void **ptr);
  tally_status (*mem_free)(tally_context *ctx, void *ptr);
  tally_status (*mem_copy)(tally_context *ctx, void *dst, tally_mem dst_mem, const void *src,
                           tally_mem src_mem, size_t bytes);
  /* Device pointers are opaque handles (cl_mem), not addresses. */
  bool device_handles;
  /* Host memory the device reads fastest (NULL: ordinary aligned host memory). */
  tally_status (*mem_alloc_host)(tally_context *ctx, size_t bytes, void **ptr);
  tally_status (*mem_free_host)(tally_context *ctx, void *ptr);
  /* Scans (built-in and user ops) and histograms. NULL: the core runs host arrays on a
   * CPU context (ctx->host_cpu) and refuses device arrays with TALLY_EUNSUPPORTED. */
  tally_status (*scan)(tally_context *ctx, const tally__scan_problem *p, const void *in,
                       const void *in2, void *out);
  tally_status (*histogram)(tally_context *ctx, const tally__hist_problem *p, const void *in,
                            const void *weights, void *counts, void *weight_sums,
                            tally_hist_stats *stats);
};

extern const tally__backend tally__cpu_backend;
extern const tally__backend tally__cuda_backend;
extern const tally__backend tally__opencl_backend;
/* "auto": the first OpenCL GPU with doubles, opened (TALLY_ENODEV: none). */
tally_status tally__opencl_open_gpu(tally_context **ctx);

/* Validate (op, in, in2, out, opt, offsets) into a problem. Data pointers may be NULL
 * when check_data is false (plans). */
tally_status tally__validate(tally_context *ctx, tally_op op, const tally_array *in,
                             const tally_array *in2, const tally_array *out,
                             const tally_options *opt, const int64_t *offsets,
                             int64_t nsegments, bool check_data, tally__problem *p);

/* The effective layout of an array: strides in elements ({0,0} expanded), and the byte
 * range [lo, hi) it touches relative to data (validate.c). */
typedef struct {
  int64_t shape[2];
  int64_t strides[2];
  int64_t lo, hi;
} tally__layout;
tally_status tally__array_layout(tally_context *ctx, const char *arg, const tally_array *a,
                                 tally__layout *L);
bool tally__overlaps(const tally_array *a, const tally__layout *La, const tally_array *b,
                     const tally__layout *Lb, bool handles);

tally_status tally__validate_scan(tally_context *ctx, tally_op op, const tally_array *in,
                                  const tally_array *in2, const tally_array *out,
                                  const tally_scan_options *opt, tally__scan_problem *p);
tally_status tally__validate_hist(tally_context *ctx, const tally_array *in,
                                  const tally_array *weights, const tally_hist_spec *spec,
                                  const tally_array *counts, const tally_array *weight_sums,
                                  tally__hist_problem *p);

/* Element strides of a validated out array: slice k, value w at k*s0 + w*s1. */
void tally__out_strides(const tally__problem *p, const tally_array *out, int64_t *s0,
                        int64_t *s1);

#endif

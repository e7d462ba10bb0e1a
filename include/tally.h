/**
 * @file tally.h
 * @brief tally: parallel reductions on CPUs (threads + SIMD), later CUDA and OpenCL.
 *
 * The one public header. C11; no C++ is needed to use it.
 *
 * Conventions: every call returns a ::tally_status (0 is success) and writes its
 * outputs through trailing pointers. The library never aborts, prints or exits;
 * after a failure, tally_errmsg() gives a message naming the argument and its value.
 *
 * Quick start:
 * @code
 *   tally_context *ctx;
 *   if (tally_open(NULL, &ctx) != TALLY_OK) { puts(tally_errmsg(NULL)); return 1; }
 *   float x[1000]; ... fill x ...
 *   float sum;
 *   tally_array in  = tally_array_1d(x, TALLY_F32, 1000);
 *   tally_array out = tally_array_1d(&sum, TALLY_F32, 1);
 *   if (tally_reduce(ctx, TALLY_SUM, &in, NULL, &out, NULL) != TALLY_OK)
 *     puts(tally_errmsg(ctx));
 *   tally_close(ctx);
 * @endcode
 */
#ifndef TALLY_H
#define TALLY_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(_WIN32)
#define TALLY_API
#elif defined(__GNUC__)
#define TALLY_API __attribute__((visibility("default")))
#else
#define TALLY_API
#endif

#define TALLY_VERSION_MAJOR 0
#define TALLY_VERSION_MINOR 1
#define TALLY_VERSION_PATCH 0

/** @brief The library's version as "MAJOR.MINOR.PATCH". */
TALLY_API const char *tally_version(void);

/* ------------------------------------------------------------------ status */

/** X-macro list of status codes: X(name, message). */
#define TALLY_STATUS_LIST(X)                                   \
  X(TALLY_OK, "success")                                       \
  X(TALLY_EINVAL, "invalid argument")                          \
  X(TALLY_ENOMEM, "out of memory")                             \
  X(TALLY_EUNSUPPORTED, "not supported")                       \
  X(TALLY_ENODEV, "no such device")                            \
  X(TALLY_EDRIVER, "driver or runtime library unavailable")    \
  X(TALLY_EEMPTY, "empty input")                               \
  X(TALLY_EPARSE, "parse error")                               \
  X(TALLY_ECOMPILE, "kernel compilation failed")               \
  X(TALLY_EBACKEND, "backend failure")                         \
  X(TALLY_EIO, "input/output error")                           \
  X(TALLY_EINTERNAL, "internal error")

/** @brief Result of every call. TALLY_OK is 0. */
typedef enum {
#define TALLY_X_(name, msg) name,
  TALLY_STATUS_LIST(TALLY_X_)
#undef TALLY_X_
  TALLY_STATUS_COUNT_
} tally_status;

/** @brief "TALLY_EINVAL" for TALLY_EINVAL; "TALLY_UNKNOWN_STATUS" for values out of range. */
TALLY_API const char *tally_status_name(tally_status s);
/** @brief "invalid argument" for TALLY_EINVAL; a fixed text for values out of range. */
TALLY_API const char *tally_status_str(tally_status s);

/* ------------------------------------------------------------------ dtypes */

/** X-macro list of element types: X(enum, name, size in bytes). f16 and bf16 are
 *  passed as their 16-bit patterns (uint16_t). bool is one byte, 0 or nonzero. */
#define TALLY_DTYPE_LIST(X)  \
  X(TALLY_BOOL, "bool", 1)   \
  X(TALLY_I8, "i8", 1)       \
  X(TALLY_I16, "i16", 2)     \
  X(TALLY_I32, "i32", 4)     \
  X(TALLY_I64, "i64", 8)     \
  X(TALLY_U8, "u8", 1)       \
  X(TALLY_U16, "u16", 2)     \
  X(TALLY_U32, "u32", 4)     \
  X(TALLY_U64, "u64", 8)     \
  X(TALLY_F16, "f16", 2)     \
  X(TALLY_BF16, "bf16", 2)   \
  X(TALLY_F32, "f32", 4)     \
  X(TALLY_F64, "f64", 8)

/** @brief Element type of an array. */
typedef enum {
#define TALLY_X_(e, name, size) e,
  TALLY_DTYPE_LIST(TALLY_X_)
#undef TALLY_X_
  TALLY_DTYPE_COUNT_
} tally_dtype;

/** @brief "f32" for TALLY_F32; NULL for values out of range. */
TALLY_API const char *tally_dtype_name(tally_dtype t);
/** @brief Size of one element in bytes; 0 for values out of range. */
TALLY_API size_t tally_dtype_size(tally_dtype t);
/** @brief Parse "f32", "float32", "int8", "uint64", "float16", "bfloat16", "bool", ...
 *  @return TALLY_OK, or TALLY_EINVAL (message through tally_errmsg(NULL)). */
TALLY_API tally_status tally_dtype_from_name(const char *name, tally_dtype *out);

/** @brief f16 (IEEE binary16) and bf16 bit patterns to and from float; float→16-bit
 *  conversions round to nearest even and keep NaN a NaN. */
TALLY_API float tally_f16_to_f32(uint16_t h);
TALLY_API uint16_t tally_f32_to_f16(float f);
TALLY_API float tally_bf16_to_f32(uint16_t h);
TALLY_API uint16_t tally_f32_to_bf16(float f);

/* ------------------------------------------------------------------ ops */

/** X-macro list of reductions: X(enum, name). See docs/SEMANTICS.md for the table. */
#define TALLY_OP_LIST(X)                  \
  X(TALLY_SUM, "sum")                     \
  X(TALLY_PROD, "prod")                   \
  X(TALLY_MIN, "min")                     \
  X(TALLY_MAX, "max")                     \
  X(TALLY_MINMAX, "minmax")               \
  X(TALLY_ARGMIN, "argmin")               \
  X(TALLY_ARGMAX, "argmax")               \
  X(TALLY_MEAN, "mean")                   \
  X(TALLY_VAR, "var")                     \
  X(TALLY_STD, "std")                     \
  X(TALLY_SUMSQ, "sumsq")                 \
  X(TALLY_NORM2, "norm2")                 \
  X(TALLY_DOT, "dot")                     \
  X(TALLY_ANY, "any")                     \
  X(TALLY_ALL, "all")                     \
  X(TALLY_COUNT_NONZERO, "count_nonzero") \
  X(TALLY_BITAND, "bitand")               \
  X(TALLY_BITOR, "bitor")                 \
  X(TALLY_BITXOR, "bitxor")               \
  X(TALLY_AFFINE, "affine")

/** @brief A reduction. */
typedef enum {
#define TALLY_X_(e, name) e,
  TALLY_OP_LIST(TALLY_X_)
#undef TALLY_X_
  TALLY_OP_COUNT_
} tally_op;

/** @brief "sum" for TALLY_SUM; NULL for values out of range. */
TALLY_API const char *tally_op_name(tally_op op);
/** @brief Parse an op name ("sum", "argmax", "count_nonzero", ...; case-insensitive). */
TALLY_API tally_status tally_op_from_name(const char *name, tally_op *out);

/**
 * @brief The dtype of op's result on input dtype @p in.
 *
 * SUM, PROD, SUMSQ, DOT, AFFINE: bool and signed ints → i64, unsigned → u64, f16/bf16/f32
 * → f32, f64 → f64. NORM2: ints → f64, floats as SUM. MIN, MAX, MINMAX, BIT*: the input
 * type. ARGMIN, ARGMAX, COUNT_NONZERO: i64. MEAN, VAR, STD: f64 except f16/bf16/f32 → f32.
 * ANY, ALL: bool.
 * @return TALLY_EUNSUPPORTED where the op is not defined on the dtype (bitwise ops on
 *         floats, AFFINE on bool), TALLY_EINVAL for unknown values.
 */
TALLY_API tally_status tally_result_dtype(tally_op op, tally_dtype in, tally_dtype *out);

/** @brief Number of result values per reduced slice: 2 for MINMAX (min, max) and AFFINE
 *  (a, b), else 1. 0 for an unknown op. */
TALLY_API int tally_result_width(tally_op op);

/* ------------------------------------------------------------------ arrays */

/** @brief Where an array's data lives. */
typedef enum {
  TALLY_MEM_HOST = 0,  /**< ordinary host memory: works on every backend */
  TALLY_MEM_DEVICE = 1 /**< the context's device memory (CUDA pointer, cl_mem) */
} tally_mem;

/**
 * @brief Where the data is and how it is laid out: 1-D, strided 1-D, or 2-D.
 *
 * Strides are in elements and may be negative (data then points at logical element 0);
 * strides {0, 0} mean contiguous row-major. Descriptors are plain values: fill one
 * with tally_array_1d(), tally_array_strided() or tally_array_2d().
 */
typedef struct {
  void *data;         /**< host pointer, CUDA device pointer, or cl_mem */
  tally_dtype dtype;  /**< element type */
  int ndim;           /**< 1 or 2 */
  int64_t shape[2];   /**< elements along each dimension (shape[1] unused for 1-D) */
  int64_t strides[2]; /**< in elements; {0,0}: contiguous row-major */
  tally_mem mem;      /**< TALLY_MEM_HOST or TALLY_MEM_DEVICE */
} tally_array;

/** @brief A contiguous 1-D host array of n elements. */
static inline tally_array tally_array_1d(void *data, tally_dtype dtype, int64_t n) {
  tally_array a = {data, dtype, 1, {n, 0}, {0, 0}, TALLY_MEM_HOST};
  return a;
}
/** @brief A 1-D host array of n elements, stride elements apart. */
static inline tally_array tally_array_strided(void *data, tally_dtype dtype, int64_t n,
                                              int64_t stride) {
  tally_array a = {data, dtype, 1, {n, 0}, {stride, 0}, TALLY_MEM_HOST};
  return a;
}
/** @brief A contiguous row-major 2-D host array of rows × cols elements. */
static inline tally_array tally_array_2d(void *data, tally_dtype dtype, int64_t rows,
                                         int64_t cols) {
  tally_array a = {data, dtype, 2, {rows, cols}, {0, 0}, TALLY_MEM_HOST};
  return a;
}

/* ------------------------------------------------------------------ options */

/** @brief How hard to work for accuracy. */
typedef enum {
  TALLY_ACCURACY_DEFAULT = 0, /**< wide or compensated accumulators; deterministic */
  TALLY_ACCURACY_FAST = 1     /**< native accumulators in any order */
} tally_accuracy;

/** @brief What NaN does. */
typedef enum {
  TALLY_NAN_PROPAGATE = 0, /**< any NaN makes the result NaN (ARG*: the first NaN wins) */
  TALLY_NAN_IGNORE = 1     /**< NaNs are skipped, like numpy's nansum, nanmin, ... */
} tally_nan;

/** @brief Where a GPU context reduces an input that lives in host memory. */
typedef enum {
  TALLY_HOST_INPUT_AUTO = 0,  /**< on the host's CPU where it reads the input faster than
                                   the bus carries it (a per-ISA table of ops and dtypes,
                                   docs/DECISIONS.md), with the cpu device's bits; else on
                                   the device */
  TALLY_HOST_INPUT_DEVICE = 1 /**< always on the device: no host thread is started for a
                                   pinned input; a pageable one is still copied into pinned
                                   buffers by the host's threads */
} tally_host_input;

/** @brief Progress callback: called from the calling thread with the elements done so
 *  far and the total. It must not call back into tally on the same context. */
typedef void (*tally_progress_fn)(int64_t done, int64_t total, void *user);

/** @brief Options of a reduction. tally_options_init() fills the defaults; NULL options
 *  mean the defaults. */
typedef struct {
  tally_accuracy accuracy;    /**< default TALLY_ACCURACY_DEFAULT */
  tally_nan nan;              /**< default TALLY_NAN_PROPAGATE */
  int axis;                   /**< -1 (default): all elements; 0 or 1 for 2-D input */
  int ddof;                   /**< VAR/STD delta degrees of freedom, default 0 */
  const char *variant;        /**< NULL or "best": the best; or a ladder variant's name */
  tally_progress_fn progress; /**< optional; NULL: none */
  void *progress_user;        /**< passed to progress */
  tally_host_input host_input; /**< default TALLY_HOST_INPUT_AUTO; only GPU contexts read it */
} tally_options;

/** @brief Fill @p opt with the defaults. */
TALLY_API void tally_options_init(tally_options *opt);

/* ------------------------------------------------------------------ contexts */

/** @brief An open device: a backend, its threads or queues, caches and scratch memory.
 *  A context may be used by one thread at a time; open one per thread for concurrency. */
typedef struct tally_context tally_context;

/**
 * @brief Open a device.
 *
 * @param device "auto", "cpu", "cpu:threads=N", "cpu:isa=scalar|avx2|avx512",
 *               "cpu:threads=N,isa=avx2", "cuda", "cuda:K", "opencl", "opencl:P:D".
 *               NULL means $TALLY_DEVICE if set, else "auto" (the best GPU if any, else cpu).
 *               The CPU's ISA may also be forced with $TALLY_CPU_ISA.
 *               "cpu:parallel_bytes=N": inputs under N bytes run on the calling thread
 *               (default 128 KiB; a scan under 4 MiB also stays there while the threads
 *               sleep, and wakes them for the next call, unless N is given).
 *               "cpu:stream_bytes=N": scans that read and write more than N bytes in
 *               all may write their output with streaming stores, which leave it out of
 *               the cache (default: the last-level cache's size; 32 MiB where unknown).
 * @param ctx    receives the context, or NULL on failure (message: tally_errmsg(NULL)).
 */
TALLY_API tally_status tally_open(const char *device, tally_context **ctx);
/** @brief Close a context; NULL is allowed. */
TALLY_API void tally_close(tally_context *ctx);
/** @brief Detail of the last failure on @p ctx; with NULL, of the last failure on this
 *  thread that had no context (tally_open, name parsing). Never NULL; "" when none. */
TALLY_API const char *tally_errmsg(const tally_context *ctx);

/** @brief What a context runs on. */
typedef struct {
  char backend[16];   /**< "cpu", "cuda", "opencl" */
  char device[128];   /**< the device's name, e.g. the CPU model */
  char isa[16];       /**< CPU: "scalar", "avx2", "avx512" */
  int threads;        /**< CPU: threads used for large inputs */
  int64_t parallel_threshold_bytes; /**< CPU: below this many input bytes, one thread */
  /* GPU backends (zero on the CPU): */
  int compute_units;       /**< CUDA: multiprocessors; OpenCL: compute units */
  int cc_major, cc_minor;  /**< CUDA: compute capability */
  int64_t memory_bytes;    /**< device memory */
  int64_t l2_bytes;        /**< last-level cache */
  int driver_version;      /**< CUDA: e.g. 13000 for 13.0 */
  char arch[16];           /**< CUDA: the architecture kernels are compiled for, "sm_90" */
} tally_context_info;

/** @brief Describe an open context. */
TALLY_API tally_status tally_context_describe(const tally_context *ctx, tally_context_info *info);

/** @brief One usable (or unusable) device, from tally_devices(). */
typedef struct {
  char name[32];    /**< device string for tally_open(), e.g. "cpu", "cuda:0" */
  char backend[16]; /**< "cpu", "cuda", "opencl" */
  char detail[160]; /**< model, ISA, cores, memory, ... */
  int usable;       /**< 1 if tally_open(name) can succeed */
  char why[160];    /**< when not usable: why, plainly */
} tally_device_info;

/** @brief Enumerate devices and backends here, usable or not. Writes at most @p capacity
 *  entries and the number available to @p count. */
TALLY_API tally_status tally_devices(tally_device_info *list, int capacity, int *count);

/** @brief The i-th variant name of the context's backend, in ladder order (the plainest
 *  first, "best" last); NULL past the end. CPU: "sequential", "naive", "best". */
TALLY_API const char *tally_variant_name(const tally_context *ctx, int i);

/* ------------------------------------------------------------------ device memory */

/**
 * Allocate @p bytes of the context's device memory (for TALLY_MEM_DEVICE arrays). On the
 * CPU backend this is ordinary 64-byte aligned host memory. Fails with TALLY_ENOMEM (and
 * allocates nothing) when the device has too little free memory. @p bytes = 0 gives NULL.
 */
TALLY_API tally_status tally_mem_alloc(tally_context *ctx, size_t bytes, void **ptr);
/** Free memory from tally_mem_alloc on the same context; NULL is ignored. */
TALLY_API tally_status tally_mem_free(tally_context *ctx, void *ptr);
/**
 * Allocate @p bytes of host memory that the context's device reads fastest: page-locked
 * (pinned) memory on CUDA, which a TALLY_MEM_HOST array in it is sent from by DMA at full
 * bus speed, with no staging copy by the host; ordinary 64-byte aligned memory elsewhere.
 * Use it like any host memory (arrays in it are TALLY_MEM_HOST). Pinned memory is scarce:
 * allocate it once and reuse it. TALLY_ENOMEM when it cannot be had. @p bytes = 0 gives NULL.
 */
TALLY_API tally_status tally_mem_alloc_host(tally_context *ctx, size_t bytes, void **ptr);
/** Free memory from tally_mem_alloc_host on the same context; NULL is ignored. */
TALLY_API tally_status tally_mem_free_host(tally_context *ctx, void *ptr);
/**
 * Copy @p bytes between host memory and the context's device memory, in either direction
 * or within one side; returns when the copy is complete.
 */
TALLY_API tally_status tally_mem_copy(tally_context *ctx, void *dst, tally_mem dst_mem,
                                      const void *src, tally_mem src_mem, size_t bytes);

/* ------------------------------------------------------------------ reductions */

/**
 * @brief Reduce an array.
 *
 * @param op   the reduction
 * @param in   the input (1-D, strided 1-D or 2-D)
 * @param in2  the second input for DOT (same dtype and shape as in) and AFFINE (in holds
 *             the a's, in2 the b's of the maps x → a·x + b); NULL for every other op
 * @param out  the result: tally_result_dtype(op, in->dtype), holding (number of slices) ×
 *             tally_result_width(op) elements, either 1-D or 2-D [slices, width]. With
 *             axis -1 there is one slice; with axis 0 one per column; with axis 1 one per
 *             row. Must not overlap the inputs.
 * @param opt  NULL for the defaults
 * @return TALLY_OK; TALLY_EEMPTY for MIN, MAX, MINMAX, ARG*, MEAN, VAR, STD on empty input;
 *         TALLY_EINVAL (message names the argument and its value), TALLY_EUNSUPPORTED, ...
 */
TALLY_API tally_status tally_reduce(tally_context *ctx, tally_op op, const tally_array *in,
                                    const tally_array *in2, tally_array *out,
                                    const tally_options *opt);

/**
 * @brief Segmented reduction: one result per segment [offsets[i], offsets[i+1]) of a 1-D
 *        input, i in 0..nsegments-1.
 *
 * @p offsets holds nsegments + 1 non-decreasing values in [0, n]. ARGMIN/ARGMAX give the
 * index within the segment. An empty segment gives the op's identity where it has one;
 * for MIN, MAX, MINMAX, ARG*, MEAN, VAR, STD it is TALLY_EEMPTY naming the segment.
 * opt->axis must be -1.
 */
TALLY_API tally_status tally_reduce_segments(tally_context *ctx, tally_op op,
                                             const tally_array *in, const tally_array *in2,
                                             const int64_t *offsets, int64_t nsegments,
                                             tally_array *out, const tally_options *opt);

/* ------------------------------------------------------------------ user reductions */

/** @brief acc = acc ⊕ x, for a user-defined associative operator ⊕ on elements of
 *  tally_user_op.size bytes. acc holds the left operand (earlier elements), x the right.
 *  Called from several threads at once on different acc objects: it must be pure. */
typedef void (*tally_combine_fn)(void *acc, const void *x, void *user);

/** @brief A user-defined reduction (CPU backend). */
typedef struct {
  size_t size;              /**< bytes per element and per accumulator, 1..256 */
  const void *identity;     /**< the identity element e: e ⊕ x = x ⊕ e = x */
  tally_combine_fn combine; /**< acc = acc ⊕ x */
  void *user;               /**< passed to combine */
  int commutative;          /**< 1 if x ⊕ y = y ⊕ x; 0: combined strictly in order */
} tally_user_op;

/**
 * @brief Reduce n elements of a user-defined type with a user-defined operator.
 *
 * @param data   n elements, each uop->size bytes, stride elements apart (0: contiguous)
 * @param out    receives uop->size bytes: the identity for n == 0
 * The CPU backend keeps the order of operands for every user op (it costs nothing there);
 * the commutative flag lets GPU backends reorder. Other backends: TALLY_EUNSUPPORTED.
 */
TALLY_API tally_status tally_reduce_user(tally_context *ctx, const tally_user_op *uop,
                                         const void *data, int64_t n, int64_t stride,
                                         void *out);

/* ------------------------------------------------------------------ scans */

/** @brief Options of a scan. tally_scan_options_init() fills the defaults; NULL options
 *  mean the defaults (inclusive, no init, DEFAULT accuracy, NaN propagates, one segment). */
typedef struct {
  int exclusive;           /**< 0 (default): out[i] includes in[i]; 1: out[i] stops before it */
  const void *init;        /**< NULL, or one value of the result dtype (AFFINE: a pair (a, b);
                                user scans: uop->size bytes) that every segment starts from.
                                Copied before anything is written: it may lie in out */
  tally_accuracy accuracy; /**< default TALLY_ACCURACY_DEFAULT */
  tally_nan nan;           /**< PROPAGATE (default); IGNORE: float NaNs count as the op's
                                identity (numpy's nancumsum, nancumprod; fmin/fmax) */
  const uint8_t *flags;    /**< segments by head flags: n bytes, nonzero at i starts a new
                                segment at element i (element 0 always starts one); or NULL.
                                Must not overlap out (TALLY_EINVAL) */
  const int64_t *offsets;  /**< segments by offsets: nsegments + 1 non-decreasing values,
                                offsets[0] = 0 and offsets[nsegments] = n; or NULL. Must not
                                overlap out (TALLY_EINVAL) */
  int64_t nsegments;       /**< with offsets: the number of segments */
  const char *variant;     /**< NULL or "best": the backend's scan. GPU backends (the scan
                                ladder of the OpenCL tutorial, for study and comparison):
                                "hillis_steele" and "blelloch" (one work-group walks the
                                input, a double-buffered Hillis-Steele or a Blelloch up- and
                                down-sweep per chunk), "four_kernel" (Blelloch local scans,
                                block sums collected, scanned, added back). Not with
                                segments; user scans ignore it. */
} tally_scan_options;

/** @brief Fill @p opt with the defaults. */
TALLY_API void tally_scan_options_init(tally_scan_options *opt);

/**
 * @brief Prefix scan: every partial result of a reduction, in index order.
 *
 * Inclusive: out[i] = init ⊕ in[0] ⊕ ... ⊕ in[i]; exclusive: out[i] = init ⊕ in[0] ⊕ ...
 * ⊕ in[i-1] (out[0] = init). Without init, the op's identity takes its place (SUM 0,
 * PROD 1, MIN +Inf or the dtype's largest value, MAX -Inf or the smallest, AFFINE (1, 0);
 * MIN/MAX under NAN_IGNORE: NaN). Segments restart the scan from init (or the identity).
 *
 * @param op   TALLY_SUM, TALLY_PROD, TALLY_MIN, TALLY_MAX or TALLY_AFFINE (others:
 *             TALLY_EUNSUPPORTED)
 * @param in   n elements, 1-D (strided allowed); AFFINE: the a's
 * @param in2  AFFINE: the b's (same dtype and length as in); NULL for every other op.
 *             AFFINE's prefix (A, B) is the map x → A·x + B = f[i](...f[0](x)), so
 *             B[i] is x[i+1] of the recurrence x[k+1] = a[k]·x[k] + b[k] from x[0] = 0.
 * @param out  n values of the result dtype: SUM, PROD, AFFINE: tally_result_dtype(op,
 *             in->dtype); MIN, MAX: the input dtype. AFFINE: 2 values (A, B) per element,
 *             1-D of 2n or 2-D [n, 2]. out may be exactly in (same address, dtype and
 *             stride: in place; AFFINE: (A, B) over (a, b)) but must not overlap it otherwise;
 *             its values must not overlap one another (e.g. 2-D strides with a 0, or
 *             AFFINE's B of row i on A of row i + 1): TALLY_EINVAL naming out.
 * @param opt  NULL for the defaults
 * @return TALLY_OK; TALLY_EINVAL (message names the argument and its value);
 *         TALLY_EUNSUPPORTED (op, dtype, or a device array on a backend without scans).
 */
TALLY_API tally_status tally_scan(tally_context *ctx, tally_op op, const tally_array *in,
                                  const tally_array *in2, tally_array *out,
                                  const tally_scan_options *opt);

/**
 * @brief Prefix scan of n user-defined elements with a user-defined associative operator
 *        (CPU threads on every backend: the combine function is host code).
 *
 * @param data    n elements of uop->size bytes, stride elements apart (0: contiguous)
 * @param out     n elements of uop->size bytes, out_stride elements apart (0: contiguous);
 *                may be exactly data (same address and stride), must not overlap it otherwise
 * @param opt     exclusive, init (uop->size bytes) and segments are used; accuracy and nan
 *                are ignored. NULL for the defaults.
 */
TALLY_API tally_status tally_scan_user(tally_context *ctx, const tally_user_op *uop,
                                       const void *data, int64_t n, int64_t stride, void *out,
                                       int64_t out_stride, const tally_scan_options *opt);

/* ------------------------------------------------------------------ histograms */

/** @brief What happens to values outside the bins' range (±Inf included). */
typedef enum {
  TALLY_HIST_DROP = 0, /**< not counted (numpy); reported in tally_hist_stats */
  TALLY_HIST_CLAMP = 1 /**< counted in the first or last bin */
} tally_hist_outside;

/**
 * @brief The bins of a histogram. tally_hist_spec_init() fills the defaults; then set
 * nbins and either lo and hi (even bins), or edges, or auto_range.
 *
 * Bin i holds the values v with edge[i] <= v < edge[i+1]; the last bin also holds
 * v == edge[nbins] (numpy's rule). Even bins have edge[k] = lo + k·((hi − lo)/nbins)
 * (computed in f64) and edge[nbins] = hi, and a value equal to edge[k] lands in bin k.
 */
typedef struct {
  int64_t nbins;              /**< 1 .. 2^30 */
  double lo, hi;              /**< even bins over [lo, hi]: finite, lo < hi */
  const double *edges;        /**< NULL, or nbins + 1 finite, strictly increasing edges;
                                   must not overlap counts or weight_sums (TALLY_EINVAL) */
  int auto_range;             /**< 1: lo and hi are the input's min and max (a MINMAX pass
                                   first; NaNs skipped; max = min = v widens to v ± 0.5, or
                                   to the next doubles below and above v where v ± 0.5
                                   rounds to v (|v| >= 2^52), so that lo < hi always; at
                                   ±DBL_MAX the side that would overflow stays v) */
  tally_hist_outside outside; /**< default TALLY_HIST_DROP */
  tally_accuracy accuracy;    /**< weights: DEFAULT compensated sums, FAST plain f64 */
  const char *variant;        /**< NULL or "best": bins privatised per block; "hist_simple":
                                   the OpenCL tutorial's one global atomic per element, kept
                                   as a ladder rung (GPU devices only, no weights) */
} tally_hist_spec;

/** @brief Fill @p spec with the defaults: nbins 0 (must be set), no range, DROP, DEFAULT. */
TALLY_API void tally_hist_spec_init(tally_hist_spec *spec);

/** @brief What a histogram saw besides its bins. */
typedef struct {
  int64_t n;       /**< elements read */
  int64_t counted; /**< elements counted in a bin (with CLAMP: n − nan) */
  int64_t below;   /**< values below the range (−Inf included); with CLAMP, counted in bin 0 */
  int64_t above;   /**< values above the range (+Inf included); with CLAMP, in the last bin */
  int64_t nan;     /**< NaNs: never counted in a bin */
  double lo, hi;   /**< the range used (edges: the first and last edge) */
} tally_hist_stats;

/**
 * @brief Count the elements of @p in into bins, and optionally sum weights per bin.
 *
 * @param in          n elements of any dtype, 1-D (strided allowed); integers are
 *                    converted to f64 before binning (exact up to 2^53)
 * @param weights     NULL, or n elements (any dtype, 1-D) whose values are summed per bin in f64
 * @param spec        the bins
 * @param counts      nbins values of u64 (1-D); required
 * @param weight_sums NULL, or nbins values of f64 (requires weights)
 * @param stats       NULL, or receives the counts outside the bins and the range used
 * @return TALLY_OK; TALLY_EINVAL (message names the argument and its value), ...
 */
TALLY_API tally_status tally_histogram(tally_context *ctx, const tally_array *in,
                                       const tally_array *weights, const tally_hist_spec *spec,
                                       tally_array *counts, tally_array *weight_sums,
                                       tally_hist_stats *stats);

/* ------------------------------------------------------------------ plans */

/** @brief A reduction prepared once and run many times: validation, kernel choice and
 *  scratch memory are kept across calls. */
typedef struct tally_plan tally_plan;

/**
 * @brief Prepare a reduction for arrays shaped like @p in, @p in2, @p out (their data
 *        pointers may be NULL here). Errors are reported on ctx.
 */
TALLY_API tally_status tally_plan_create(tally_context *ctx, tally_op op, const tally_array *in,
                                         const tally_array *in2, const tally_array *out,
                                         const tally_options *opt, tally_plan **plan);
/** @brief Bytes of scratch memory a run needs. */
TALLY_API tally_status tally_plan_workspace_size(const tally_plan *plan, size_t *bytes);
/** @brief Give the plan caller-owned scratch memory of at least workspace-size bytes (16-byte
 *  aligned); NULL returns to plan-owned memory. */
TALLY_API tally_status tally_plan_set_workspace(tally_plan *plan, void *workspace, size_t bytes);
/** @brief Run a plan on arrays with the dtypes and shapes it was created with. */
TALLY_API tally_status tally_plan_run(tally_plan *plan, const tally_array *in,
                                      const tally_array *in2, tally_array *out);
/** @brief Free a plan; NULL is allowed. The context must outlive its plans. */
TALLY_API void tally_plan_destroy(tally_plan *plan);

#ifdef __cplusplus
}
#endif
#endif /* TALLY_H */

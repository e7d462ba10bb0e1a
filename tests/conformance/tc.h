/* The conformance suite's shared declarations: a case, the harness that runs one, the
 * layouts, and the groups of cases (one file each). Uses only the public API. */
#ifndef TC_H
#define TC_H

#include <stdint.h>
#include <stdio.h>

#include "gen.h"
#include "ref.h"
#include "rng.h"
#include "tally.h"

typedef enum { TC_BEST, TC_SEQUENTIAL, TC_NAIVE, TC_OTHER } tc_variant;

/* Physical layouts of the input. Logical data is always row-major; these place it. */
typedef enum {
  TC_CONTIG,   /* 1-D contiguous */
  TC_STRIDE3,  /* 1-D, stride 3 */
  TC_REVERSE,  /* 1-D, stride -1 (data points at the last element in memory) */
  TC_2D,       /* 2-D C order */
  TC_2D_T,     /* 2-D transposed: strides {1, rows} */
  TC_2D_PAD,   /* 2-D rows padded: strides {cols + 3, 1} */
  TC_LAYOUT_COUNT
} tc_layout;

typedef enum { TC_CALL_REDUCE, TC_CALL_SEGMENTS, TC_CALL_PLAN } tc_call;

typedef struct {
  tally_op op;
  tally_dtype dt;
  tt_dist dist;
  int64_t param;      /* dist parameter: NaN position (-1 random) or k */
  tally_accuracy acc;
  tally_nan nan;
  int ddof;
  tc_layout layout;
  int64_t rows, cols; /* 1-D layouts: rows = 1, cols = n */
  int axis;           /* -1, 0, 1 (2-D only) */
  tc_call call;
  int nseg;           /* segmented: number of segments (offsets drawn at random) */
  int out2d;          /* output as 2-D [slices, width] rather than 1-D */
  tc_layout layout2;  /* DOT, AFFINE: the layout of in2 (same shape) */
} tc_case;

/* Layouts (layout.c). */
typedef struct {
  void *alloc;       /* what to free */
  tally_array arr;   /* the descriptor passed to the library */
} tc_placed;
const char *tc_layout_name(tc_layout l);
/* Place logical row-major data (rows x cols of dt) into layout l; gaps hold 0xFF bytes
 * (NaN in every float dtype). offset: elements of misalignment (0..3) at the start. */
int tc_place(tc_layout l, tally_dtype dt, const void *logical, int64_t rows, int64_t cols,
             int offset, tc_placed *out);
void tc_unplace(tc_placed *p);

/* The run: device, options, statistics. */
typedef struct {
  tally_context *ctx;
  const char *device;
  tc_variant variant;
  const char *variant_name; /* NULL for the default */
  const char *scan_variant; /* --scan-variant: the scan ladder rung, or NULL */
  const char *hist_variant; /* --hist-variant: the histogram ladder rung, or NULL */
  int max_slices;           /* > 0: cases of more slices are left out (GPU ladder variants) */
  /* opt.host_input of every call (--host-input; default DEVICE: on a GPU the suite tests
   * the GPU's kernels, not the host's CPU backend that AUTO may pick for host arrays) */
  tally_host_input host_input;
  int quick;
  uint64_t seed;
  int64_t only_case;        /* --case K: run only case K (-1: all) */
  const char *only_ops, *only_dtypes; /* --ops / --dtypes: comma-separated names, or NULL */
  int trace;                /* $TALLY_TEST_TRACE: print every case with its time */
  int64_t sample;           /* --sample K: run one case in K (case ids k·K + offset); 0: all */
  int64_t next_case;        /* case counter */
  int64_t cases, failures, skipped;
  int64_t skipped_device;   /* scan/histogram cases on device arrays the backend refused */
  double worst[TALLY_OP_COUNT_][TALLY_DTYPE_COUNT_][2]; /* error/bound per accuracy */
  int64_t fail_by[TALLY_OP_COUNT_][TALLY_DTYPE_COUNT_];
  int64_t other_failures;
} tc_run;

/* Whether the variant under test is defined for op on dt (naive: a few ops). */
int tc_variant_supports(const tc_run *R, tally_op op, tally_dtype dt);
/* Whether op is defined on dt at all (result dtype exists). */
int tc_op_defined(tally_op op, tally_dtype dt);

/* Run one case: generate, lay out, poison, call, check; count and report. Returns 1 if
 * it passed (or was filtered out by --case). */
int tc_run_case(tc_run *R, const tc_case *c);
/* One drawn instance of a case: data, placed inputs, poisoned output, options. */
typedef struct {
  const tc_case *c;
  uint64_t id;
  char desc[512];
  tt_rng rng;
  tally_dtype rd;
  int W, has2, twod, seg;
  int64_t n, es, rs, nsl, nout;
  void *x, *y;                /* logical (row-major) data */
  tc_placed px, py;
  unsigned char *obuf, *o;    /* output with guards; o: the first result value */
  tally_array in, in2, out;
  tally_options opt;
  int64_t *offsets;
} tc_inst;

typedef tally_status (*tc_again_fn)(tc_run *R, tc_inst *I, void *arg);
void tc_inst_init(tc_run *R, const tc_case *c, uint64_t id, tc_inst *I);
void tc_inst_poison(tc_inst *I, unsigned char b);
void tc_inst_free(tc_inst *I);
/* tally_reduce (or _segments) on the instance. */
tally_status tc_inst_reduce(tc_run *R, tc_inst *I);
/* Check the call's status, every value against the reference, the guards, and (calling
 * `again` with another poison) that no value was left unwritten. 1: passed. */
int tc_inst_verify(tc_run *R, tc_inst *I, tally_status st, tc_again_fn again, void *arg,
                   char *why, size_t len);

/* Record a failure of a case-less check (plans, user ops): prints and counts. */
void tc_fail(tc_run *R, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Start a case-less check; returns 0 if --case filters it out. */
/* Whether --ops / --dtypes let cases of (op, dt) run. */
int tc_wanted(const tc_run *R, tally_op op, tally_dtype dt);
int tc_begin(tc_run *R, uint64_t *stream);

/* Slices of a reduction over rows x cols with axis: count, length, and the logical
 * (row-major) index of element j of slice k. */
int64_t tc_nslices(int64_t rows, int64_t cols, int axis, int twod);
int64_t tc_slice_len(int64_t rows, int64_t cols, int axis, int twod);
int64_t tc_slice_index(int64_t rows, int64_t cols, int axis, int twod, int64_t k, int64_t j);

/* The naive variant's expected result (naive.c). */
void tc_naive_expect(const tt_spec *s, const void *x, const void *y, int64_t n, tt_expect *e);

/* Groups of cases. */
void tc_group_sizes(tc_run *R);     /* every op x dtype over the size list */
void tc_group_nan(tc_run *R);       /* NaN at every position 0..64 and at the end */
void tc_group_layouts(tc_run *R);   /* strided, reversed, 2-D with every axis */
void tc_group_segments(tc_run *R);  /* segmented reductions */
void tc_group_plans(tc_run *R);     /* the plan API */
void tc_group_user(tc_run *R);      /* tally_reduce_user */
void tc_group_huge(tc_run *R);      /* 2^24 ± 1 for a few combinations */
void tc_group_scan(tc_run *R);      /* tally_scan, tally_scan_user */
void tc_group_hist(tc_run *R);      /* tally_histogram */
void tc_group_hist_edges(tc_run *R); /* histograms: non-finite weight sums, bin edges */

/* Small helpers. */
void *tc_alloc(size_t bytes); /* 64-byte aligned, zeroed; exits on failure */
extern const int64_t tc_sizes[];
extern const int tc_nsizes;

#endif

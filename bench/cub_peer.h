/* The CUB peer of `tally bench` on GPUs: bench/peers/cub_peer.cu, a C++ program built
 * where CMake finds nvcc. Three modes, each run once per (op, dtype) with every size:
 *   CUB_REDUCE  cub::DeviceReduce (SUM, MIN, MAX, ARGMIN, ARGMAX of f32, f64, i32, i64);
 *   CUB_PROBE   the read probe: the plainest fastest read of the same bytes on the GPU;
 *   CUB_H2D     the pinned host-to-device copy of the same bytes.
 * The program is looked up in $TALLY_CUB_PEER (environment), then next to the running
 * tally binary, then at its install path (TALLY_CUB_PEER_PATH at build time). Absent:
 * the bench says so, it is not an error. */
#ifndef TALLY_BENCH_CUB_PEER_H
#define TALLY_BENCH_CUB_PEER_H

#include "tally.h"

#include <stdint.h>

typedef struct {
  int present;
  char path[1024];
  char why[256];    /* when absent: why */
  char device[128]; /* after cub_peer_check: the GPU it runs on */
  char version[32]; /* after cub_peer_check: CUB's version */
} cub_peer;

/* CUB_SCAN: cub::DeviceScan's inclusive scan of SUM, PROD, MIN, MAX or AFFINE (maps zipped
 * from two arrays), every dtype but bool, into tally's result type (element counts);
 * CUB_COPY: a device-to-device copy of the same bytes (sizes in bytes), a scan's ceiling. */
/* CUB_HIST, CUB_HIST_SKEW: cub::DeviceHistogram::HistogramEven, 256 bins, f32 or u8, on
 * uniform data or every value in one bin. */
typedef enum { CUB_REDUCE, CUB_PROBE, CUB_H2D, CUB_SCAN, CUB_COPY, CUB_HIST, CUB_HIST_SKEW } cub_mode;

typedef struct {
  double call_us;   /* median: host wall clock, call to result on the host; < 0: absent */
  double kernel_us; /* median: CUDA events around the device work alone */
  char result[64];  /* the result as the peer printed it ("" if none) */
  int64_t index;    /* ARGMIN, ARGMAX: the index; else -1 */
  char device[128]; /* the GPU, as the peer names it */
  char version[32]; /* CUB's version */
} cub_point;

/* Find the program; fills p (p->present says if found). */
void cub_peer_find(cub_peer *p);

/* Run it once, tiny, on CUDA device `device`: it must run there and see the GPU named
 * `expect` (NULL: any). Fills p->device and p->version; else p->present = 0 and p->why
 * says why (no GPU, another GPU, a failure). */
void cub_peer_check(cub_peer *p, int device, const char *expect);

/* 1 if CUB_REDUCE does op on dtype t, else 0. */
int cub_peer_supported(tally_op op, tally_dtype t);

/* Run one mode at each of the sizes: element counts of t (CUB_REDUCE) or bytes (CUB_PROBE,
 * CUB_H2D); out[i] belongs to sizes[i]. reps: timed runs per size; flush_bytes: the L2
 * flush's size (0: none, -1: the peer's default, 4 x L2); device: the CUDA device number.
 * Returns the peer's exit status (0: ran; 77: no CUDA GPU there) or -1 if it could not be
 * started; where not 0, why holds its last line of complaint. */
int cub_peer_run(const cub_peer *p, cub_mode mode, tally_op op, tally_dtype t,
                 const int64_t *sizes, int nsizes, int reps, uint64_t seed,
                 int64_t flush_bytes, int device, cub_point *out, char *why, size_t whysize);

#endif

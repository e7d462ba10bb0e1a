/* The numpy peer: bench/peers/numpy_peer.py, run once per (op, dtype) with every size by
 * the first Python found with numpy ($TALLY_PYTHON, then python3 on PATH, then
 * /usr/bin/python3). The script is looked up in $TALLY_PEERS_DIR (environment), then the
 * install directory (TALLY_PEERS_DIR at build time), then TALLY_SOURCE_DIR/bench/peers.
 * Without Python, numpy or the script the peer is absent: not an error. */
#ifndef TALLY_BENCH_NUMPY_PEER_H
#define TALLY_BENCH_NUMPY_PEER_H

#include "bench_timer.h"
#include "tally.h"

#include <stdint.h>

typedef struct {
  int present;
  char python[512];   /* the interpreter */
  char script[1024];  /* numpy_peer.py */
  char version[32];   /* numpy.__version__ */
  char why[256];      /* when absent: why */
} numpy_peer;

typedef struct {
  double median_us; /* < 0: no numpy function for this op/dtype, or the run failed */
  double rel_err;   /* numpy's own relative error; NaN where the script gives none */
} numpy_point;

/* Find Python with numpy and the script; fills p (p->present says if found). */
void numpy_peer_find(numpy_peer *p);

/* Time op on dtype t at each of the sizes; out[i] belongs to sizes[i]. 0, or -1 if the
 * script could not be run (every point is then absent). */
int numpy_peer_run(const numpy_peer *p, tally_op op, tally_dtype t, const int64_t *sizes,
                   int nsizes, uint64_t seed, const bench_timing *tm, int nan_ignore,
                   numpy_point *out);

#endif

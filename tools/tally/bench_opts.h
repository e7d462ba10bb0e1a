/* Options of `tally bench`: parsed from the command line by bench_opts_parse(). */
#ifndef TALLY_CLI_BENCH_OPTS_H
#define TALLY_CLI_BENCH_OPTS_H

#include "bench_timer.h"
#include "tally.h"

#include <stdint.h>

#define BENCH_ACC_DEFAULT 1
#define BENCH_ACC_FAST 2

typedef struct {
  int64_t *sizes; /* element counts, in the order given */
  int nsizes;
  tally_op ops[64];
  int nops;
  tally_dtype dtypes[64];
  int ndtypes;
  const char *variants; /* "best,naive", "ladder" or "all": resolved once a context is open */
  const char *device;   /* NULL: $TALLY_DEVICE, else auto */
  int accuracies;       /* BENCH_ACC_* bits */
  tally_nan nan;
  bench_timing timing;
  int json;
  int no_peers;
  uint64_t seed;
  /* GPU devices (bench_gpu.c): */
  int host;            /* --host: input in host memory (streamed over PCIe); 2: --host-pinned */
  int gpu_method;      /* --gpu-method: the GPU method on any device (for testing) */
  int64_t flush_bytes; /* --flush MIB: each of the L2 flush's buffers; -1: 4 x L2 */
  int local_sizes[16];  /* --local-sizes (OpenCL): work-group sizes to sweep */
  int nlocal;
  /* Scans and histograms (bench_scan.c): */
  int scan, hist;       /* --scan, --hist */
  int64_t bins;         /* --bins, default 256 */
  int hist_edges;       /* --hist-edges: also data on the bins' edges (GPU devices) */
  int order;            /* --order (--scan): 0 random, 1 ascending, 2 descending ramps */
} bench_opts;

extern const char bench_usage[];

/* -1: parsed, go on; else the exit code (0 after --help, 2 for a usage error, with its
 * line already printed). */
int bench_opts_parse(int argc, char **argv, bench_opts *o);
void bench_opts_free(bench_opts *o);

/* --scan / --hist (bench_scan.c): the whole run; returns the exit code. */
int bench_scan_hist(const bench_opts *o);

/* Parse a --sizes value into a new array; 0, or -1 with a message in err. */
int bench_parse_sizes(const char *s, int64_t **sizes, int *n, char *err, size_t errsize);

#endif

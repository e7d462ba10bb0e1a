/* Options of `tally bench`; see bench_opts.h. */
#include "bench_opts.h"

#include "cli.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char bench_usage[] =
    "usage: tally bench [options]\n"
    "\n"
    "Time tally's reductions side by side with their peers (numpy, an OpenMP loop) and the\n"
    "probe (the fastest plain read of the same bytes), on fresh random data: floats uniform\n"
    "in [0.5, 1.5), integers in +-[1, 64]. Each time is the median of repeated runs after a\n"
    "warm-up. Also the relative error of each result against an exact reference.\n"
    "\n"
    "options:\n"
    "  --sizes LIST       element counts: 2^10..2^28 (powers of two), 2^10..2^28:4 (every\n"
    "                     4th power), or a comma list of those and numbers: 100000,2^20\n"
    "                     (default 2^10..2^28:2)\n"
    "  --ops LIST         sum,max,...: any of the ops of tally reduce (default sum)\n"
    "  --dtypes LIST      f32,f64,i32,...: element types (default f32)\n"
    "  --variants LIST    variant names (best,sequential,naive), or ladder / all: every\n"
    "                     variant of the device, best last (default best)\n"
    "  --device STR       auto, cpu, cpu:threads=N, cpu:isa=avx2, ... (default $TALLY_DEVICE)\n"
    "  --accuracy MODE    default, fast or both (default: default)\n"
    "  --nan MODE         propagate (default) or ignore\n"
    "  --min-time S       seconds of samples per measurement (default 0.2)\n"
    "  --repeat N         exactly N samples per measurement instead of --min-time\n"
    "  --rounds N         the contenders of a size take N turns each (default 3): a change\n"
    "                     of background load then reaches all of them alike\n"
    "  --seed N           seed of the random data (default 1)\n"
    "  --no-peers         skip numpy and the OpenMP loop (on a GPU: CUB; the probe stays)\n"
    "  --json             one JSON object per line and result, no table\n"
    "  -h, --help         show this help\n"
    "\n"
    "GPU devices (cuda, opencl): the input is in device memory (tally_mem_alloc); each run\n"
    "is one tally_reduce() call timed by the host clock until the result is on the host,\n"
    "after an L2 flush; the median of --repeat runs (default 50) is reported. The peer is\n"
    "CUB (cub_peer, built where nvcc is found: $TALLY_CUB_PEER, else next to tally), and\n"
    "the probe its plainest fastest read of the same bytes, both timed the same way.\n"
    "  --host             input in host memory instead, streamed to the GPU by tally; the\n"
    "                     probe is then the pinned host-to-device copy\n"
    "  --host-pinned      as --host, in pinned host memory (tally_mem_alloc_host), which\n"
    "                     the GPU reads by DMA where it is\n"
    "  --flush MIB        each of the L2 flush's two buffers (default 4 x the L2; 0: no\n"
    "                     flush, a warm L2)\n"
    "  --gpu-method       time with the GPU method on any device (a test of the method)\n"
    "\n"
    "Scans and histograms (CPU and CUDA devices):\n"
    "  --scan             time tally_scan of each --ops (sum, prod, min, max, affine;\n"
    "                     default sum), --dtypes and --sizes against the copy probe (read\n"
    "                     the input, write the output: a scan's own traffic); GB/s counts\n"
    "                     bytes read + written; --accuracy picks the modes\n"
    "  --order ORDER      --scan's input: random (default), or ascending or descending\n"
    "                     ramps over the type's range: every element a new extreme, the\n"
    "                     worst case of a MIN or MAX scan (on CUDA the CUB peer's\n"
    "                     input stays random: its time does not depend on order)\n"
    "  --hist             time tally_histogram of each --dtypes and --sizes, on uniform data\n"
    "                     and on skewed data (all in one bin), against the read probe\n"
    "  --bins N           histogram bins for --hist (default 256)\n"
    "  --hist-edges       --hist on a GPU also on data on the bins' edges (k/bins for random\n"
    "                     k: every value of a float type an edge; no CUB peer row)\n"
    "                     With --scan or --hist on a GPU, --variants names the ladders' rungs:\n"
    "                     hillis_steele,blelloch,four_kernel / hist_simple, or ladder: all, best last\n"
    "\n"
    "  --local-sizes LIST OpenCL: repeat the run for each work-group size (powers of two,\n"
    "                     e.g. 32,64,128,256,512,1024; the device string gets local=N)\n"
    "                     and end with the best size for each op, dtype and length\n"
    "\n"
    "columns: median_us (one call through a plan), GB/s (input bytes / median), probe_GB/s,\n"
    "ratio_probe (GB/s / probe_GB/s), peer (the fastest peer), peer_us, ratio_peer\n"
    "(peer_us / median_us: > 1 means tally is faster), max_rel_err (against the exact result).\n"
    "environment: TALLY_PYTHON (a python with numpy), TALLY_PEERS_DIR (numpy_peer.py's folder),\n"
    "TALLY_CUB_PEER (the cub_peer program)\n";

/* One size: "2^K" or a decimal count. */
static int parse_one(const char *s, int64_t *v, int *exp2) {
  long long x;
  *exp2 = -1;
  if (strncmp(s, "2^", 2) == 0) {
    if (cli_parse_i64(s + 2, 0, 40, &x) != 0) return -1;
    *exp2 = (int)x;
    *v = (int64_t)1 << x;
    return 0;
  }
  if (cli_parse_i64(s, 1, (long long)1 << 40, &x) != 0) return -1;
  *v = x;
  return 0;
}

static int push(int64_t **a, int *n, int *cap, int64_t v) {
  if (*n == *cap) {
    int nc = *cap ? 2 * *cap : 16;
    int64_t *p = realloc(*a, (size_t)nc * sizeof *p);
    if (!p) return -1;
    *a = p;
    *cap = nc;
  }
  (*a)[(*n)++] = v;
  return 0;
}

int bench_parse_sizes(const char *s, int64_t **sizes, int *n, char *err, size_t errsize) {
  char *copy = strdup(s);
  int cap = 0, rc = 0;
  *sizes = NULL;
  *n = 0;
  if (!copy) return -1;
  for (char *save = NULL, *item = strtok_r(copy, ",", &save); item && !rc;
       item = strtok_r(NULL, ",", &save)) {
    char *dots = strstr(item, "..");
    if (!dots) {
      int64_t v;
      int e;
      if (parse_one(item, &v, &e) != 0) {
        snprintf(err, errsize, "--sizes: %s: not a count or 2^K (K <= 40)", item);
        rc = -1;
      } else if (push(sizes, n, &cap, v) != 0) {
        rc = -1;
      }
      continue;
    }
    /* 2^A..2^B[:K]: A, A+K, ..., up to B */
    *dots = 0;
    char *hi = dots + 2, *colon = strchr(hi, ':');
    long long step = 1;
    if (colon) {
      *colon = 0;
      if (cli_parse_i64(colon + 1, 1, 40, &step) != 0) {
        snprintf(err, errsize, "--sizes: :%s: the step must be an exponent step 1..40", colon + 1);
        rc = -1;
        continue;
      }
    }
    int64_t va, vb;
    int ea, eb;
    if (parse_one(item, &va, &ea) != 0 || parse_one(hi, &vb, &eb) != 0 || ea < 0 || eb < 0 ||
        ea > eb) {
      snprintf(err, errsize, "--sizes: %s..%s: a range must be 2^A..2^B with A <= B", item, hi);
      rc = -1;
      continue;
    }
    for (int e = ea; e <= eb && !rc; e += (int)step)
      if (push(sizes, n, &cap, (int64_t)1 << e) != 0) rc = -1;
  }
  free(copy);
  if (!rc && *n == 0) {
    snprintf(err, errsize, "--sizes: %s: no sizes", s);
    rc = -1;
  }
  if (rc) {
    free(*sizes);
    *sizes = NULL;
    *n = 0;
  }
  return rc;
}

/* Comma list of op or dtype names; kind 0: ops, 1: dtypes. */
static int parse_names(const char *s, int kind, void *out, int *n, int max) {
  char *copy = strdup(s);
  if (!copy) return -1;
  int rc = 0;
  *n = 0;
  for (char *save = NULL, *item = strtok_r(copy, ",", &save); item;
       item = strtok_r(NULL, ",", &save)) {
    if (*n == max) {
      cli_error("--%s: at most %d names", kind ? "dtypes" : "ops", max);
      rc = -1;
      break;
    }
    tally_status st = kind ? tally_dtype_from_name(item, &((tally_dtype *)out)[*n])
                           : tally_op_from_name(item, &((tally_op *)out)[*n]);
    if (st != TALLY_OK) {
      cli_error("--%s: %s: unknown %s", kind ? "dtypes" : "ops", item, kind ? "dtype" : "op");
      rc = -1;
      break;
    }
    (*n)++;
  }
  free(copy);
  if (!rc && *n == 0) {
    cli_error("--%s: empty list", kind ? "dtypes" : "ops");
    rc = -1;
  }
  return rc;
}

int bench_opts_parse(int argc, char **argv, bench_opts *o) {
  enum { O_SIZES = 256, O_OPS, O_DTYPES, O_VARIANTS, O_DEVICE, O_ACCURACY, O_NAN, O_REPEAT,
         O_MINTIME, O_JSON, O_NOPEERS, O_SEED, O_ROUNDS, O_HOST, O_HOST_PINNED, O_GPU_METHOD, O_FLUSH, O_LOCAL,
         O_SCAN, O_HIST, O_BINS, O_HIST_EDGES, O_ORDER };
  static const struct option longopts[] = {
      {"sizes", required_argument, NULL, O_SIZES},       {"ops", required_argument, NULL, O_OPS},
      {"dtypes", required_argument, NULL, O_DTYPES},     {"variants", required_argument, NULL, O_VARIANTS},
      {"device", required_argument, NULL, O_DEVICE},     {"accuracy", required_argument, NULL, O_ACCURACY},
      {"nan", required_argument, NULL, O_NAN},           {"repeat", required_argument, NULL, O_REPEAT},
      {"min-time", required_argument, NULL, O_MINTIME},  {"json", no_argument, NULL, O_JSON},
      {"no-peers", no_argument, NULL, O_NOPEERS},        {"seed", required_argument, NULL, O_SEED},
      {"rounds", required_argument, NULL, O_ROUNDS},     {"help", no_argument, NULL, 'h'},
      {"host", no_argument, NULL, O_HOST},               {"host-pinned", no_argument, NULL, O_HOST_PINNED},
      {"gpu-method", no_argument, NULL, O_GPU_METHOD},   {"flush", required_argument, NULL, O_FLUSH},
      {"local-sizes", required_argument, NULL, O_LOCAL},
      {"scan", no_argument, NULL, O_SCAN},               {"hist", no_argument, NULL, O_HIST},
      {"bins", required_argument, NULL, O_BINS},         {"hist-edges", no_argument, NULL, O_HIST_EDGES},
      {"order", required_argument, NULL, O_ORDER},
      {NULL, 0, NULL, 0},
  };
  memset(o, 0, sizeof *o);
  o->ops[0] = TALLY_SUM;
  o->nops = 1;
  o->dtypes[0] = TALLY_F32;
  o->ndtypes = 1;
  o->variants = "best";
  o->accuracies = BENCH_ACC_DEFAULT;
  o->nan = TALLY_NAN_PROPAGATE;
  o->timing.min_time = 0.2;
  o->timing.rounds = 3;
  o->seed = 1;
  o->flush_bytes = -1;
  o->bins = 256;
  const char *sizes = "2^10..2^28:2";
  char err[256];
  long long v;
  optind = 1;
  opterr = 0;
  int c;
  while ((c = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
    switch (c) {
    case O_SIZES: sizes = optarg; break;
    case O_OPS:
      if (parse_names(optarg, 0, o->ops, &o->nops, 64) != 0) return CLI_EXIT_USAGE;
      break;
    case O_DTYPES:
      if (parse_names(optarg, 1, o->dtypes, &o->ndtypes, 64) != 0) return CLI_EXIT_USAGE;
      break;
    case O_VARIANTS: o->variants = optarg; break;
    case O_DEVICE: o->device = optarg; break;
    case O_ACCURACY:
      if (strcmp(optarg, "default") == 0) o->accuracies = BENCH_ACC_DEFAULT;
      else if (strcmp(optarg, "fast") == 0) o->accuracies = BENCH_ACC_FAST;
      else if (strcmp(optarg, "both") == 0) o->accuracies = BENCH_ACC_DEFAULT | BENCH_ACC_FAST;
      else {
        cli_error("--accuracy: %s: expected default, fast or both", optarg);
        return CLI_EXIT_USAGE;
      }
      break;
    case O_NAN:
      if (strcmp(optarg, "propagate") == 0) o->nan = TALLY_NAN_PROPAGATE;
      else if (strcmp(optarg, "ignore") == 0) o->nan = TALLY_NAN_IGNORE;
      else {
        cli_error("--nan: %s: expected propagate or ignore", optarg);
        return CLI_EXIT_USAGE;
      }
      break;
    case O_REPEAT:
      if (cli_parse_i64(optarg, 1, 1000000, &v) != 0) {
        cli_error("--repeat: %s: expected a count 1..1000000", optarg);
        return CLI_EXIT_USAGE;
      }
      o->timing.repeat = (int)v;
      break;
    case O_ROUNDS:
      if (cli_parse_i64(optarg, 1, 100, &v) != 0) {
        cli_error("--rounds: %s: expected a count 1..100", optarg);
        return CLI_EXIT_USAGE;
      }
      o->timing.rounds = (int)v;
      break;
    case O_MINTIME: {
      char *end;
      double t = strtod(optarg, &end);
      if (end == optarg || *end || !(t >= 0 && t <= 3600)) {
        cli_error("--min-time: %s: expected seconds, 0..3600", optarg);
        return CLI_EXIT_USAGE;
      }
      o->timing.min_time = t;
      break;
    }
    case O_JSON: o->json = 1; break;
    case O_HOST: o->host = 1; break;
    case O_HOST_PINNED: o->host = 2; break;
    case O_GPU_METHOD: o->gpu_method = 1; break;
    case O_LOCAL: {
      o->nlocal = 0;
      char *copy = strdup(optarg), *save = NULL;
      int bad = !copy;
      for (char *it = copy ? strtok_r(copy, ",", &save) : NULL; it && !bad; it = strtok_r(NULL, ",", &save)) {
        long long w;
        if (cli_parse_i64(it, 1, 65536, &w) != 0 || (w & (w - 1)) || o->nlocal == 16) bad = 1;
        else o->local_sizes[o->nlocal++] = (int)w;
      }
      free(copy);
      if (bad || o->nlocal == 0) {
        cli_error("--local-sizes: %s: expected up to 16 powers of two, 1..65536, e.g. 32,64,128", optarg);
        return CLI_EXIT_USAGE;
      }
      break;
    }
    case O_FLUSH:
      if (cli_parse_i64(optarg, 0, 1 << 20, &v) != 0) {
        cli_error("--flush: %s: expected MiB, 0..1048576", optarg);
        return CLI_EXIT_USAGE;
      }
      o->flush_bytes = (int64_t)v << 20;
      break;
    case O_NOPEERS: o->no_peers = 1; break;
    case O_SCAN: o->scan = 1; break;
    case O_HIST: o->hist = 1; break;
    case O_HIST_EDGES: o->hist_edges = 1; break;
    case O_ORDER:
      if (strcmp(optarg, "random") == 0) o->order = 0;
      else if (strcmp(optarg, "ascending") == 0) o->order = 1;
      else if (strcmp(optarg, "descending") == 0) o->order = 2;
      else {
        cli_error("--order: %s: expected random, ascending or descending", optarg);
        return CLI_EXIT_USAGE;
      }
      break;
    case O_BINS:
      if (cli_parse_i64(optarg, 1, 1 << 30, &v) != 0) {
        cli_error("--bins: %s: expected a count 1..2^30", optarg);
        return CLI_EXIT_USAGE;
      }
      o->bins = v;
      break;
    case O_SEED:
      if (cli_parse_i64(optarg, 0, INT64_MAX, &v) != 0) {
        cli_error("--seed: %s: expected a number >= 0", optarg);
        return CLI_EXIT_USAGE;
      }
      o->seed = (uint64_t)v;
      break;
    case 'h': fputs(bench_usage, stdout); return 0;
    case ':': cli_error("%s: needs a value (see tally bench --help)", argv[optind - 1]); return CLI_EXIT_USAGE;
    default: cli_error("%s: unknown option (see tally bench --help)", argv[optind - 1]); return CLI_EXIT_USAGE;
    }
  }
  if (optind < argc) {
    cli_error("%s: unexpected argument (see tally bench --help)", argv[optind]);
    return CLI_EXIT_USAGE;
  }
  if (o->order && !o->scan) {
    cli_error("--order: only with --scan (it picks the scans' input)");
    return CLI_EXIT_USAGE;
  }
  if (o->hist_edges && !o->hist) {
    cli_error("--hist-edges: only with --hist (it adds a kind of histogram data)");
    return CLI_EXIT_USAGE;
  }
  if (bench_parse_sizes(sizes, &o->sizes, &o->nsizes, err, sizeof err) != 0) {
    cli_error("%s", err);
    return CLI_EXIT_USAGE;
  }
  return -1;
}

void bench_opts_free(bench_opts *o) {
  free(o->sizes);
  o->sizes = NULL;
}

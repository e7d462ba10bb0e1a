/* tally hist FILE --bins N: a histogram of a file's numbers, as a text bar chart (default),
 * JSON, or a PNG bar chart (--plot). */
#include "cli.h"
#include "commands.h"
#include "io.h"
#include "io_write.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char hist_usage[] =
    "usage: tally hist FILE --bins N [--range LO,HI | --edges FILE] [options]\n"
    "\n"
    "Count FILE's numbers into bins and draw the counts as a text bar chart.\n"
    "Bin i holds edge[i] <= x < edge[i+1]; the last bin also holds x == its upper edge (as\n"
    "numpy.histogram). NaNs are never counted in a bin: they are reported apart.\n"
    "\n"
    "options:\n"
    "  --bins N           number of bins (default 10; with --edges: one less than the edges)\n"
    "  --range LO,HI      even bins over [LO, HI] (default: the data's min and max)\n"
    "  --edges FILE       explicit, strictly increasing bin edges (any widths)\n"
    "  --clamp            count values outside the range in the first or last bin\n"
    "                     (default: leave them out, and report how many)\n"
    "  --weights FILE     also sum these weights per bin (one per element)\n"
    "  --accuracy MODE    weight sums: default (compensated) or fast\n"
    "  --variant NAME     GPU devices: hist_simple (one global atomic per element, the\n"
    "                     OpenCL tutorial's kernel; a ladder rung); default best\n"
    "  --plot FILE.png    also draw the counts as a PNG bar chart\n"
    "  --width W          text bars: at most W characters (default 50)\n"
    "  --device STR       auto, cpu, cpu:threads=N, ... (default: $TALLY_DEVICE, else auto)\n"
    "  --dtype T          element type of raw input, parsed type of text (default f64)\n"
    "  --column C         text input: a 0-based index or header name\n"
    "  --json             print one JSON object instead of the chart\n"
    "  -h, --help         show this help\n";

typedef struct {
  const char *file, *edges, *weights, *plot, *device, *variant;
  int64_t bins;
  int has_bins, has_range, clamp, json, width;
  double lo, hi;
  tally_accuracy acc;
  io_options io;
} hist_args;

static int parse_args(int argc, char **argv, hist_args *a) {
  enum { O_BINS = 256, O_RANGE, O_EDGES, O_CLAMP, O_WEIGHTS, O_ACC, O_PLOT, O_WIDTH, O_DEVICE,
         O_DTYPE, O_COLUMN, O_JSON, O_VARIANT };
  static const struct option longopts[] = {
      {"bins", required_argument, NULL, O_BINS},     {"range", required_argument, NULL, O_RANGE},
      {"edges", required_argument, NULL, O_EDGES},   {"clamp", no_argument, NULL, O_CLAMP},
      {"weights", required_argument, NULL, O_WEIGHTS}, {"accuracy", required_argument, NULL, O_ACC},
      {"plot", required_argument, NULL, O_PLOT},     {"width", required_argument, NULL, O_WIDTH},
      {"device", required_argument, NULL, O_DEVICE}, {"dtype", required_argument, NULL, O_DTYPE},
      {"column", required_argument, NULL, O_COLUMN}, {"json", no_argument, NULL, O_JSON},
      {"variant", required_argument, NULL, O_VARIANT},
      {"help", no_argument, NULL, 'h'},              {NULL, 0, NULL, 0},
  };
  memset(a, 0, sizeof *a);
  a->bins = 10;
  a->width = 50;
  opterr = 0;
  optind = 1;
  int c;
  long long v;
  while ((c = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
    switch (c) {
    case 'h': fputs(hist_usage, stdout); return 0;
    case O_BINS:
      if (cli_parse_i64(optarg, 1, 1LL << 30, &v)) {
        cli_error("--bins %s: must be a whole number in 1..2^30", optarg);
        return CLI_EXIT_USAGE;
      }
      a->bins = v;
      a->has_bins = 1;
      break;
    case O_RANGE: {
      char *end, *comma = strchr(optarg, ',');
      int bad = !comma;
      if (!bad) {
        errno = 0;
        a->lo = strtod(optarg, &end);
        bad = end != comma;
        a->hi = strtod(comma + 1, &end);
        bad |= *end != '\0' || end == comma + 1;
      }
      if (bad) {
        cli_error("--range %s: must be LO,HI (two numbers)", optarg);
        return CLI_EXIT_USAGE;
      }
      a->has_range = 1;
      break;
    }
    case O_EDGES: a->edges = optarg; break;
    case O_CLAMP: a->clamp = 1; break;
    case O_WEIGHTS: a->weights = optarg; break;
    case O_ACC:
      if (cli_parse_accuracy(optarg, &a->acc)) return CLI_EXIT_USAGE;
      break;
    case O_PLOT: a->plot = optarg; break;
    case O_WIDTH:
      if (cli_parse_i64(optarg, 1, 1000, &v)) {
        cli_error("--width %s: must be a whole number in 1..1000", optarg);
        return CLI_EXIT_USAGE;
      }
      a->width = (int)v;
      break;
    case O_DEVICE: a->device = optarg; break;
    case O_DTYPE:
      if (cli_check_dtype(optarg)) return CLI_EXIT_USAGE;
      a->io.dtype = optarg;
      break;
    case O_COLUMN: a->io.column = optarg; break;
    case O_JSON: a->json = 1; break;
    case O_VARIANT: a->variant = optarg; break; /* the library names a bad one */
    default: return cli_option_error(c, argv, "tally hist");
    }
  }
  if (a->edges && a->has_range) {
    cli_error("--range and --edges: give one of them (the edges fix the range)");
    return CLI_EXIT_USAGE;
  }
  int npos = argc - optind;
  if (npos < 1) { cli_error("hist: missing FILE (see tally hist --help)"); return CLI_EXIT_USAGE; }
  if (npos > 1) { cli_error("%s: hist takes one file", argv[optind + 1]); return CLI_EXIT_USAGE; }
  a->file = argv[optind];
  return -1;
}

/* A 1-D view of d (1-D, or a single column). */
static int one_d(const io_data *d, tally_array *x) {
  int64_t s0 = d->strides[0], s1 = d->strides[1];
  if (d->ndim == 2) {
    if (d->shape[1] != 1) return -1;
    if (s0 == 0 && s1 == 0) s0 = 1;
  } else if (s0 == 0) {
    s0 = 1;
  }
  *x = tally_array_strided(d->data, d->dtype, d->shape[0], s0);
  return 0;
}

/* Edge k of the bins actually used. */
static double edge(const hist_args *a, const double *edges, const tally_hist_stats *st, int64_t k) {
  if (edges) return edges[k];
  if (k == a->bins) return st->hi;
  return (double)k * ((st->hi - st->lo) / (double)a->bins) + st->lo;
}

/* A PNG bar chart: 800 x 400, bars in blue on white, a black axis line. */
static int plot(const hist_args *a, const uint64_t *counts, char *err, size_t errsize) {
  int W = 800, H = 400, margin = 20;
  unsigned char *img = malloc((size_t)W * H * 3);
  if (!img) { snprintf(err, errsize, "%s: out of memory", a->plot); return -1; }
  memset(img, 255, (size_t)W * H * 3);
  uint64_t mx = 1;
  for (int64_t k = 0; k < a->bins; k++) if (counts[k] > mx) mx = counts[k];
  int pw = W - 2 * margin, ph = H - 2 * margin;
  for (int x = 0; x < pw; x++) {
    int64_t k = (int64_t)x * a->bins / pw;
    int64_t k_next = (int64_t)(x + 1) * a->bins / pw;
    int gap = a->bins <= pw / 3 && k_next != k; /* a white column between wide bars */
    int h = (int)((double)counts[k] / (double)mx * ph + 0.5);
    for (int y = 0; y < h && !gap; y++) {
      unsigned char *p = img + ((size_t)(H - margin - 1 - y) * W + margin + x) * 3;
      p[0] = 40, p[1] = 90, p[2] = 200;
    }
  }
  for (int x = margin - 1; x < W - margin; x++) {
    unsigned char *p = img + ((size_t)(H - margin) * W + x) * 3;
    p[0] = p[1] = p[2] = 0;
  }
  int rc = io_write_png(a->plot, W, H, img, err, errsize);
  free(img);
  return rc;
}

int tally_cmd_hist(int argc, char **argv) {
  hist_args a;
  int rc = parse_args(argc, argv, &a);
  if (rc >= 0) return rc;
  io_data d, w, e;
  memset(&d, 0, sizeof d);
  memset(&w, 0, sizeof w);
  memset(&e, 0, sizeof e);
  char err[1024];
  tally_context *ctx = NULL;
  uint64_t *counts = NULL;
  double *sums = NULL, *edges = NULL;
  tally_array in, wa;
  if ((rc = io_load(a.file, &a.io, &d, err, sizeof err))) { cli_error("%s", err); goto done; }
  if (one_d(&d, &in)) {
    cli_error("%s: %" PRId64 " x %" PRId64 ": hist takes 1-D input (or one column: --column)", d.path,
              d.shape[0], d.shape[1]);
    rc = CLI_EXIT_FAIL;
    goto done;
  }
  if (a.weights) {
    io_options wo = a.io;
    wo.dtype = NULL;
    if ((rc = io_load(a.weights, &wo, &w, err, sizeof err))) { cli_error("%s", err); goto done; }
    if (one_d(&w, &wa) || wa.shape[0] != in.shape[0]) {
      cli_error("%s: %" PRId64 " weights for %" PRId64 " elements of %s", w.path, w.shape[0],
                in.shape[0], d.path);
      rc = CLI_EXIT_FAIL;
      goto done;
    }
  }
  if (a.edges) {
    io_options eo = {0};
    if ((rc = io_load(a.edges, &eo, &e, err, sizeof err))) { cli_error("%s", err); goto done; }
    tally_array ea;
    if (one_d(&e, &ea) || ea.shape[0] < 2) {
      cli_error("%s: edges need a 1-D list of at least two numbers", e.path);
      rc = CLI_EXIT_FAIL;
      goto done;
    }
    if (a.has_bins && a.bins != ea.shape[0] - 1) {
      cli_error("--bins %" PRId64 ": %s holds %" PRId64 " edges, so %" PRId64 " bins", a.bins, e.path,
                ea.shape[0], ea.shape[0] - 1);
      rc = CLI_EXIT_USAGE;
      goto done;
    }
    a.bins = ea.shape[0] - 1;
    edges = malloc(sizeof(double) * (size_t)ea.shape[0]);
    if (!edges) { cli_error("out of memory"); rc = CLI_EXIT_FAIL; goto done; }
    /* the edges as f64, whatever the file's dtype */
    for (int64_t k = 0; k < ea.shape[0]; k++) {
      const char *p = (const char *)ea.data + k * ea.strides[0] * (int64_t)tally_dtype_size(ea.dtype);
      double v;
      switch (ea.dtype) {
      case TALLY_F64: memcpy(&v, p, 8); break;
      case TALLY_F32: { float f; memcpy(&f, p, 4); v = f; break; }
      case TALLY_I64: { int64_t t; memcpy(&t, p, 8); v = (double)t; break; }
      case TALLY_I32: { int32_t t; memcpy(&t, p, 4); v = t; break; }
      default: {
        char buf[64];
        cli_format_value(buf, sizeof buf, ea.dtype, p, 0);
        v = strtod(buf, NULL);
      }
      }
      edges[k] = v;
    }
  }
  counts = calloc((size_t)a.bins, sizeof *counts);
  sums = a.weights ? calloc((size_t)a.bins, sizeof *sums) : NULL;
  if (!counts || (a.weights && !sums)) { cli_error("out of memory for %" PRId64 " bins", a.bins); rc = CLI_EXIT_FAIL; goto done; }
  tally_hist_spec spec;
  tally_hist_spec_init(&spec);
  spec.nbins = a.bins;
  spec.edges = edges;
  spec.lo = a.lo;
  spec.hi = a.hi;
  spec.auto_range = !edges && !a.has_range;
  spec.outside = a.clamp ? TALLY_HIST_CLAMP : TALLY_HIST_DROP;
  spec.accuracy = a.acc;
  spec.variant = a.variant;
  tally_array ca = tally_array_1d(counts, TALLY_U64, a.bins), sa = tally_array_1d(sums, TALLY_F64, a.bins);
  tally_hist_stats st;
  tally_status s = tally_open(a.device, &ctx);
  if (s) { rc = cli_lib_error(NULL, s); goto done; }
  s = tally_histogram(ctx, &in, a.weights ? &wa : NULL, &spec, &ca, a.weights ? &sa : NULL, &st);
  if (s) { rc = cli_lib_error(ctx, s); goto done; }
  /* The picture first: when it cannot be written, nothing is printed but the error. */
  if (a.plot && plot(&a, counts, err, sizeof err)) { cli_error("%s", err); rc = CLI_EXIT_FAIL; goto done; }

  if (a.json) {
    printf("{\"file\":");
    cli_json_string(stdout, d.path);
    printf(",\"dtype\":\"%s\",\"n\":%" PRId64 ",\"nbins\":%" PRId64 ",\"range\":[%.17g,%.17g],"
           "\"outside\":\"%s\",\"nan\":%" PRId64 ",\"below\":%" PRId64 ",\"above\":%" PRId64 ",\"edges\":[",
           tally_dtype_name(in.dtype), st.n, a.bins, st.lo, st.hi, a.clamp ? "clamp" : "drop", st.nan,
           st.below, st.above);
    for (int64_t k = 0; k <= a.bins; k++) printf("%s%.17g", k ? "," : "", edge(&a, edges, &st, k));
    printf("],\"counts\":[");
    for (int64_t k = 0; k < a.bins; k++) printf("%s%" PRIu64, k ? "," : "", counts[k]);
    printf("]");
    if (sums) {
      printf(",\"weight_sums\":[");
      for (int64_t k = 0; k < a.bins; k++) {
        char v[64];
        cli_format_value(v, sizeof v, TALLY_F64, &sums[k], 1);
        printf("%s%s", k ? "," : "", v);
      }
      printf("]");
    }
    puts("}");
  } else {
    printf("%s: %s, n = %" PRId64 ", %" PRId64 " bins over [%.6g, %.6g]%s\n", d.path,
           tally_dtype_name(in.dtype), st.n, a.bins, st.lo, st.hi,
           spec.auto_range ? " (the data's range)" : "");
    uint64_t mx = 0;
    for (int64_t k = 0; k < a.bins; k++) if (counts[k] > mx) mx = counts[k];
    for (int64_t k = 0; k < a.bins; k++) {
      char lo[32], hi[32];
      snprintf(lo, sizeof lo, "%.6g", edge(&a, edges, &st, k));
      snprintf(hi, sizeof hi, "%.6g", edge(&a, edges, &st, k + 1));
      int len = mx ? (int)((double)counts[k] / (double)mx * a.width + 0.5) : 0;
      if (len == 0 && counts[k] > 0) len = 1; /* a non-empty bin always shows */
      printf("  [%10s, %10s%c %12" PRIu64 " ", lo, hi, k == a.bins - 1 ? ']' : ')', counts[k]);
      for (int i = 0; i < len; i++) putchar('#');
      if (sums) printf("  (weights %.6g)", sums[k]);
      putchar('\n');
    }
    printf("  nan: %" PRId64 ", below the range: %" PRId64 ", above: %" PRId64 "%s\n", st.nan,
           st.below, st.above, a.clamp ? " (counted in the end bins: --clamp)" : " (not counted)");
  }
  if (fflush(stdout) != 0) { cli_error("standard output: write failed"); rc = CLI_EXIT_FAIL; goto done; }
  rc = 0;
done:
  tally_close(ctx);
  free(counts);
  free(sums);
  free(edges);
  io_release(&d);
  io_release(&w);
  io_release(&e);
  return rc;
}

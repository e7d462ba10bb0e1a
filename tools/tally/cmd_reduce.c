/* tally reduce OP FILE [FILE2]: one reduction of a file's numbers, printed as text or JSON. */
#include "cli.h"
#include "commands.h"
#include "io.h"
#include "progress.h"

#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char reduce_usage[] =
    "usage: tally reduce OP FILE [FILE2] [options]\n"
    "\n"
    "Reduce the numbers in FILE with OP and print the result.\n"
    "\n"
    "OP: sum prod min max minmax argmin argmax mean var std sumsq norm2 dot any all\n"
    "    count_nonzero bitand bitor bitxor affine\n"
    "    dot and affine take two files, or one file with two columns (affine: a, b).\n"
    "FILE: .npy (versions 1-3, 1-D or 2-D); .csv, .tsv, .txt (text, one row per line);\n"
    "    anything else is raw binary and needs --dtype.\n"
    "\n"
    "options:\n"
    "  --axis N           -1: all elements (default); 0: each column; 1: each row (2-D)\n"
    "  --accuracy MODE    default (deterministic, wide accumulators) or fast\n"
    "  --nan MODE         propagate (default) or ignore (skip NaNs, like numpy nansum)\n"
    "  --ddof N           delta degrees of freedom for var and std (default 0)\n"
    "  --device STR       auto, cpu, cpu:threads=N, cpu:isa=scalar|avx2|avx512, ...\n"
    "                     (default: $TALLY_DEVICE, else auto)\n"
    "  --variant NAME     a ladder variant (see tally info), default best\n"
    "  --host-input WHERE GPU devices: auto (default: the host's CPU reduces the input where\n"
    "                     it reads it faster than the bus carries it) or device (always\n"
    "                     the GPU)\n"
    "  --dtype T          element type of raw input, parsed type of text (default f64)\n"
    "  --shape R,C        raw input: a row-major R x C matrix\n"
    "  --column C         text input: a 0-based index or header name (or a list: a,b)\n"
    "  --json             print one JSON object on one line\n"
    "  -h, --help         show this help\n";

typedef struct {
  tally_op op;
  const char *files[2];
  int nfiles;
  io_options io;
  tally_options opt;
  const char *device;
  int json;
} reduce_args;

/* -1: go on; else the exit code. */
static int parse_args(int argc, char **argv, reduce_args *a) {
  enum { O_AXIS = 256, O_ACCURACY, O_NAN, O_DDOF, O_DEVICE, O_VARIANT, O_JSON, O_DTYPE,
         O_COLUMN, O_SHAPE, O_HOST_INPUT };
  static const struct option longopts[] = {
      {"axis", required_argument, NULL, O_AXIS},       {"accuracy", required_argument, NULL, O_ACCURACY},
      {"nan", required_argument, NULL, O_NAN},         {"ddof", required_argument, NULL, O_DDOF},
      {"device", required_argument, NULL, O_DEVICE},   {"variant", required_argument, NULL, O_VARIANT},
      {"json", no_argument, NULL, O_JSON},             {"dtype", required_argument, NULL, O_DTYPE},
      {"column", required_argument, NULL, O_COLUMN},   {"shape", required_argument, NULL, O_SHAPE},
      {"host-input", required_argument, NULL, O_HOST_INPUT},
      {"help", no_argument, NULL, 'h'},                {NULL, 0, NULL, 0},
  };
  memset(a, 0, sizeof *a);
  tally_options_init(&a->opt);
  opterr = 0;
  optind = 1;
  int c;
  long long v;
  while ((c = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
    switch (c) {
    case 'h': fputs(reduce_usage, stdout); return 0;
    case O_AXIS:
      if (cli_parse_i64(optarg, -1, 1, &v)) {
        cli_error("--axis %s: must be -1 (all elements), 0 (columns) or 1 (rows)", optarg);
        return CLI_EXIT_USAGE;
      }
      a->opt.axis = (int)v;
      break;
    case O_ACCURACY:
      if (cli_parse_accuracy(optarg, &a->opt.accuracy)) return CLI_EXIT_USAGE;
      break;
    case O_NAN:
      if (cli_parse_nan(optarg, &a->opt.nan)) return CLI_EXIT_USAGE;
      break;
    case O_DDOF:
      if (cli_parse_i64(optarg, 0, 1 << 30, &v)) {
        cli_error("--ddof %s: must be a non-negative integer", optarg);
        return CLI_EXIT_USAGE;
      }
      a->opt.ddof = (int)v;
      break;
    case O_DEVICE: a->device = optarg; break;
    case O_VARIANT: a->opt.variant = optarg; break;
    case O_HOST_INPUT:
      if (strcmp(optarg, "auto") == 0) a->opt.host_input = TALLY_HOST_INPUT_AUTO;
      else if (strcmp(optarg, "device") == 0) a->opt.host_input = TALLY_HOST_INPUT_DEVICE;
      else {
        cli_error("--host-input %s: must be auto or device", optarg);
        return CLI_EXIT_USAGE;
      }
      break;
    case O_JSON: a->json = 1; break;
    case O_DTYPE:
      if (cli_check_dtype(optarg)) return CLI_EXIT_USAGE;
      a->io.dtype = optarg;
      break;
    case O_COLUMN: a->io.column = optarg; break;
    case O_SHAPE: {
      char *comma = strchr(optarg, ',');
      long long r, cols = 0;
      if (!comma) r = -1;
      else {
        *comma = '\0';
        int bad = cli_parse_i64(optarg, 0, INT64_MAX, &r) || cli_parse_i64(comma + 1, 0, INT64_MAX, &cols);
        *comma = ',';
        if (bad) r = -1;
      }
      if (r < 0) {
        cli_error("--shape %s: must be ROWS,COLS (two non-negative integers)", optarg);
        return CLI_EXIT_USAGE;
      }
      a->io.has_shape = 1;
      a->io.shape[0] = r;
      a->io.shape[1] = cols;
      break;
    }
    default: return cli_option_error(c, argv, "tally reduce");
    }
  }
  int npos = argc - optind;
  if (npos < 1) { cli_error("reduce: missing OP and FILE (see tally reduce --help)"); return CLI_EXIT_USAGE; }
  if (tally_op_from_name(argv[optind], &a->op) != TALLY_OK) {
    cli_error("%s", tally_errmsg(NULL));
    return CLI_EXIT_USAGE;
  }
  int binary = a->op == TALLY_DOT || a->op == TALLY_AFFINE;
  if (npos < 2) { cli_error("reduce: missing FILE (see tally reduce --help)"); return CLI_EXIT_USAGE; }
  if (npos > (binary ? 3 : 2)) {
    cli_error("%s: op %s takes %s", argv[optind + (binary ? 3 : 2)], tally_op_name(a->op),
              binary ? "at most two files" : "one file (dot and affine take two)");
    return CLI_EXIT_USAGE;
  }
  a->nfiles = npos - 1;
  for (int i = 0; i < a->nfiles; i++) a->files[i] = argv[optind + 1 + i];
  return -1;
}

static tally_array array_of(const io_data *d) {
  tally_array x = {d->data, d->dtype, d->ndim, {d->shape[0], d->ndim == 2 ? d->shape[1] : 0},
                   {d->strides[0], d->strides[1]}, TALLY_MEM_HOST};
  return x;
}

/* Effective element strides of a 1-D or 2-D array (the {0,0} shorthand expanded). */
static void strides_of(const tally_array *x, int64_t *s0, int64_t *s1) {
  if (x->ndim == 1) { *s0 = x->strides[0] ? x->strides[0] : 1; *s1 = 0; }
  else if (x->strides[0] == 0 && x->strides[1] == 0) { *s0 = x->shape[1]; *s1 = 1; }
  else { *s0 = x->strides[0]; *s1 = x->strides[1]; }
}

static int64_t count_of(const tally_array *x) {
  return x->ndim == 2 ? x->shape[0] * x->shape[1] : x->shape[0];
}

static void shape_text(char *buf, size_t size, const tally_array *x) {
  if (x->ndim == 2) snprintf(buf, size, "shape %" PRId64 " x %" PRId64, x->shape[0], x->shape[1]);
  else snprintf(buf, size, "%" PRId64 " elements", x->shape[0]);
}

/* The two inputs of DOT and AFFINE: two files, or the two columns of one. */
static int binary_inputs(const reduce_args *a, const io_data *d, tally_array *in, tally_array *in2) {
  char s1[64], s2[64];
  if (a->nfiles == 2) {
    *in = array_of(&d[0]);
    *in2 = array_of(&d[1]);
    if (in->dtype != in2->dtype) {
      cli_error("%s: dtype %s, but %s has %s (%s needs inputs of the same dtype)", d[1].path,
                tally_dtype_name(in2->dtype), d[0].path, tally_dtype_name(in->dtype),
                tally_op_name(a->op));
      return CLI_EXIT_FAIL;
    }
    if (in->ndim != in2->ndim || in->shape[0] != in2->shape[0] ||
        (in->ndim == 2 && in->shape[1] != in2->shape[1])) {
      shape_text(s1, sizeof s1, in);
      shape_text(s2, sizeof s2, in2);
      cli_error("%s: %s, but %s has %s (%s needs inputs of the same shape)", d[1].path, s2,
                d[0].path, s1, tally_op_name(a->op));
      return CLI_EXIT_FAIL;
    }
    return 0;
  }
  tally_array x = array_of(&d[0]);
  if (x.ndim != 2 || x.shape[1] != 2) {
    shape_text(s1, sizeof s1, &x);
    cli_error("%s: op %s needs two files, or one file with two columns (this one has %s)",
              d[0].path, tally_op_name(a->op), s1);
    return CLI_EXIT_FAIL;
  }
  int64_t st0, st1;
  strides_of(&x, &st0, &st1);
  size_t es = tally_dtype_size(x.dtype);
  *in = tally_array_strided(x.data, x.dtype, x.shape[0], st0);
  *in2 = tally_array_strided((char *)x.data + st1 * (int64_t)es, x.dtype, x.shape[0], st0);
  return 0;
}

/* Everything printing needs. */
typedef struct {
  const reduce_args *a;
  const tally_array *in;
  tally_dtype rdtype;
  int width, arg, axis;
  int64_t slices;
  const void *out;
} result;

/* The input element at index idx of slice k (ARGMIN/ARGMAX), or NULL if out of range. */
static const void *arg_element(const result *r, int64_t k, int64_t idx) {
  const tally_array *x = r->in;
  int64_t rows = x->shape[0], cols = x->ndim == 2 ? x->shape[1] : 1, i, j;
  if (r->axis < 0) { i = idx / cols; j = idx % cols; }
  else if (r->axis == 0) { i = idx; j = k; }
  else { i = k; j = idx; }
  if (idx < 0 || i >= rows || j >= cols) return NULL;
  int64_t s0, s1;
  strides_of(x, &s0, &s1);
  return (const char *)x->data + (i * s0 + j * s1) * (int64_t)tally_dtype_size(x->dtype);
}

static const void *out_value(const result *r, int64_t k, int w) {
  return (const char *)r->out + (k * r->width + w) * (int64_t)tally_dtype_size(r->rdtype);
}

/* ARGMIN/ARGMAX of slice k: its index, and the input's value there (null/"?" if the
 * index is out of range, which would be a library bug, not a reason to crash). */
static int64_t arg_parts(const result *r, int64_t k, char *value, size_t size, int json) {
  int64_t idx = *(const int64_t *)out_value(r, k, 0);
  const void *e = arg_element(r, k, idx);
  if (e) cli_format_value(value, size, r->in->dtype, e, json);
  else snprintf(value, size, json ? "null" : "?");
  return idx;
}

/* One slice's result as text ("1.5", "min = 1, max = 9", "index = 3, value = 7") or,
 * except for ARG*, as a JSON value ("1.5", "[1,9]"). */
static void slice_text(char *buf, size_t size, const result *r, int64_t k, int json) {
  char v0[64], v1[64];
  if (r->arg) {
    int64_t idx = arg_parts(r, k, v1, sizeof v1, 0);
    snprintf(buf, size, "index = %" PRId64 ", value = %s", idx, v1);
    return;
  }
  cli_format_value(v0, sizeof v0, r->rdtype, out_value(r, k, 0), json);
  if (r->width == 1) { snprintf(buf, size, "%s", v0); return; }
  cli_format_value(v1, sizeof v1, r->rdtype, out_value(r, k, 1), json);
  if (json) snprintf(buf, size, "[%s,%s]", v0, v1);
  else if (r->a->op == TALLY_MINMAX) snprintf(buf, size, "min = %s, max = %s", v0, v1);
  else snprintf(buf, size, "a = %s, b = %s", v0, v1);
}

static void print_text(const result *r) {
  const char *op = tally_op_name(r->a->op);
  const char *dt = tally_dtype_name(r->in->dtype);
  char line[256], shape[64];
  if (r->axis < 0) {
    slice_text(line, sizeof line, r, 0, 0);
    printf("%s%s%s (%s, n = %" PRId64 ")\n", op, r->width == 1 && !r->arg ? " = " : ": ", line, dt,
           count_of(r->in));
    return;
  }
  snprintf(shape, sizeof shape, "%" PRId64 " x %" PRId64, r->in->shape[0], r->in->shape[1]);
  printf("%s over axis %d (%s, %s): %" PRId64 " result%s\n", op, r->axis, dt, shape, r->slices,
         r->slices == 1 ? "" : "s");
  for (int64_t k = 0; k < r->slices; k++) {
    slice_text(line, sizeof line, r, k, 0);
    printf("  %" PRId64 ": %s\n", k, line);
  }
}

static void print_json(const result *r) {
  char buf[256];
  printf("{\"op\":\"%s\",\"dtype\":\"%s\",\"result_dtype\":\"%s\",\"n\":%" PRId64,
         tally_op_name(r->a->op), tally_dtype_name(r->in->dtype), tally_dtype_name(r->rdtype),
         count_of(r->in));
  if (r->in->ndim == 2) printf(",\"shape\":[%" PRId64 ",%" PRId64 "]", r->in->shape[0], r->in->shape[1]);
  if (r->axis >= 0) printf(",\"axis\":%d", r->axis);
  int list = r->axis >= 0;
  const char *lb = list ? "[" : "", *rb = list ? "]" : "";
  if (r->arg) {
    printf(",\"index\":%s", lb);
    for (int64_t k = 0; k < r->slices; k++)
      printf("%s%" PRId64, k ? "," : "", arg_parts(r, k, buf, sizeof buf, 1));
    printf("%s,\"result\":%s", rb, lb);
    for (int64_t k = 0; k < r->slices; k++) {
      arg_parts(r, k, buf, sizeof buf, 1);
      printf("%s%s", k ? "," : "", buf);
    }
  } else {
    printf(",\"result\":%s", lb);
    for (int64_t k = 0; k < r->slices; k++) {
      slice_text(buf, sizeof buf, r, k, 1);
      printf("%s%s", k ? "," : "", buf);
    }
  }
  fputs(rb, stdout);
  puts("}");
}

int tally_cmd_reduce(int argc, char **argv) {
  reduce_args a;
  int rc = parse_args(argc, argv, &a);
  if (rc >= 0) return rc;

  io_data d[2];
  memset(d, 0, sizeof d);
  char err[1024];
  tally_context *ctx = NULL;
  void *outbuf = NULL;
  for (int i = 0; i < a.nfiles; i++) {
    if ((rc = io_load(a.files[i], &a.io, &d[i], err, sizeof err))) {
      cli_error("%s", err);
      goto done;
    }
  }

  tally_array in, in2;
  int binary = a.op == TALLY_DOT || a.op == TALLY_AFFINE;
  if (binary) {
    if ((rc = binary_inputs(&a, d, &in, &in2))) goto done;
  } else {
    in = array_of(&d[0]);
  }
  int axis = a.opt.axis;
  if (in.ndim == 1 && axis == 0) axis = -1; /* as numpy: axis 0 of a 1-D array is all of it */
  if (in.ndim == 1 && axis == 1) {
    cli_error("--axis 1: %s is 1-D (%" PRId64 " elements); axis 1 needs a 2-D input", d[0].path,
              in.shape[0]);
    rc = CLI_EXIT_FAIL;
    goto done;
  }
  a.opt.axis = axis;

  tally_dtype rdtype;
  tally_status s = tally_result_dtype(a.op, in.dtype, &rdtype);
  if (s) { rc = cli_lib_error(NULL, s); goto done; }
  int width = tally_result_width(a.op);
  int64_t slices = axis < 0 ? 1 : axis == 0 ? in.shape[1] : in.shape[0];
  size_t rsize = tally_dtype_size(rdtype);
  size_t out_bytes = ((size_t)slices * (size_t)width * rsize + 63) & ~(size_t)63;
  outbuf = aligned_alloc(64, out_bytes ? out_bytes : 64);
  if (!outbuf) {
    cli_error("out of memory allocating %zu bytes for %" PRId64 " results", out_bytes, slices);
    rc = CLI_EXIT_FAIL;
    goto done;
  }
  tally_array out = width == 1 ? tally_array_1d(outbuf, rdtype, slices)
                               : tally_array_2d(outbuf, rdtype, slices, width);

  if ((s = tally_open(a.device, &ctx))) { rc = cli_lib_error(NULL, s); goto done; }

  progress pg;
  progress_start(&pg, tally_op_name(a.op), count_of(&in) * (int64_t)tally_dtype_size(in.dtype),
                 PROGRESS_REDUCE_BYTES);
  if (pg.active) {
    a.opt.progress = progress_update;
    a.opt.progress_user = &pg;
  }
  s = tally_reduce(ctx, a.op, &in, binary ? &in2 : NULL, &out, &a.opt);
  progress_finish(&pg);
  if (s) { rc = cli_lib_error(ctx, s); goto done; }

  result r = {&a, &in, rdtype, width, a.op == TALLY_ARGMIN || a.op == TALLY_ARGMAX, axis, slices,
              outbuf};
  if (a.json) print_json(&r);
  else print_text(&r);
  rc = 0;
  if (fflush(stdout) != 0) {
    cli_error("standard output: write failed");
    rc = CLI_EXIT_FAIL;
  }

done:
  tally_close(ctx);
  free(outbuf);
  for (int i = 0; i < 2; i++) io_release(&d[i]);
  return rc;
}

/* tally scan OP FILE [FILE2]: the prefix scan of a file's numbers, to a .npy file or
 * printed one value per line (or as JSON). */
#include "cli.h"
#include "commands.h"
#include "io.h"
#include "io_write.h"

#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char scan_usage[] =
    "usage: tally scan OP FILE [FILE2] [-o OUT.npy] [options]\n"
    "\n"
    "Every partial result of OP over FILE's numbers, in order (a prefix scan).\n"
    "\n"
    "OP: sum prod min max affine (affine: two files, or one file with two columns a, b;\n"
    "    the result is the pair (A, B) per element: x[k+1] = a[k]*x[k] + b[k] gives\n"
    "    x[k+1] = A[k]*x[0] + B[k])\n"
    "FILE: .npy, text (.csv, .tsv, .txt) or raw binary (with --dtype), 1-D or one column.\n"
    "\n"
    "options:\n"
    "  -o, --output FILE  write the result as .npy (default: print one value per line)\n"
    "  --exclusive        out[i] stops before in[i] (out[0] is the init value)\n"
    "  --init V           the value every segment starts from (affine: A,B); default the\n"
    "                     op's identity; it must fit the result dtype exactly\n"
    "  --accuracy MODE    default or fast\n"
    "  --nan MODE         propagate (default) or ignore (NaN counts as the identity, like\n"
    "                     numpy nancumsum)\n"
    "  --flags FILE       segments: a nonzero element i starts a new segment at i\n"
    "  --offsets FILE     segments: offsets 0 = o0 <= o1 <= ... <= on = n\n"
    "  --device STR       auto, cpu, cpu:threads=N, ... (default: $TALLY_DEVICE, else auto)\n"
    "  --variant NAME     GPU devices: hillis_steele, blelloch or four_kernel (the scan\n"
    "                     ladder; no segments), or best (the default)\n"
    "  --dtype T          element type of raw input, parsed type of text (default f64)\n"
    "  --column C         text input: a 0-based index or header name (affine: a,b)\n"
    "  --json             print one JSON object (instead of one value per line)\n"
    "  -h, --help         show this help\n"
    "\n"
    "bf16 results are written to .npy as f32 (exactly; numpy has no bf16).\n";

typedef struct {
  tally_op op;
  const char *files[2];
  int nfiles;
  const char *output, *init, *flags, *offsets, *device;
  io_options io;
  tally_scan_options opt;
  int json;
} scan_args;

static int parse_args(int argc, char **argv, scan_args *a) {
  enum { O_EXCL = 256, O_INIT, O_ACC, O_NAN, O_FLAGS, O_OFFSETS, O_DEVICE, O_DTYPE, O_COLUMN, O_JSON,
         O_VARIANT };
  static const struct option longopts[] = {
      {"output", required_argument, NULL, 'o'},   {"exclusive", no_argument, NULL, O_EXCL},
      {"init", required_argument, NULL, O_INIT},  {"accuracy", required_argument, NULL, O_ACC},
      {"nan", required_argument, NULL, O_NAN},    {"flags", required_argument, NULL, O_FLAGS},
      {"offsets", required_argument, NULL, O_OFFSETS}, {"device", required_argument, NULL, O_DEVICE},
      {"dtype", required_argument, NULL, O_DTYPE}, {"column", required_argument, NULL, O_COLUMN},
      {"json", no_argument, NULL, O_JSON},        {"help", no_argument, NULL, 'h'},
      {"variant", required_argument, NULL, O_VARIANT},
      {NULL, 0, NULL, 0},
  };
  memset(a, 0, sizeof *a);
  tally_scan_options_init(&a->opt);
  opterr = 0;
  optind = 1;
  int c;
  while ((c = getopt_long(argc, argv, ":ho:", longopts, NULL)) != -1) {
    switch (c) {
    case 'h': fputs(scan_usage, stdout); return 0;
    case 'o': a->output = optarg; break;
    case O_EXCL: a->opt.exclusive = 1; break;
    case O_INIT: a->init = optarg; break;
    case O_ACC:
      if (cli_parse_accuracy(optarg, &a->opt.accuracy)) return CLI_EXIT_USAGE;
      break;
    case O_NAN:
      if (cli_parse_nan(optarg, &a->opt.nan)) return CLI_EXIT_USAGE;
      break;
    case O_FLAGS: a->flags = optarg; break;
    case O_OFFSETS: a->offsets = optarg; break;
    case O_DEVICE: a->device = optarg; break;
    case O_DTYPE:
      if (cli_check_dtype(optarg)) return CLI_EXIT_USAGE;
      a->io.dtype = optarg;
      break;
    case O_COLUMN: a->io.column = optarg; break;
    case O_JSON: a->json = 1; break;
    case O_VARIANT: a->opt.variant = optarg; break; /* the library names a bad one */
    default: return cli_option_error(c, argv, "tally scan");
    }
  }
  if (a->flags && a->offsets) {
    cli_error("--flags and --offsets: give one of them");
    return CLI_EXIT_USAGE;
  }
  int npos = argc - optind;
  if (npos < 1) { cli_error("scan: missing OP and FILE (see tally scan --help)"); return CLI_EXIT_USAGE; }
  if (tally_op_from_name(argv[optind], &a->op) != TALLY_OK) {
    cli_error("%s", tally_errmsg(NULL));
    return CLI_EXIT_USAGE;
  }
  if (a->op != TALLY_SUM && a->op != TALLY_PROD && a->op != TALLY_MIN && a->op != TALLY_MAX &&
      a->op != TALLY_AFFINE) {
    cli_error("%s: has no scan (scans: sum, prod, min, max, affine)", argv[optind]);
    return CLI_EXIT_USAGE;
  }
  int binary = a->op == TALLY_AFFINE;
  if (npos < 2) { cli_error("scan: missing FILE (see tally scan --help)"); return CLI_EXIT_USAGE; }
  if (npos > (binary ? 3 : 2)) {
    cli_error("%s: op %s takes %s", argv[optind + (binary ? 3 : 2)], tally_op_name(a->op),
              binary ? "at most two files" : "one file (affine takes two)");
    return CLI_EXIT_USAGE;
  }
  a->nfiles = npos - 1;
  for (int i = 0; i < a->nfiles; i++) a->files[i] = argv[optind + 1 + i];
  return -1;
}

/* A 1-D view of d: 1-D data, or one column of 2-D data. */
static int one_d(const io_data *d, int col, tally_array *x) {
  if (d->ndim == 1) {
    *x = tally_array_strided(d->data, d->dtype, d->shape[0], d->strides[0] ? d->strides[0] : 1);
    return 0;
  }
  int64_t s0 = d->strides[0], s1 = d->strides[1];
  if (s0 == 0 && s1 == 0) s0 = d->shape[1], s1 = 1;
  if (col >= d->shape[1]) return -1;
  *x = tally_array_strided((char *)d->data + col * s1 * (int64_t)tally_dtype_size(d->dtype), d->dtype,
                           d->shape[0], s0);
  return 0;
}

/* The range of an integer dtype, as [lo, hi] of signed or unsigned values. */
static void int_range(tally_dtype t, long long *lo, unsigned long long *hi) {
  int bits = 8 * (int)tally_dtype_size(t);
  int uns = t == TALLY_U8 || t == TALLY_U16 || t == TALLY_U32 || t == TALLY_U64 || t == TALLY_BOOL;
  if (t == TALLY_BOOL) *lo = 0, *hi = 1;
  else if (uns) *lo = 0, *hi = bits == 64 ? ~0ULL : (1ULL << bits) - 1;
  else *lo = bits == 64 ? LLONG_MIN : -(1LL << (bits - 1)), *hi = bits == 64 ? LLONG_MAX : (1ULL << (bits - 1)) - 1;
}

/* One value of t from tok, exactly or refused (out of t's range, or not a number of it):
 * 0, or -1 with the reason in why. */
static int parse_value(const char *tok, tally_dtype t, void *v, char *why, size_t len) {
  char *end;
  errno = 0;
  if (t == TALLY_F32 || t == TALLY_F64 || t == TALLY_F16 || t == TALLY_BF16) {
    double d = strtod(tok, &end);
    if (*end || end == tok) { snprintf(why, len, "not a number of %s, the result dtype", tally_dtype_name(t)); return -1; }
    float f = (float)d;
    uint16_t h = t == TALLY_F16 ? tally_f32_to_f16(f) : tally_f32_to_bf16(f);
    double back = t == TALLY_F64 ? d : t == TALLY_F32 ? f : t == TALLY_F16 ? tally_f16_to_f32(h)
                                                                         : tally_bf16_to_f32(h);
    if ((errno == ERANGE && isinf(d)) || (isfinite(d) && !isfinite(back))) {
      snprintf(why, len, "out of the range of %s, the result dtype", tally_dtype_name(t));
      return -1;
    }
    if (t == TALLY_F64) memcpy(v, &d, 8);
    else if (t == TALLY_F32) memcpy(v, &f, 4);
    else memcpy(v, &h, 2);
    return 0;
  }
  long long lo;
  unsigned long long hi;
  int_range(t, &lo, &hi);
  const char *p = tok;
  while (isspace((unsigned char)*p)) p++;
  int neg = *p == '-';
  long long sv = 0;
  unsigned long long uv = 0;
  if (neg) sv = strtoll(tok, &end, 10);
  else uv = strtoull(tok, &end, 10);
  if (*end || end == tok) {
    strtod(tok, &end);
    snprintf(why, len, "not %s of %s, the result dtype", *end || end == tok ? "a number" : "an integer",
             tally_dtype_name(t));
    return -1;
  }
  if (errno == ERANGE || (neg ? sv < lo : uv > hi)) {
    snprintf(why, len, "out of the range of %s, the result dtype (%lld..%llu)", tally_dtype_name(t), lo, hi);
    return -1;
  }
  uint64_t bits = neg ? (uint64_t)sv : (uint64_t)uv;
  memcpy(v, &bits, tally_dtype_size(t)); /* little-endian: the low bytes */
  return 0;
}

/* Parse "V" or (width 2) "A,B" into values of t: 0, or -1 with the reason in why. */
static int parse_init(const char *s, tally_dtype t, int width, void *out, char *why, size_t len) {
  char buf[128];
  snprintf(buf, sizeof buf, "%s", s);
  char *save = NULL, *tok = strtok_r(buf, ",", &save);
  snprintf(why, len, "not %s of %s (the result dtype)", width == 2 ? "two numbers A,B" : "a number",
           tally_dtype_name(t));
  for (int w = 0; w < width; w++, tok = strtok_r(NULL, ",", &save)) {
    if (!tok) return -1;
    char sub[160];
    if (parse_value(tok, t, (char *)out + w * (int64_t)tally_dtype_size(t), sub, sizeof sub)) {
      snprintf(why, len, "%s%s%s", width == 2 ? tok : "", width == 2 ? ": " : "", sub);
      return -1;
    }
  }
  return tok ? -1 : 0;
}

int tally_cmd_scan(int argc, char **argv) {
  scan_args a;
  int rc = parse_args(argc, argv, &a);
  if (rc >= 0) return rc;
  io_data d[2], seg;
  memset(d, 0, sizeof d);
  memset(&seg, 0, sizeof seg);
  char err[1024];
  tally_context *ctx = NULL;
  void *outbuf = NULL;
  uint8_t *flags = NULL;
  int64_t *offsets = NULL;
  for (int i = 0; i < a.nfiles; i++)
    if ((rc = io_load(a.files[i], &a.io, &d[i], err, sizeof err))) {
      cli_error("%s", err);
      goto done;
    }
  tally_array in, in2;
  int binary = a.op == TALLY_AFFINE;
  if (binary && a.nfiles == 1) {
    if (d[0].ndim != 2 || d[0].shape[1] != 2) {
      cli_error("%s: affine needs two files, or one file with two columns", d[0].path);
      rc = CLI_EXIT_FAIL;
      goto done;
    }
    one_d(&d[0], 0, &in);
    one_d(&d[0], 1, &in2);
  } else {
    for (int i = 0; i < a.nfiles; i++) {
      if (d[i].ndim == 2 && d[i].shape[1] != 1) {
        cli_error("%s: %" PRId64 " x %" PRId64 ": scans take 1-D input (or one column: --column)",
                  d[i].path, d[i].shape[0], d[i].shape[1]);
        rc = CLI_EXIT_FAIL;
        goto done;
      }
      one_d(&d[i], 0, i ? &in2 : &in);
    }
    if (binary && (in.dtype != in2.dtype || in.shape[0] != in2.shape[0])) {
      cli_error("%s: %s of %" PRId64 " elements, but %s has %s of %" PRId64 " (affine needs the same)",
                d[1].path, tally_dtype_name(in2.dtype), in2.shape[0], d[0].path,
                tally_dtype_name(in.dtype), in.shape[0]);
      rc = CLI_EXIT_FAIL;
      goto done;
    }
  }
  int64_t n = in.shape[0];
  tally_dtype rd = in.dtype;
  if (a.op != TALLY_MIN && a.op != TALLY_MAX) {
    tally_status s = tally_result_dtype(a.op, in.dtype, &rd);
    if (s) { rc = cli_lib_error(NULL, s); goto done; }
  }
  int W = binary ? 2 : 1;
  size_t rs = tally_dtype_size(rd);
  unsigned char init[16];
  if (a.init) {
    char why[256];
    if (parse_init(a.init, rd, W, init, why, sizeof why)) {
      cli_error("--init %s: %s", a.init, why);
      rc = CLI_EXIT_USAGE;
      goto done;
    }
    a.opt.init = init;
  }
  if (a.flags || a.offsets) {
    const char *path = a.flags ? a.flags : a.offsets;
    size_t pl = strlen(path);
    io_options plain = {0};
    if (pl < 4 || strcmp(path + pl - 4, ".npy") != 0) plain.dtype = "i64"; /* text or raw */
    if ((rc = io_load(path, &plain, &seg, err, sizeof err))) { cli_error("%s", err); goto done; }
    tally_array s;
    if (seg.ndim != 1 || tally_dtype_size(seg.dtype) == 0 || one_d(&seg, 0, &s) ||
        seg.dtype == TALLY_F16 || seg.dtype == TALLY_BF16 || seg.dtype == TALLY_F32 || seg.dtype == TALLY_F64) {
      cli_error("%s: segments need a 1-D file of integers", path);
      rc = CLI_EXIT_FAIL;
      goto done;
    }
    int64_t m = s.shape[0], st = s.strides[0], es = (int64_t)tally_dtype_size(s.dtype);
    int64_t *vals = malloc(sizeof(int64_t) * (size_t)(m + 1));
    if (!vals) { cli_error("out of memory"); rc = CLI_EXIT_FAIL; goto done; }
    for (int64_t i = 0; i < m; i++) {
      int64_t v = 0;
      const char *p = (const char *)s.data + i * st * es;
      switch (s.dtype) {
      case TALLY_I8: v = *(const int8_t *)p; break;
      case TALLY_I16: v = *(const int16_t *)p; break;
      case TALLY_I32: v = *(const int32_t *)p; break;
      case TALLY_I64: case TALLY_U64: memcpy(&v, p, 8); break;
      case TALLY_U16: v = *(const uint16_t *)p; break;
      case TALLY_U32: v = *(const uint32_t *)p; break;
      default: v = *(const uint8_t *)p; break;
      }
      vals[i] = v;
    }
    if (a.flags) {
      if (m != n) {
        cli_error("%s: %" PRId64 " flags for %" PRId64 " elements", path, m, n);
        free(vals);
        rc = CLI_EXIT_FAIL;
        goto done;
      }
      flags = malloc((size_t)n + 1);
      if (!flags) { free(vals); cli_error("out of memory"); rc = CLI_EXIT_FAIL; goto done; }
      for (int64_t i = 0; i < n; i++) flags[i] = vals[i] != 0;
      free(vals);
      a.opt.flags = flags;
    } else {
      offsets = vals;
      a.opt.offsets = offsets;
      a.opt.nsegments = m - 1;
      if (m < 1) {
        cli_error("%s: no offsets (at least 0 and n)", path);
        rc = CLI_EXIT_FAIL;
        goto done;
      }
    }
  }
  size_t bytes = ((size_t)n * W * rs + 63) & ~(size_t)63;
  outbuf = aligned_alloc(64, bytes ? bytes : 64);
  if (!outbuf) { cli_error("out of memory for %" PRId64 " results", n); rc = CLI_EXIT_FAIL; goto done; }
  tally_array out = W == 2 ? tally_array_2d(outbuf, rd, n, 2) : tally_array_1d(outbuf, rd, n);
  tally_status s = tally_open(a.device, &ctx);
  if (s) { rc = cli_lib_error(NULL, s); goto done; }
  s = tally_scan(ctx, a.op, &in, binary ? &in2 : NULL, &out, &a.opt);
  if (s) { rc = cli_lib_error(ctx, s); goto done; }
  if (a.output) {
    tally_dtype wt = rd;
    if (rd == TALLY_BF16) { /* as f32, in place from the end (4 bytes from 2) */
      void *f = aligned_alloc(64, ((size_t)n * W * 4 + 63) & ~(size_t)63);
      if (!f) { cli_error("out of memory"); rc = CLI_EXIT_FAIL; goto done; }
      for (int64_t i = 0; i < n * W; i++) ((float *)f)[i] = tally_bf16_to_f32(((uint16_t *)outbuf)[i]);
      free(outbuf);
      outbuf = f;
      wt = TALLY_F32;
    }
    int64_t shape[2] = {n, W};
    if (io_write_npy(a.output, wt, W == 2 ? 2 : 1, shape, outbuf, err, sizeof err)) {
      cli_error("%s", err);
      rc = CLI_EXIT_FAIL;
      goto done;
    }
  } else {
    char v[64];
    if (a.json) {
      printf("{\"op\":\"%s\",\"dtype\":\"%s\",\"result_dtype\":\"%s\",\"n\":%" PRId64 ",\"exclusive\":%s,\"result\":[",
             tally_op_name(a.op), tally_dtype_name(in.dtype), tally_dtype_name(rd), n,
             a.opt.exclusive ? "true" : "false");
      for (int64_t i = 0; i < n; i++) {
        if (W == 2) {
          char v1[64];
          cli_format_value(v, sizeof v, rd, (char *)outbuf + (2 * i) * rs, 1);
          cli_format_value(v1, sizeof v1, rd, (char *)outbuf + (2 * i + 1) * rs, 1);
          printf("%s[%s,%s]", i ? "," : "", v, v1);
        } else {
          cli_format_value(v, sizeof v, rd, (char *)outbuf + i * rs, 1);
          printf("%s%s", i ? "," : "", v);
        }
      }
      puts("]}");
    } else {
      for (int64_t i = 0; i < n; i++) {
        cli_format_value(v, sizeof v, rd, (char *)outbuf + i * W * rs, 0);
        if (W == 2) {
          char v1[64];
          cli_format_value(v1, sizeof v1, rd, (char *)outbuf + (i * W + 1) * rs, 0);
          printf("%s %s\n", v, v1);
        } else {
          puts(v);
        }
      }
    }
    if (fflush(stdout) != 0) { cli_error("standard output: write failed"); rc = CLI_EXIT_FAIL; goto done; }
  }
  rc = 0;
done:
  tally_close(ctx);
  free(outbuf);
  free(flags);
  free(offsets);
  for (int i = 0; i < 2; i++) io_release(&d[i]);
  io_release(&seg);
  return rc;
}

/* Helpers shared by the CLI's subcommands. */
#include "cli.h"
#include "io.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <getopt.h>
#include <string.h>

void cli_error(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fputs("tally: ", stderr);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
}

int cli_lib_error(const tally_context *ctx, tally_status s) {
  const char *msg = tally_errmsg(ctx);
  if (!*msg) msg = tally_status_str(s);
  cli_error("%s [%s]", msg, tally_status_name(s));
  return CLI_EXIT_FAIL;
}

int cli_parse_i64(const char *s, long long lo, long long hi, long long *out) {
  if (!s || !*s) return -1;
  char *end;
  errno = 0;
  long long v = strtoll(s, &end, 10);
  if (errno || *end || v < lo || v > hi) return -1;
  *out = v;
  return 0;
}

void cli_json_string(FILE *f, const char *s) {
  fputc('"', f);
  for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
    switch (*p) {
    case '"': fputs("\\\"", f); break;
    case '\\': fputs("\\\\", f); break;
    case '\n': fputs("\\n", f); break;
    case '\t': fputs("\\t", f); break;
    case '\r': fputs("\\r", f); break;
    default:
      if (*p < 0x20) fprintf(f, "\\u%04x", *p);
      else fputc(*p, f);
    }
  }
  fputc('"', f);
}

static void format_float(char *buf, size_t size, double v, int digits, int json) {
  const char *q = json ? "\"" : "";
  if (isnan(v)) snprintf(buf, size, "%snan%s", q, q); /* never "-nan" */
  else if (isinf(v)) snprintf(buf, size, "%s%sinf%s", q, v < 0 ? "-" : "", q);
  else snprintf(buf, size, "%.*g", digits, v);
}

void cli_format_value(char *buf, size_t size, tally_dtype t, const void *p, int json) {
  switch (t) {
  case TALLY_BOOL: snprintf(buf, size, "%s", *(const uint8_t *)p ? "true" : "false"); break;
  case TALLY_I8: snprintf(buf, size, "%d", *(const int8_t *)p); break;
  case TALLY_I16: snprintf(buf, size, "%d", *(const int16_t *)p); break;
  case TALLY_I32: snprintf(buf, size, "%" PRId32, *(const int32_t *)p); break;
  case TALLY_I64: snprintf(buf, size, "%" PRId64, *(const int64_t *)p); break;
  case TALLY_U8: snprintf(buf, size, "%u", *(const uint8_t *)p); break;
  case TALLY_U16: snprintf(buf, size, "%u", *(const uint16_t *)p); break;
  case TALLY_U32: snprintf(buf, size, "%" PRIu32, *(const uint32_t *)p); break;
  case TALLY_U64: snprintf(buf, size, "%" PRIu64, *(const uint64_t *)p); break;
  case TALLY_F16: format_float(buf, size, tally_f16_to_f32(*(const uint16_t *)p), 5, json); break;
  case TALLY_BF16: format_float(buf, size, tally_bf16_to_f32(*(const uint16_t *)p), 4, json); break;
  case TALLY_F32: format_float(buf, size, *(const float *)p, 9, json); break;
  case TALLY_F64: format_float(buf, size, *(const double *)p, 17, json); break;
  default: snprintf(buf, size, "?"); break;
  }
}

int cli_parse_accuracy(const char *s, tally_accuracy *out) {
  if (strcmp(s, "default") == 0) *out = TALLY_ACCURACY_DEFAULT;
  else if (strcmp(s, "fast") == 0) *out = TALLY_ACCURACY_FAST;
  else {
    cli_error("--accuracy %s: must be default or fast", s);
    return CLI_EXIT_USAGE;
  }
  return 0;
}

int cli_parse_nan(const char *s, tally_nan *out) {
  if (strcmp(s, "propagate") == 0) *out = TALLY_NAN_PROPAGATE;
  else if (strcmp(s, "ignore") == 0) *out = TALLY_NAN_IGNORE;
  else {
    cli_error("--nan %s: must be propagate or ignore", s);
    return CLI_EXIT_USAGE;
  }
  return 0;
}

int cli_check_dtype(const char *s) {
  tally_dtype t;
  char err[256];
  if (io_parse_dtype(s, &t, err, sizeof err)) {
    cli_error("%s", err);
    return CLI_EXIT_USAGE;
  }
  return 0;
}

int cli_option_error(int c, char *const *argv, const char *cmd) {
  if (c == ':') cli_error("%s: missing value", argv[optind - 1]);
  else if (optopt) cli_error("-%c: unknown option (see %s --help)", optopt, cmd);
  else cli_error("%s: unknown option (see %s --help)", argv[optind - 1], cmd);
  return CLI_EXIT_USAGE;
}

/* tally_golden [DEVICE]: every row of the golden table, the value of every op on empty
 * input for every dtype, and the result dtype and width of every (op, dtype). Exit 0 / 1,
 * or 77 when the device cannot be opened here. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "elem.h"
#include "golden.h"
#include "sanitized.h"

static int failures, checks;

static void fail(const char *fmt, const char *a, const char *b, const char *c) {
  failures++;
  printf("FAIL ");
  printf(fmt, a, b, c);
  printf("\n");
}

/* Parse space-separated values into elements of dt; returns the count. */
static int parse(tally_dtype dt, const char *text, unsigned char *buf, int cap) {
  char copy[512];
  snprintf(copy, sizeof copy, "%s", text ? text : "");
  int n = 0;
  for (char *tok = strtok(copy, " "); tok && n < cap; tok = strtok(NULL, " "), n++) {
    if (strncmp(tok, "0x", 2) == 0) tt_store_bits(dt, buf, n, strtoull(tok, NULL, 16));
    else if (tt_is_float(dt)) tt_store_f(dt, buf, n, strtod(tok, NULL)); /* nan, inf too */
    else if (tt_is_unsigned(dt) || dt == TALLY_BOOL) tt_store_bits(dt, buf, n, strtoull(tok, NULL, 10));
    else tt_store_int(dt, buf, n, strtoll(tok, NULL, 10));
  }
  return n;
}

/* Does result value r (bits of rd) match the expectation token? */
static int matches(tally_dtype rd, tally_dtype in_dt, uint64_t r, const char *tok) {
  unsigned char b[8];
  if (strcmp(tok, "nan") == 0) { /* a quiet NaN: the top mantissa bit set */
    int mant = rd == TALLY_F16 ? 10 : rd == TALLY_BF16 ? 7 : rd == TALLY_F32 ? 23 : 52;
    return tt_bits_isnan(rd, r) && ((r >> (mant - 1)) & 1);
  }
  if (strcmp(tok, "ones") == 0)
    return in_dt == TALLY_BOOL ? r == 1 : r == (uint64_t)(unsigned __int128)tt_int_max(TALLY_U64) >> (64 - tt_bits(rd));
  if (tok[0] == '~') {
    double want = strtod(tok + 1, NULL);
    tt_store_bits(rd, b, 0, r);
    double got = tt_load_f(rd, b, 0);
    int mant = rd == TALLY_F64 ? 52 : 23, emin = rd == TALLY_F64 ? -1022 : -126;
    int e = want != 0 ? ilogb(want) : emin;
    if (e < emin) e = emin;
    return fabs(got - want) <= 2 * ldexp(1.0, e - mant);
  }
  parse(rd, tok, b, 1);
  if (rd == TALLY_BOOL) return r == (tt_load_bits(rd, b, 0) != 0);
  return r == tt_load_bits(rd, b, 0);
}

static void run_row(tally_context *ctx, const golden_row *g) {
  unsigned char x[8 * 32], y[8 * 32], out[16];
  int n = parse(g->dt, g->x, x, 32);
  if (g->y) parse(g->dt, g->y, y, 32);
  int ok;
  tally_dtype rd = tt_result_dtype(g->op, g->dt, &ok);
  int w = tt_width(g->op);
  tally_array in = tally_array_1d(x, g->dt, n), in2 = tally_array_1d(y, g->dt, n);
  tally_array o = tally_array_1d(out, ok ? rd : TALLY_I64, w);
  tally_options opt;
  tally_options_init(&opt);
  if (g->flags & G_IGNORE) opt.nan = TALLY_NAN_IGNORE;
  if (g->flags & G_FAST) opt.accuracy = TALLY_ACCURACY_FAST;
  opt.ddof = (g->flags & G_DDOF1) ? 1 : (g->flags & G_DDOF2) ? 2 : 0;
  opt.host_input = TALLY_HOST_INPUT_DEVICE; /* on a GPU, the GPU's kernels (AUTO: the host's) */
  memset(out, 0xa5, sizeof out);
  checks++;
  tally_status s = tally_reduce(ctx, g->op, &in, g->y ? &in2 : NULL, &o, &opt);
  char desc[256];
  snprintf(desc, sizeof desc, "%s (%s %s [%s]%s%s)", g->what, tally_op_name(g->op),
           tally_dtype_name(g->dt), g->x, g->y ? " [" : "", g->y ? g->y : "");
  if (s != g->status) {
    fail("%s: status %s, expected %s", desc, tally_status_name(s), tally_status_name(g->status));
    return;
  }
  if (s != TALLY_OK) return;
  char want[128];
  snprintf(want, sizeof want, "%s", g->want);
  char *save, *tok = strtok_r(want, " ", &save);
  for (int i = 0; i < w && tok; i++, tok = strtok_r(NULL, " ", &save)) {
    uint64_t r = tt_load_bits(rd, out, i);
    if (!matches(rd, g->dt, r, tok)) {
      char got[64];
      if (tt_is_float(rd)) snprintf(got, sizeof got, "%.17g (0x%llx)", tt_load_f(rd, out, i), (unsigned long long)r);
      else snprintf(got, sizeof got, "%lld (0x%llx)", (long long)(int64_t)tt_load_int(rd, out, i), (unsigned long long)r);
      fail("%s: got %s, expected %s", desc, got, tok);
      return;
    }
  }
}

/* Every op on an empty input of every dtype. */
static void run_empty(tally_context *ctx) {
  for (int op = 0; op < TALLY_OP_COUNT_; op++)
    for (int dt = 0; dt < TALLY_DTYPE_COUNT_; dt++) {
      int ok;
      tt_result_dtype((tally_op)op, (tally_dtype)dt, &ok);
      if (!ok) continue;
      golden_row g = {"empty input", (tally_op)op, (tally_dtype)dt, "", NULL, 0, TALLY_OK,
                      golden_empty[op]};
      if (strcmp(g.want, "EEMPTY") == 0) g.status = TALLY_EEMPTY;
      if (op == TALLY_DOT || op == TALLY_AFFINE) g.y = "";
      run_row(ctx, &g);
    }
}

static tally_dtype dtype_named(const char *s, int *ok) {
  *ok = 1;
  for (int dt = 0; dt < TALLY_DTYPE_COUNT_; dt++) {
    static const char *const names[] = {"bool", "i8",  "i16", "i32", "i64", "u8", "u16",
                                        "u32",  "u64", "f16", "bf16", "f32", "f64"};
    if (strcmp(s, names[dt]) == 0) return (tally_dtype)dt;
  }
  *ok = 0;
  return TALLY_BOOL;
}

static void run_result_dtypes(void) {
  for (int op = 0; op < TALLY_OP_COUNT_; op++) {
    char row[256];
    snprintf(row, sizeof row, "%s", golden_result_dtypes[op]);
    int dt = 0;
    char *save;
    for (char *tok = strtok_r(row, " ", &save); tok; tok = strtok_r(NULL, " ", &save), dt++) {
      int defined;
      tally_dtype want = dtype_named(tok, &defined), got = (tally_dtype)-1;
      tally_status s = tally_result_dtype((tally_op)op, (tally_dtype)dt, &got);
      checks++;
      const char *opn = tally_op_name((tally_op)op), *dtn = tally_dtype_name((tally_dtype)dt);
      if (defined && (s != TALLY_OK || got != want))
        fail("result dtype of %s on %s: got %s", opn, dtn, s ? tally_status_name(s) : tally_dtype_name(got));
      else if (!defined && s != TALLY_EUNSUPPORTED)
        fail("result dtype of %s on %s: %s, expected TALLY_EUNSUPPORTED", opn, dtn, tally_status_name(s));
    }
    if (dt != TALLY_DTYPE_COUNT_) fail("golden table row for %s has the wrong length%s%s", tally_op_name((tally_op)op), "", "");
    int width = op == TALLY_MINMAX || op == TALLY_AFFINE ? 2 : 1;
    checks++;
    if (tally_result_width((tally_op)op) != width)
      fail("result width of %s is wrong%s%s", tally_op_name((tally_op)op), "", "");
  }
  tally_dtype d;
  checks += 3;
  if (tally_result_width(TALLY_OP_COUNT_) != 0) fail("result width of an unknown op is not 0%s%s%s", "", "", "");
  if (tally_result_dtype(TALLY_OP_COUNT_, TALLY_F32, &d) != TALLY_EINVAL) fail("result dtype of an unknown op%s%s%s", "", "", "");
  if (tally_result_dtype(TALLY_SUM, TALLY_DTYPE_COUNT_, &d) != TALLY_EINVAL) fail("result dtype of an unknown dtype%s%s%s", "", "", "");
}

int main(int argc, char **argv) {
  const char *device = argc > 1 ? argv[1] : "cpu";
  if (tt_skip_sanitized_opencl(device)) return 77;
  tally_context *ctx;
  tally_status s = tally_open(device, &ctx);
  if (s == TALLY_EUNSUPPORTED || s == TALLY_ENODEV || s == TALLY_EDRIVER) {
    printf("SKIP: %s: %s\n", device, tally_errmsg(NULL));
    return 77;
  }
  if (s != TALLY_OK) {
    printf("FAIL: tally_open(%s): %s\n", device, tally_errmsg(NULL));
    return 1;
  }
  for (int i = 0; i < golden_nrows; i++) run_row(ctx, &golden_rows[i]);
  run_empty(ctx);
  run_result_dtypes();
  tally_close(ctx);
  printf("%s: %d checks (%d rows), %d failures on %s\n", failures ? "FAILED" : "PASSED", checks,
         golden_nrows, failures, device);
  return failures ? 1 : 0;
}

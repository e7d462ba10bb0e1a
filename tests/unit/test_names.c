/* dtype and op names: printing, parsing, aliases, case, bad names; sizes; version. */
#include <stdlib.h>

#include "check.h"
#include "tally.h"

static void dtype_parses(const char *name, tally_dtype want) {
  tally_dtype got = (tally_dtype)-1;
  tally_status s = tally_dtype_from_name(name, &got);
  CHECK(s == TALLY_OK && got == want, "dtype '%s': %s, %d (expected %d)", name,
        tally_status_name(s), (int)got, (int)want);
}

static void dtype_refused(const char *name) {
  tally_dtype got = TALLY_F32;
  tally_status s = tally_dtype_from_name(name, &got);
  CHECK(s == TALLY_EINVAL, "dtype '%s' was accepted (%s)", name ? name : "NULL", tally_status_name(s));
  if (name && *name)
    CHECK(tu_contains(tally_errmsg(NULL), name), "message for dtype '%s' does not name it: %s", name,
          tally_errmsg(NULL));
}

static void op_parses(const char *name, tally_op want) {
  tally_op got = (tally_op)-1;
  tally_status s = tally_op_from_name(name, &got);
  CHECK(s == TALLY_OK && got == want, "op '%s': %s, %d (expected %d)", name, tally_status_name(s),
        (int)got, (int)want);
}

static void op_refused(const char *name) {
  tally_op got = TALLY_SUM;
  tally_status s = tally_op_from_name(name, &got);
  CHECK(s == TALLY_EINVAL, "op '%s' was accepted (%s)", name ? name : "NULL", tally_status_name(s));
  if (name && *name)
    CHECK(tu_contains(tally_errmsg(NULL), name), "message for op '%s' does not name it: %s", name,
          tally_errmsg(NULL));
}

int main(void) {
  /* dtypes: names, sizes, parsing of every name and the aliases */
  static const struct { tally_dtype t; const char *name, *alias; size_t size; } dts[] = {
      {TALLY_BOOL, "bool", "bool", 1}, {TALLY_I8, "i8", "int8", 1},
      {TALLY_I16, "i16", "int16", 2},  {TALLY_I32, "i32", "int32", 4},
      {TALLY_I64, "i64", "int64", 8},  {TALLY_U8, "u8", "uint8", 1},
      {TALLY_U16, "u16", "uint16", 2}, {TALLY_U32, "u32", "uint32", 4},
      {TALLY_U64, "u64", "uint64", 8}, {TALLY_F16, "f16", "float16", 2},
      {TALLY_BF16, "bf16", "bfloat16", 2}, {TALLY_F32, "f32", "float32", 4},
      {TALLY_F64, "f64", "float64", 8}};
  CHECK(sizeof dts / sizeof dts[0] == TALLY_DTYPE_COUNT_, "dtype count %d", (int)TALLY_DTYPE_COUNT_);
  for (size_t i = 0; i < sizeof dts / sizeof dts[0]; i++) {
    const char *n = tally_dtype_name(dts[i].t);
    CHECK(n && strcmp(n, dts[i].name) == 0, "name of dtype %d: %s", (int)dts[i].t, n ? n : "NULL");
    CHECK(tally_dtype_size(dts[i].t) == dts[i].size, "size of %s: %zu", dts[i].name, tally_dtype_size(dts[i].t));
    dtype_parses(dts[i].name, dts[i].t);
    dtype_parses(dts[i].alias, dts[i].t);
  }
  const int bad_dt[] = {-1, TALLY_DTYPE_COUNT_, 99};
  for (int i = 0; i < 3; i++) {
    CHECK(tally_dtype_name((tally_dtype)bad_dt[i]) == NULL, "name of dtype %d is not NULL", bad_dt[i]);
    CHECK(tally_dtype_size((tally_dtype)bad_dt[i]) == 0, "size of dtype %d is not 0", bad_dt[i]);
  }
  dtype_refused("f31");
  dtype_refused("f128");
  dtype_refused("int128");
  dtype_refused("");
  dtype_refused(NULL);
  CHECK(tally_dtype_from_name("f32", NULL) == TALLY_EINVAL, "dtype_from_name with out NULL");

  /* ops: names and parsing, case-insensitive */
  static const char *const ops[] = {"sum", "prod", "min", "max", "minmax", "argmin", "argmax",
                                    "mean", "var", "std", "sumsq", "norm2", "dot", "any", "all",
                                    "count_nonzero", "bitand", "bitor", "bitxor", "affine"};
  CHECK(sizeof ops / sizeof ops[0] == TALLY_OP_COUNT_, "op count %d", (int)TALLY_OP_COUNT_);
  for (int i = 0; i < TALLY_OP_COUNT_; i++) {
    const char *n = tally_op_name((tally_op)i);
    CHECK(n && strcmp(n, ops[i]) == 0, "name of op %d: %s", i, n ? n : "NULL");
    op_parses(ops[i], (tally_op)i);
  }
  op_parses("SUM", TALLY_SUM);
  op_parses("ArgMax", TALLY_ARGMAX);
  op_parses("COUNT_NONZERO", TALLY_COUNT_NONZERO);
  op_parses("Norm2", TALLY_NORM2);
  CHECK(tally_op_name((tally_op)-1) == NULL, "name of op -1 is not NULL");
  CHECK(tally_op_name(TALLY_OP_COUNT_) == NULL, "name of op COUNT is not NULL");
  op_refused("summ");
  op_refused("su");
  op_refused("count nonzero");
  op_refused("");
  op_refused(NULL);
  CHECK(tally_op_from_name("sum", NULL) == TALLY_EINVAL, "op_from_name with out NULL");

  /* version */
  char v[32];
  snprintf(v, sizeof v, "%d.%d.%d", TALLY_VERSION_MAJOR, TALLY_VERSION_MINOR, TALLY_VERSION_PATCH);
  CHECK(tally_version() && strcmp(tally_version(), v) == 0, "version %s, header %s",
        tally_version() ? tally_version() : "NULL", v);
  return tu_done("names");
}

/* Result dtypes of every (op, dtype) and the value of every op on empty input, written out
 * from SEMANTICS.md's table. Columns: bool i8 i16 i32 i64 u8 u16 u32 u64 f16 bf16 f32 f64. */
#include "golden.h"

const char *const golden_result_dtypes[TALLY_OP_COUNT_] = {
    [TALLY_SUM] =           "i64  i64 i64 i64 i64 u64 u64 u64 u64 f32 f32  f32 f64",
    [TALLY_PROD] =          "i64  i64 i64 i64 i64 u64 u64 u64 u64 f32 f32  f32 f64",
    [TALLY_MIN] =           "bool i8  i16 i32 i64 u8  u16 u32 u64 f16 bf16 f32 f64",
    [TALLY_MAX] =           "bool i8  i16 i32 i64 u8  u16 u32 u64 f16 bf16 f32 f64",
    [TALLY_MINMAX] =        "bool i8  i16 i32 i64 u8  u16 u32 u64 f16 bf16 f32 f64",
    [TALLY_ARGMIN] =        "i64  i64 i64 i64 i64 i64 i64 i64 i64 i64 i64  i64 i64",
    [TALLY_ARGMAX] =        "i64  i64 i64 i64 i64 i64 i64 i64 i64 i64 i64  i64 i64",
    [TALLY_MEAN] =          "f64  f64 f64 f64 f64 f64 f64 f64 f64 f32 f32  f32 f64",
    [TALLY_VAR] =           "f64  f64 f64 f64 f64 f64 f64 f64 f64 f32 f32  f32 f64",
    [TALLY_STD] =           "f64  f64 f64 f64 f64 f64 f64 f64 f64 f32 f32  f32 f64",
    [TALLY_SUMSQ] =         "i64  i64 i64 i64 i64 u64 u64 u64 u64 f32 f32  f32 f64",
    [TALLY_NORM2] =         "f64  f64 f64 f64 f64 f64 f64 f64 f64 f32 f32  f32 f64",
    [TALLY_DOT] =           "i64  i64 i64 i64 i64 u64 u64 u64 u64 f32 f32  f32 f64",
    [TALLY_ANY] =           "bool bool bool bool bool bool bool bool bool bool bool bool bool",
    [TALLY_ALL] =           "bool bool bool bool bool bool bool bool bool bool bool bool bool",
    [TALLY_COUNT_NONZERO] = "i64  i64 i64 i64 i64 i64 i64 i64 i64 i64 i64  i64 i64",
    [TALLY_BITAND] =        "bool i8  i16 i32 i64 u8  u16 u32 u64 -   -    -   -",
    [TALLY_BITOR] =         "bool i8  i16 i32 i64 u8  u16 u32 u64 -   -    -   -",
    [TALLY_BITXOR] =        "bool i8  i16 i32 i64 u8  u16 u32 u64 -   -    -   -",
    [TALLY_AFFINE] =        "-    i64 i64 i64 i64 u64 u64 u64 u64 f32 f32  f32 f64",
};

/* "ones" is all ones in the input dtype (bool: true, 1). */
const char *const golden_empty[TALLY_OP_COUNT_] = {
    [TALLY_SUM] = "0",        [TALLY_PROD] = "1",        [TALLY_MIN] = "EEMPTY",
    [TALLY_MAX] = "EEMPTY",   [TALLY_MINMAX] = "EEMPTY", [TALLY_ARGMIN] = "EEMPTY",
    [TALLY_ARGMAX] = "EEMPTY", [TALLY_MEAN] = "EEMPTY",  [TALLY_VAR] = "EEMPTY",
    [TALLY_STD] = "EEMPTY",   [TALLY_SUMSQ] = "0",       [TALLY_NORM2] = "0",
    [TALLY_DOT] = "0",        [TALLY_ANY] = "0",         [TALLY_ALL] = "1",
    [TALLY_COUNT_NONZERO] = "0", [TALLY_BITAND] = "ones", [TALLY_BITOR] = "0",
    [TALLY_BITXOR] = "0",     [TALLY_AFFINE] = "1 0",
};

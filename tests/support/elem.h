/* Typed element access for the tests, written from the header's dtype list and not from
 * the library: sizes, kinds, loads and stores of single elements. */
#ifndef TT_ELEM_H
#define TT_ELEM_H

#include <stddef.h>
#include <stdint.h>

#include "tally.h"

int tt_is_float(tally_dtype t);    /* f16, bf16, f32, f64 */
int tt_is_signed(tally_dtype t);   /* i8..i64 */
int tt_is_unsigned(tally_dtype t); /* u8..u64 */
size_t tt_size(tally_dtype t);     /* bytes per element; 0 if unknown */
int tt_bits(tally_dtype t);        /* 8 * size */

/* Raw bit pattern of element i, zero-extended. */
uint64_t tt_load_bits(tally_dtype t, const void *base, int64_t i);
void tt_store_bits(tally_dtype t, void *base, int64_t i, uint64_t bits);
/* Value of element i as a double: exact for floats and for integers of up to 53 bits;
 * bool is 0 or 1. */
double tt_load_f(tally_dtype t, const void *base, int64_t i);
/* Exact integer value of element i (bool: 0 or 1; floats: not allowed). */
__int128 tt_load_int(tally_dtype t, const void *base, int64_t i);
/* Store a double rounded to nearest even into a float dtype, or an integer value
 * truncated modulo 2^bits into an integer dtype (bool: 0 or 1 from v != 0). */
void tt_store_f(tally_dtype t, void *base, int64_t i, double v);
void tt_store_int(tally_dtype t, void *base, int64_t i, __int128 v);

/* Floats: is this bit pattern a NaN / an infinity / a zero (either sign)? */
int tt_bits_isnan(tally_dtype t, uint64_t bits);
/* Non-zero test as ANY/ALL/COUNT_NONZERO see it (NaN nonzero, -0.0 zero). */
int tt_nonzero(tally_dtype t, const void *base, int64_t i);
int tt_isnan_at(tally_dtype t, const void *base, int64_t i);

/* Smallest and largest values of an integer dtype (bool: 0, 1). */
__int128 tt_int_min(tally_dtype t);
__int128 tt_int_max(tally_dtype t);

/* The result dtype of op on t by SEMANTICS.md, written out independently of the library;
 * returns 0 and sets *ok = 0 where the op is undefined on the dtype. */
tally_dtype tt_result_dtype(tally_op op, tally_dtype t, int *ok);
/* Values per slice: 2 for MINMAX and AFFINE, else 1. */
int tt_width(tally_op op);

#endif

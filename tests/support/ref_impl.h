/* Internal to the reference: the parts of tt_reference, one per file. */
#ifndef TT_REF_IMPL_H
#define TT_REF_IMPL_H

#include "ref.h"

/* Order, logic and bit ops (MIN, MAX, MINMAX, ARG*, ANY, ALL, COUNT_NONZERO, BIT*) on
 * every dtype: always exact. */
void tt__ref_order(const tt_spec *s, const void *x, int64_t n, tt_expect *e);
/* Arithmetic ops on integer and bool dtypes: exact with __int128 or modulo 2^64. */
void tt__ref_int(const tt_spec *s, const void *x, const void *y, int64_t n, tt_expect *e);
/* Arithmetic ops on float dtypes: exact references and the bounds of SEMANTICS.md. */
void tt__ref_float(const tt_spec *s, const void *x, const void *y, int64_t n, tt_expect *e);
/* VAR and STD on every dtype, integers and floats alike. */
void tt__ref_var(const tt_spec *s, const void *x, int64_t n, tt_expect *e);

#endif

/* The golden tests: SEMANTICS.md checked row by row on hand-written inputs with
 * hand-written expected outputs. */
#ifndef GOLDEN_H
#define GOLDEN_H

#include "tally.h"

/* Options of a row, as flags. */
enum { G_IGNORE = 1, G_FAST = 2, G_DDOF1 = 4, G_DDOF2 = 8 };

typedef struct {
  const char *what;      /* the rule being checked */
  tally_op op;
  tally_dtype dt;
  const char *x;         /* inputs: decimals, nan, -nan, inf, -inf, -0, or 0x bit patterns */
  const char *y;         /* the second input (DOT, AFFINE), else NULL */
  int flags;
  tally_status status;   /* expected status */
  const char *want;      /* expected values in the result dtype: exact decimal, 0x bits,
                            nan (any quiet NaN), or ~v (within two units in the last place) */
} golden_row;

extern const golden_row golden_rows[];
extern const int golden_nrows;

/* The result dtype of every (op, dtype), written out: "-" where the op is undefined. */
extern const char *const golden_result_dtypes[TALLY_OP_COUNT_];
/* The value of every op on empty input ("EEMPTY" where it has none). */
extern const char *const golden_empty[TALLY_OP_COUNT_];

#endif

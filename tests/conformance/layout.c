/* Input layouts: logical row-major data placed contiguously, strided, reversed, 2-D in C
 * order, transposed or with padded rows. Gaps between elements hold 0xFF bytes, a NaN in
 * every float dtype and -1 or the maximum in integer dtypes: a kernel that reads a gap
 * changes the result. */
#include <stdlib.h>
#include <string.h>

#include "elem.h"
#include "tc.h"

static const char *const names[TC_LAYOUT_COUNT] = {"contig", "stride3", "reverse",
                                                   "2d", "2d_transposed", "2d_padded"};

const char *tc_layout_name(tc_layout l) { return (unsigned)l < TC_LAYOUT_COUNT ? names[l] : "?"; }

void *tc_alloc(size_t bytes) {
  size_t sz = (bytes + 63) & ~(size_t)63;
  void *p = aligned_alloc(64, sz ? sz : 64);
  if (!p) {
    fprintf(stderr, "out of memory allocating %zu bytes\n", bytes);
    exit(2);
  }
  memset(p, 0, sz ? sz : 64);
  return p;
}

int tc_place(tc_layout l, tally_dtype dt, const void *logical, int64_t rows, int64_t cols,
             int offset, tc_placed *out) {
  int64_t n = rows * cols, es = (int64_t)tt_size(dt);
  int64_t phys; /* elements of the physical span */
  switch (l) {
  case TC_STRIDE3: phys = n ? 3 * n - 2 : 0; break;
  case TC_2D_PAD: phys = rows ? (rows - 1) * (cols + 3) + cols : 0; break;
  default: phys = n; break;
  }
  char *base = tc_alloc((size_t)((phys + offset + 1) * es));
  memset(base, 0xff, (size_t)((phys + offset + 1) * es));
  char *p = base + offset * es;
  out->alloc = base;
  for (int64_t r = 0; r < rows; r++)
    for (int64_t c = 0; c < cols; c++) {
      int64_t li = r * cols + c, at;
      switch (l) {
      case TC_STRIDE3: at = 3 * li; break;
      case TC_REVERSE: at = n - 1 - li; break;
      case TC_2D_T: at = c * rows + r; break;
      case TC_2D_PAD: at = r * (cols + 3) + c; break;
      default: at = li; break;
      }
      memcpy(p + at * es, (const char *)logical + li * es, (size_t)es);
    }
  switch (l) {
  case TC_CONTIG: out->arr = tally_array_1d(p, dt, n); break;
  case TC_STRIDE3: out->arr = tally_array_strided(p, dt, n, 3); break;
  case TC_REVERSE: out->arr = tally_array_strided(n ? p + (n - 1) * es : p, dt, n, -1); break;
  case TC_2D: out->arr = tally_array_2d(p, dt, rows, cols); break;
  case TC_2D_T:
    out->arr = tally_array_2d(p, dt, rows, cols);
    out->arr.strides[0] = 1;
    out->arr.strides[1] = rows;
    break;
  case TC_2D_PAD:
    out->arr = tally_array_2d(p, dt, rows, cols);
    out->arr.strides[0] = cols + 3;
    out->arr.strides[1] = 1;
    break;
  default: return 0;
  }
  return 1;
}

void tc_unplace(tc_placed *p) {
  free(p->alloc);
  p->alloc = NULL;
}

int64_t tc_nslices(int64_t rows, int64_t cols, int axis, int twod) {
  if (!twod || axis < 0) return 1;
  return axis == 0 ? cols : rows;
}

int64_t tc_slice_len(int64_t rows, int64_t cols, int axis, int twod) {
  if (!twod || axis < 0) return rows * cols;
  return axis == 0 ? rows : cols;
}

int64_t tc_slice_index(int64_t rows, int64_t cols, int axis, int twod, int64_t k, int64_t j) {
  (void)rows;
  if (!twod || axis < 0) return j;
  return axis == 0 ? j * cols + k : k * cols + j;
}

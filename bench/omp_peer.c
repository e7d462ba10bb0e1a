/* The OpenMP peer; see omp_peer.h. */
#include "omp_peer.h"

#ifdef TALLY_HAVE_OPENMP
#include <omp.h>

/* X(dtype, element type, accumulator type = tally's result type for SUM/DOT/SUMSQ) */
#define OMP_PEER_TYPES(X)              \
  X(TALLY_I8, int8_t, int64_t)         \
  X(TALLY_I16, int16_t, int64_t)       \
  X(TALLY_I32, int32_t, int64_t)       \
  X(TALLY_I64, int64_t, int64_t)       \
  X(TALLY_U8, uint8_t, uint64_t)       \
  X(TALLY_U16, uint16_t, uint64_t)     \
  X(TALLY_U32, uint32_t, uint64_t)     \
  X(TALLY_U64, uint64_t, uint64_t)     \
  X(TALLY_F32, float, float)           \
  X(TALLY_F64, double, double)

/* The loops exactly as a user would write them. */
#define OMP_PEER_LOOPS(E, T, A)                                                          \
  static void sum_##T(const T *x, int64_t n, A *out) {                                   \
    A s = 0;                                                                             \
    _Pragma("omp parallel for reduction(+ : s)") for (int64_t i = 0; i < n; i++) s += x[i]; \
    *out = s;                                                                            \
  }                                                                                      \
  static void dot_##T(const T *x, const T *y, int64_t n, A *out) {                       \
    A s = 0;                                                                             \
    _Pragma("omp parallel for reduction(+ : s)") for (int64_t i = 0; i < n; i++)         \
        s += (A)x[i] * (A)y[i];                                                          \
    *out = s;                                                                            \
  }                                                                                      \
  static void min_##T(const T *x, int64_t n, T *out) {                                   \
    T m = x[0];                                                                          \
    _Pragma("omp parallel for reduction(min : m)") for (int64_t i = 0; i < n; i++)       \
        m = x[i] < m ? x[i] : m;                                                         \
    *out = m;                                                                            \
  }                                                                                      \
  static void max_##T(const T *x, int64_t n, T *out) {                                   \
    T m = x[0];                                                                          \
    _Pragma("omp parallel for reduction(max : m)") for (int64_t i = 0; i < n; i++)       \
        m = x[i] > m ? x[i] : m;                                                         \
    *out = m;                                                                            \
  }
OMP_PEER_TYPES(OMP_PEER_LOOPS)

int omp_peer_supported(tally_op op, tally_dtype t) {
  int op_ok = op == TALLY_SUM || op == TALLY_MIN || op == TALLY_MAX || op == TALLY_DOT ||
              op == TALLY_SUMSQ;
  int t_ok = t != TALLY_BOOL && t != TALLY_F16 && t != TALLY_BF16 && t < TALLY_DTYPE_COUNT_;
  return op_ok && t_ok;
}

int omp_peer_threads(void) { return omp_get_max_threads(); }

int omp_peer_run(tally_op op, tally_dtype t, const void *x, const void *y, int64_t n, void *out) {
  if (!omp_peer_supported(op, t) || n < 1) return -1;
#define OMP_PEER_CASE(E, T, A)                                      \
  case E:                                                           \
    switch (op) {                                                   \
    case TALLY_SUM: sum_##T(x, n, out); return 0;                   \
    case TALLY_DOT: dot_##T(x, y, n, out); return 0;                \
    case TALLY_SUMSQ: dot_##T(x, x, n, out); return 0;              \
    case TALLY_MIN: min_##T(x, n, out); return 0;                   \
    case TALLY_MAX: max_##T(x, n, out); return 0;                   \
    default: return -1;                                             \
    }
  switch (t) {
    OMP_PEER_TYPES(OMP_PEER_CASE)
  default: return -1;
  }
#undef OMP_PEER_CASE
}

#else /* no OpenMP: the peer is absent */

int omp_peer_supported(tally_op op, tally_dtype t) { (void)op; (void)t; return 0; }
int omp_peer_threads(void) { return 0; }
int omp_peer_run(tally_op op, tally_dtype t, const void *x, const void *y, int64_t n, void *out) {
  (void)op; (void)t; (void)x; (void)y; (void)n; (void)out;
  return -1;
}

#endif

/* tally_reduce_user: a commutative operator and non-commutative ones (2x2 matrix product
 * modulo 2^64, affine maps modulo 2^8 on 3-byte elements) whose results show any change
 * of operand order; element sizes 3, 16, 32 and 256; strides 0, 1 and 2; sizes across
 * the chunk boundaries. Checked against the plain left-to-right fold; on the CPU a float
 * addition also against the grouping SEMANTICS.md states. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tc.h"

/* Commutative: (sum, max, count). */
typedef struct {
  uint64_t sum;
  uint32_t max, count;
} stats;
static void stats_combine(void *acc, const void *x, void *user) {
  (void)user;
  stats *a = acc;
  const stats *b = x;
  a->sum += b->sum;
  if (b->max > a->max) a->max = b->max;
  a->count += b->count;
}

/* Non-commutative: acc = acc · x for 2x2 matrices modulo 2^64. */
typedef struct {
  uint64_t m[4];
} mat;
static void mat_combine(void *acc, const void *x, void *user) {
  (void)user;
  mat *a = acc;
  const mat *b = x;
  mat r = {{a->m[0] * b->m[0] + a->m[1] * b->m[2], a->m[0] * b->m[1] + a->m[1] * b->m[3],
            a->m[2] * b->m[0] + a->m[3] * b->m[2], a->m[2] * b->m[1] + a->m[3] * b->m[3]}};
  *a = r;
}

/* Non-commutative, 3 bytes: the map x -> a*x + b (mod 256) applied after acc's map; the
 * third byte counts the maps (mod 256). */
static void aff3_combine(void *acc, const void *x, void *user) {
  (void)user;
  unsigned char *a = acc;
  const unsigned char *b = x;
  unsigned char A = (unsigned char)(b[0] * a[0]), B = (unsigned char)(b[0] * a[1] + b[1]);
  a[0] = A;
  a[1] = B;
  a[2] = (unsigned char)(a[2] + b[2]);
}

/* Floating-point addition: commutative but not associative, so the result shows the
 * grouping: SEMANTICS.md fixes it on the CPU (chunks of 2^16 folded left to right from
 * the identity, chunk results combined left to right). */
static void fadd_combine(void *acc, const void *x, void *user) {
  (void)user;
  double a, b;
  memcpy(&a, acc, 8);
  memcpy(&b, x, 8);
  a += b;
  memcpy(acc, &a, 8);
}

/* 256 bytes: 32 lanes of u64 addition. */
static void wide_combine(void *acc, const void *x, void *user) {
  (void)user;
  uint64_t *a = acc;
  const uint64_t *b = x;
  for (int i = 0; i < 32; i++) a[i] += b[i];
}

static void fill(tt_rng *r, unsigned char *p, size_t bytes, int kind) {
  for (size_t i = 0; i < bytes; i++) p[i] = (unsigned char)tt_rng_next(r);
  if (kind == 1) /* odd multipliers keep the matrix product from collapsing to zero */
    for (size_t i = 0; i + 8 <= bytes; i += 8) p[i] |= 1;
  if (kind == 2)
    for (size_t i = 0; i < bytes; i += 3) p[i] |= 1;
}

static void one(tc_run *R, int is_cpu, int kind, int64_t n, int64_t stride) {
  uint64_t id;
  if (!tc_begin(R, &id)) return;
  tt_rng rng;
  tt_rng_stream(&rng, R->seed, id);
  static const stats stats_id = {0, 0, 0};
  static const mat mat_id = {{1, 0, 0, 1}};
  static const unsigned char aff3_id[3] = {1, 0, 0};
  static const uint64_t wide_id[32] = {0};
  static const double fzero = 0.0;
  tally_user_op op = {0};
  const char *name = "";
  switch (kind) {
  case 0: op = (tally_user_op){sizeof(stats), &stats_id, stats_combine, NULL, 1}; name = "stats"; break;
  case 1: op = (tally_user_op){sizeof(mat), &mat_id, mat_combine, NULL, 0}; name = "mat2x2"; break;
  case 2: op = (tally_user_op){3, aff3_id, aff3_combine, NULL, 0}; name = "affine3"; break;
  case 3: op = (tally_user_op){256, wide_id, wide_combine, NULL, 1}; name = "wide256"; break;
  default: op = (tally_user_op){8, &fzero, fadd_combine, NULL, 1}; name = "f64add"; break;
  }
  int64_t step = stride ? stride : 1;
  size_t bytes = (size_t)((n ? (n - 1) * step + 1 : 0) * (int64_t)op.size);
  unsigned char *data = tc_alloc(bytes + 1);
  fill(&rng, data, bytes, kind);
  if (kind == 4)
    for (int64_t i = 0; i < n; i++) {
      double v = ldexp(tt_rng_unit(&rng), (int)tt_rng_below(&rng, 60) - 30);
      memcpy(data + i * step * 8, &v, 8);
    }
  unsigned char want[256], got[256 + 16];
  memcpy(want, op.identity, op.size);
  if (kind == 4) { /* the CPU's grouping */
    for (int64_t c0 = 0; c0 < n; c0 += 65536) {
      unsigned char part[8];
      memcpy(part, op.identity, 8);
      for (int64_t i = c0; i < n && i < c0 + 65536; i++)
        op.combine(part, data + i * step * 8, NULL);
      op.combine(want, part, NULL);
    }
  } else {
    for (int64_t i = 0; i < n; i++) op.combine(want, data + i * step * (int64_t)op.size, NULL);
  }
  memset(got, 0xa5, sizeof got);
  tally_status st = tally_reduce_user(R->ctx, &op, data, n, stride, got);
  if (!is_cpu && (st == TALLY_EUNSUPPORTED || kind == 4)) {
    /* Other backends may not offer user reductions, and may group differently. */
  } else if (st != TALLY_OK) {
    tc_fail(R, "case=%llu user op %s n=%lld stride=%lld: %s: %s", (unsigned long long)id, name,
            (long long)n, (long long)stride, tally_status_name(st), tally_errmsg(R->ctx));
  } else if (memcmp(want, got, op.size) != 0) {
    tc_fail(R, "case=%llu user op %s n=%lld stride=%lld: result differs from the left-to-right fold",
            (unsigned long long)id, name, (long long)n, (long long)stride);
  } else {
    for (size_t i = op.size; i < sizeof got; i++)
      if (got[i] != 0xa5) {
        tc_fail(R, "case=%llu user op %s: wrote past the %zu-byte result", (unsigned long long)id,
                name, op.size);
        break;
      }
  }
  free(data);
}

void tc_group_user(tc_run *R) {
  tally_context_info info;
  int is_cpu = tally_context_describe(R->ctx, &info) == TALLY_OK && strcmp(info.backend, "cpu") == 0;
  static const int64_t sizes[] = {0, 1, 2, 3, 1000, 65535, 65536, 65537, 3 * 65536 + 5, 1048583};
  for (int kind = 0; kind < 5; kind++)
    for (int s = 0; s < 10; s++)
      for (int64_t stride = 0; stride <= 2; stride++) {
        if (kind == 3 && sizes[s] > 70000) continue; /* 256-byte elements: keep memory small */
        if (R->quick && sizes[s] > 200000) continue;
        one(R, is_cpu, kind, sizes[s], stride);
      }
}

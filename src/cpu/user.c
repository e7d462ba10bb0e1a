/* User-defined reductions on the CPU: the input cut into the same fixed chunks as every
 * other reduction, each chunk folded left to right from the identity, chunk results
 * combined left to right on the calling thread. The order of operands is always kept, so
 * a non-commutative operator gets the answer of the plain left-to-right loop (up to its
 * own associativity). */
#include "cpu.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
  const tally_user_op *uop;
  const char *data;
  int64_t n, stride;
  char *parts; /* nchunks * size bytes */
} user_job;

static void fold_chunk(const user_job *j, int64_t c, void *acc) {
  const tally_user_op *u = j->uop;
  memcpy(acc, u->identity, u->size);
  int64_t lo = c * TALLY__CHUNK, hi = lo + TALLY__CHUNK < j->n ? lo + TALLY__CHUNK : j->n;
  int64_t step = j->stride * (int64_t)u->size;
  const char *p = j->data + lo * step;
  for (int64_t i = lo; i < hi; i++, p += step) u->combine(acc, p, u->user);
}

static void user_task(void *arg, int64_t c) {
  user_job *j = arg;
  fold_chunk(j, c, j->parts + c * (int64_t)j->uop->size);
}

tally_status tally__cpu_reduce_user(tally_context *ctx, const tally_user_op *uop,
                                    const void *data, int64_t n, int64_t stride, void *out) {
  tally__cpu_ctx *c = (tally__cpu_ctx *)ctx;
  int64_t nc = (n + TALLY__CHUNK - 1) / TALLY__CHUNK;
  user_job j = {uop, data, n, stride, NULL};
  /* The result is built in a private buffer: out is written once, at the end. */
  unsigned char acc[256];
  memcpy(acc, uop->identity, uop->size);
  if (nc <= 1 || c->threads == 1 || n * (int64_t)uop->size < c->parallel_bytes) {
    unsigned char part[256];
    for (int64_t k = 0; k < nc; k++) {
      fold_chunk(&j, k, part);
      uop->combine(acc, part, uop->user);
    }
  } else {
    size_t bytes = (size_t)nc * uop->size;
    j.parts = malloc(bytes);
    if (!j.parts)
      return tally__fail(ctx, TALLY_ENOMEM, "user reduction: out of memory allocating %zu bytes", bytes);
    tally__pool_run(c->pool, nc, user_task, &j, NULL, NULL);
    for (int64_t k = 0; k < nc; k++) uop->combine(acc, j.parts + k * (int64_t)uop->size, uop->user);
    free(j.parts);
  }
  memcpy(out, acc, uop->size);
  return TALLY_OK;
}

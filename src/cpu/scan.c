/* The CPU scan driver: two passes over cache-sized chunks, chained carries.
 *
 * The input is cut into chunks of SCAN_CHUNK elements (a constant: results never depend
 * on the thread count; exact ops on narrow types take a few times more, see
 * tally__cpu_scan). Each chunk is one pool task, and tasks are claimed in index
 * order. Task c reduces its chunk (pass 1) and publishes the total, gets the carry into
 * chunk c (the carries are a left-to-right chain: carry[c+1] = carry[c] ⊕ total[c]),
 * publishes the carry into chunk c+1, then scans its chunk from the carry (pass 2,
 * writing the output). Pass 1 of the chunk a thread will likely take next (c + threads)
 * runs interleaved with pass 2 of chunk c, so memory is read once (pass 2 finds its chunk
 * in the cache) and written once, as a copy does, and reading overlaps computing. A task
 * that finds an earlier chunk's carry unpublished computes it itself (decoupled look-back,
 * with the same bits) instead of waiting for a thread that may be descheduled.
 *
 * A chunk's total is computed once, from its input, by whoever claims it first (its own
 * task, the fused pass 1, or a look-back); others wait for it to be published. A chunk's
 * task writes its outputs only once its total is published, so in place (out == in) no
 * one ever reads input that may already be overwritten. The wait is bounded: a claimant
 * waits for nothing while it holds a claim (it reduces the chunk, or scans its own chunk
 * with the claimed one's pass 1 fused in), so no cycle of waits can form.
 *
 * On one thread the same chunks run in order, pass 2 alone (it yields the chunk's total
 * too), so every thread count gives the same bits.
 *
 * Segments: a head (flag, or offset) restarts the running value from the start value
 * (init, or the identity). A chunk that holds a head passes start ⊕ (the total of its
 * last run) to the next chunk instead of carry ⊕ total. */
#include "cpu.h"
#include "scan.h"
#include "scan_dd.h" /* DD_BLOCK */

#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define CPU_RELAX() _mm_pause()
#else
#define CPU_RELAX() ((void)0)
#endif
#if defined(__SSE__)
#define STORE_FENCE() _mm_sfence()
#else /* no streaming stores here (stream_out is memcpy without SSE2) */
#define STORE_FENCE() atomic_thread_fence(memory_order_seq_cst)
#endif

#define SCAN_CHUNK ((int64_t)1 << 15)
/* Pass 2 runs in pieces of this many elements, each followed by the same amount of the
 * next chunk's pass 1 (fetched while the piece computes). Measured on a 2-core Xeon VM,
 * f32 DEFAULT at 2^25, 2 threads: 2^12 15.3, 2^10 16.7, 2^9 17.2, 2^8 18.3, 2^7 17.7 GB/s. */
#define SCAN_PIECE ((int64_t)1 << 8) /* a multiple of 64 (tally__scan_fused_fn) */
/* ... for elements of 8 bytes moved (read and written) or more; narrower ones take
 * pieces of about 2 KB moved (scan_job.piece): u8 MIN in pieces of 256 spent more on
 * each call's setup and pass 1's fold of its vector than on the piece (2026-11-27). */
_Static_assert(SCAN_PIECE % DD_BLOCK == 0, "the compensated f64 sum's pieces are whole blocks");

/* The interleaved pass 1 prefetches this many pieces past the one it reads next, so that
 * piece's loads do not wait for memory: f64 DEFAULT SUM at 2^26, 2 threads, 2-core Xeon
 * VM, min of 15 runs 73-97 ms against 86-104 prefetching the piece about to be read (lower
 * in 9 of 10 turns; 2 and 4: no better than 1; prefetching the outputs for writing too
 * cost i32 PROD 10-20 %). */
#ifndef SCAN_AHEAD_PIECES
#define SCAN_AHEAD_PIECES 1
#endif

/* Small scans run on the calling thread (the same result): waking threads costs more. */
#define WAKE_BYTES ((int64_t)4 << 20)

typedef struct {
  const tally__scan_problem *p;
  tally__scan_impl im;
  tally__scan_args g;
  const char *x, *y;
  char *o;
  int64_t bx_el, by_el, bo_el; /* byte steps per element of x, y, out */
  tally__sacc start;
  int64_t nchunks;
  int64_t chunk;          /* elements a chunk: SCAN_CHUNK, or more (see there) */
  int threads;            /* prefetch distance in chunks */
  int64_t piece;          /* SCAN_PIECE times 1, 2 or 4 (and 2 for the AVX-512 compensated
                             f64 sum's pairs of blocks): see there */
  tally__sacc *carry;     /* nchunks entries: the value entering each chunk */
  _Atomic int *ready;     /* carry[c]: 0 unknown, 1 being written, 2 published */
  tally__sacc *agg;       /* each chunk's pass-1 total (of its last run) */
  int *agg_heads;         /* ... and whether it holds a segment head */
  _Atomic int *agg_state; /* 0 unclaimed, 1 claimed (being computed), 2 published */
  int prefetch_out;       /* pass 2 fetches its next piece's outputs for writing */
  int stream;             /* pass 2 writes each piece to a buffer, then streams it out
                             (stream_out); the compensated f64 sum streams itself */
  unsigned char *stash;   /* NULL, or per chunk: its outputs hold pass 1's stash (set
                             before its aggregate is published; tally__scan_fused_fn) */
} scan_job;

/* ------------------------------------------------------------ segment heads */

/* Smallest offsets index k with offsets[k] > pos (offsets[0] = 0 <= pos). */
static int64_t first_offset_above(const tally__scan_problem *p, int64_t pos) {
  int64_t lo = 0, hi = p->nsegments + 1; /* offsets[lo] <= pos < offsets[hi] (virtual) */
  while (hi - lo > 1) {
    int64_t mid = lo + (hi - lo) / 2;
    if (p->offsets[mid] > pos) hi = mid;
    else lo = mid;
  }
  return hi;
}

/* The first head in (pos, end), or end. */
static int64_t next_head(const tally__scan_problem *p, int64_t pos, int64_t end) {
  if (p->flags) {
    for (int64_t i = pos + 1; i < end; i++)
      if (p->flags[i]) return i;
    return end;
  }
  if (p->offsets) {
    int64_t k = first_offset_above(p, pos);
    return k <= p->nsegments && p->offsets[k] < end ? p->offsets[k] : end;
  }
  return end;
}

/* The last head in [lo, end), or -1. Element 0 is always a head. */
static int64_t last_head(const tally__scan_problem *p, int64_t lo, int64_t end) {
  if (p->flags) {
    for (int64_t i = end - 1; i > lo; i--)
      if (p->flags[i]) return i;
    return lo == 0 || p->flags[lo] ? lo : -1;
  }
  if (p->offsets) {
    int64_t k = first_offset_above(p, end - 1) - 1; /* offsets[k] <= end - 1 */
    if (p->offsets[k] >= lo) return p->offsets[k];
  }
  return lo == 0 ? 0 : -1;
}

/* ------------------------------------------------------------ chunks */

/* Elements [a, b) of one run, from *acc (updated), folding *tot (updated); outputs to o
 * (NULL: where they belong). */
static void run_to(const scan_job *j, int64_t a, int64_t b, tally__sacc *acc, tally__sacc *tot,
                   int write, char *o) {
  j->im.run(&j->g, j->x + a * j->bx_el, j->y ? j->y + a * j->by_el : NULL,
            o ? o : j->o + a * j->bo_el, b - a, acc, tot, write);
}

static void run(const scan_job *j, int64_t a, int64_t b, tally__sacc *acc, tally__sacc *tot,
                int write) {
  run_to(j, a, b, acc, tot, write, NULL);
}

/* A piece's outputs are computed into this buffer (in L1), then written out with
 * streaming stores (stream_out): written whole lines at a time without reading them
 * first, where a store that misses the cache reads its line before writing it, and the
 * core waits on those reads. 8 KiB: a piece's outputs are at most 256 AFFINE pairs of
 * f64 (4 KiB). */
#define STREAM_BUF 8192

/* n bytes from buf to o: plain stores before o's first 64-byte boundary and after its
 * last (lines shared with the piece before or after), streaming stores between. */
static void stream_out(char *o, const char *buf, size_t n) {
#if defined(__SSE2__)
  size_t i = (size_t)(0 - (uintptr_t)o) % 64;
  if (i > n) i = n;
  memcpy(o, buf, i);
  for (; i + 64 <= n; i += 64)
    for (int k = 0; k < 4; k++)
      _mm_stream_si128((__m128i *)(o + i) + k, _mm_loadu_si128((const __m128i *)(buf + i) + k));
  memcpy(o + i, buf + i, n - i);
#else
  memcpy(o, buf, n);
#endif
}

/* Bring element range [a, b) of the input into the cache. */
static void prefetch(const scan_job *j, int64_t a, int64_t b) {
  if (a >= b || j->bx_el != (int64_t)tally_dtype_size(j->p->dtype)) return;
  const char *p = j->x + a * j->bx_el, *e = j->x + b * j->bx_el;
  for (; p < e; p += 64) __builtin_prefetch(p, 0, 3);
}

/* Bring the outputs of element range [a, b) into the cache for writing (PREFETCHW: a
 * no-op on processors without it). */
static void prefetch_out(const scan_job *j, int64_t a, int64_t b) {
  if (a >= b) return;
  for (const char *p = j->o + a * j->bo_el, *e = j->o + b * j->bo_el; p < e; p += 64) {
#if defined(__x86_64__) || defined(__i386__)
    __asm__ volatile("prefetchw %0" ::"m"(*p));
#else
    __builtin_prefetch(p, 1, 3);
#endif
  }
}

/* Pass 1 of a chunk in progress: the total of its last run, from `from`, piece by piece
 * (pieces of j->piece from `from`: the same bits as in one go). */
typedef struct {
  int64_t chunk, from, hi, pos;
  int heads;
  tally__sacc acc, tot;
} pass1_t;

static void pass1_begin(const scan_job *j, int64_t c, pass1_t *q) {
  int64_t lo = c * j->chunk, hi = lo + j->chunk < j->p->n ? lo + j->chunk : j->p->n;
  int64_t h = last_head(j->p, lo, hi);
  q->chunk = c;
  q->from = q->pos = h >= 0 ? h : lo;
  q->hi = hi;
  q->heads = h >= 0;
  q->acc = j->start;
  q->tot = j->im.identity;
}

/* One more piece; 0 when done. */
static int pass1_step(const scan_job *j, pass1_t *q) {
  if (q->pos >= q->hi) return 0;
  int64_t b = q->hi - q->pos > j->piece ? q->pos + j->piece : q->hi;
  run(j, q->pos, b, &q->acc, &q->tot, 0);
  q->pos = b;
  return 1;
}

/* Claim chunk m's total: 1 if the caller is now the one to compute and publish it. */
static int claim_agg(scan_job *j, int64_t m) {
  int expect = 0;
  return atomic_load_explicit(&j->agg_state[m], memory_order_relaxed) == 0 &&
         atomic_compare_exchange_strong(&j->agg_state[m], &expect, 1);
}

/* By the claimant only. */
static void publish_agg(scan_job *j, int64_t m, const tally__sacc *tot, int heads) {
  j->agg[m] = *tot;
  j->agg_heads[m] = heads;
  atomic_store_explicit(&j->agg_state[m], 2, memory_order_release);
}

/* Pass 2: scan chunk c from `carry`; returns in *tot the total of its last run, and
 * whether the chunk holds a head. With ahead > 0, pass 1 of chunk c + ahead (the chunk
 * this thread is likely to take next) runs interleaved, a piece after each piece of
 * this pass, and its total is published: that chunk's input is then read from memory
 * while this chunk computes and writes, and is in the cache for its own pass 2. With
 * ahead > 0 (the threaded chain, which has the chunk's total from pass 1) *tot is
 * meaningless: the fused loop leaves it out. */
static int scan_chunk(scan_job *j, int64_t c, const tally__sacc *carry, tally__sacc *tot,
                      int64_t ahead) {
  int64_t lo = c * j->chunk, hi = lo + j->chunk < j->p->n ? lo + j->chunk : j->p->n;
  int heads = last_head(j->p, lo, hi) >= 0;
  const int stashed = j->stash && j->stash[c]; /* (its aggregate is published: see chain_task) */
  tally__sacc acc = (lo == 0 || (heads && last_head(j->p, lo, lo + 1) == lo)) ? j->start : *carry;
  int64_t nx = c + ahead;
  pass1_t q;
  int fuse = ahead > 0 && nx + 1 < j->nchunks && claim_agg(j, nx);
  if (fuse) pass1_begin(j, nx, &q);
  else if (ahead > 0 && nx < j->nchunks) /* the last chunk needs no total: just fetch it */
    prefetch(j, nx * j->chunk, nx * j->chunk + j->chunk < j->p->n ? nx * j->chunk + j->chunk : j->p->n);
  /* Whether every piece of chunk nx's pass 1 leaves its stash. Those pieces must be its
   * pass 2's: its pass 1 must start where its pass 2 does (no head after its start). */
  int stash_next = fuse && q.from == nx * j->chunk;
  _Alignas(64) char buf[STREAM_BUF]; /* j->stream: a piece's outputs */
  for (int64_t pos = lo; pos < hi;) {
    int64_t end = next_head(j->p, pos, hi);
    *tot = j->im.identity;
    for (int64_t a = pos; a < end; a += j->piece) {
      int64_t b = end - a > j->piece ? a + j->piece : end;
      if (fuse) { /* the piece pass 1 reads now, and the next SCAN_AHEAD_PIECES */
        int64_t pa = a == pos ? q.pos : q.pos + SCAN_AHEAD_PIECES * j->piece;
        int64_t pb = q.pos + (SCAN_AHEAD_PIECES + 1) * j->piece;
        prefetch(j, pa, pb < q.hi ? pb : q.hi);
      }
      if (j->prefetch_out) prefetch_out(j, b, b + j->piece < end ? b + j->piece : end);
      if (fuse && j->g.fused && b - a == j->piece && q.hi - q.pos >= j->piece) {
        /* both pieces in one loop: the same bits as the two calls below */
        stash_next &= j->g.fused(j->x + a * j->bx_el, j->stream ? buf : j->o + a * j->bo_el, j->piece,
                                 &acc, j->x + q.pos * j->bx_el, &q.tot, j->o + q.pos * j->bo_el,
                                 (stashed ? TALLY__SCAN_STASHED : 0) |
                                     (j->g.stream_out ? TALLY__SCAN_STREAM : 0));
        if (j->stream) stream_out(j->o + a * j->bo_el, buf, (size_t)(b - a) * (size_t)j->bo_el);
        q.pos += j->piece;
        continue;
      }
      /* while that piece arrives; the total (meaningless with ahead > 0) left out where
       * the kernel can */
      run_to(j, a, b, &acc, ahead > 0 && j->im.total_optional ? NULL : tot, stashed ? 2 : 1,
             j->stream ? buf : NULL);
      if (j->stream) stream_out(j->o + a * j->bo_el, buf, (size_t)(b - a) * (size_t)j->bo_el);
      if (fuse && pass1_step(j, &q)) stash_next = 0;
    }
    acc = j->start;
    pos = end;
  }
  if (fuse) {
    while (pass1_step(j, &q)) stash_next = 0;
    if (j->stash) j->stash[nx] = (unsigned char)stash_next;
    publish_agg(j, nx, &q.tot, q.heads);
  }
  /* Streaming stores are weakly ordered: fenced before the task ends, so the outputs are
   * visible to whichever thread sees the scan done. */
  if (j->g.stream_out || j->stream) STORE_FENCE();
  return heads;
}

/* Pass 1 of chunk c in one go: the total of its last run, and whether it holds a head. */
static int reduce_chunk(const scan_job *j, int64_t c, tally__sacc *tot) {
  pass1_t q;
  pass1_begin(j, c, &q);
  while (pass1_step(j, &q)) {}
  *tot = q.tot;
  return q.heads;
}

/* The carry into the next chunk. */
static tally__sacc next_carry(const scan_job *j, const tally__sacc *carry, const tally__sacc *tot,
                              int heads) {
  tally__sacc r = heads ? j->start : *carry;
  j->im.combine(&j->g, &r, tot);
  return r;
}

/* A chunk's aggregate (pass 1), computed by whichever task claims it first (the same bits
 * whoever computes it), published once. Claimed by another: wait for it. That claimant
 * waits for nothing until it publishes, and chunk m's input is intact until then (chunk
 * m's task writes only after), so recomputing it here instead could read outputs. */
static void get_agg(scan_job *j, int64_t m, tally__sacc *tot, int *heads) {
  if (claim_agg(j, m)) {
    *heads = reduce_chunk(j, m, tot);
    publish_agg(j, m, tot, *heads);
    return;
  }
  for (int spins = 0; atomic_load_explicit(&j->agg_state[m], memory_order_acquire) != 2; spins++) {
    if (spins < 64) CPU_RELAX();
    else sched_yield();
  }
  *tot = j->agg[m];
  *heads = j->agg_heads[m];
}

static void put_carry(scan_job *j, int64_t c, const tally__sacc *v) {
  int expect = 0;
  if (atomic_compare_exchange_strong(&j->ready[c], &expect, 1)) {
    j->carry[c] = *v;
    atomic_store_explicit(&j->ready[c], 2, memory_order_release);
  }
}

/* The carry into chunk c: the latest published carry before it, carried forward over the
 * chunks in between (their aggregates computed here if their tasks have not published
 * them yet). Nobody waits for a thread that the system has descheduled: on a busy
 * machine a stalled chain would stall every thread. */
static tally__sacc get_carry(scan_job *j, int64_t c) {
  int64_t k = c;
  while (atomic_load_explicit(&j->ready[k], memory_order_acquire) != 2) k--; /* ready[0] is */
  tally__sacc r = j->carry[k];
  for (int64_t m = k; m < c; m++) {
    tally__sacc tot;
    int heads;
    get_agg(j, m, &tot, &heads);
    r = next_carry(j, &r, &tot, heads);
    put_carry(j, m + 1, &r);
  }
  return r;
}

static void chain_task(void *arg, int64_t c) {
  scan_job *j = arg;
  tally__sacc tot;
  int heads = 0;
  /* Usually done (see scan_chunk). Before writing: in place, the outputs overwrite the
   * input that a claimant of this total may still be reading (the last chunk's total is
   * never needed, nor read). */
  if (c + 1 < j->nchunks) get_agg(j, c, &tot, &heads);
  tally__sacc carry = get_carry(j, c);
  if (c + 1 < j->nchunks) {
    tally__sacc next = next_carry(j, &carry, &tot, heads);
    put_carry(j, c + 1, &next);
  }
  scan_chunk(j, c, &carry, &tot, j->threads);
}

/* ------------------------------------------------------------ user scans */

/* User operators: the same chunks and chain, with byte accumulators. */
typedef struct {
  const tally__scan_problem *p;
  const tally_user_op *u;
  const char *x;
  char *o;
  int64_t nchunks;
  unsigned char *carry; /* nchunks * size */
  _Atomic int *ready;
  const unsigned char *start;
} user_job;

/* Elements [a, b) from *acc (updated); *tot gets their fold from the identity. */
static void user_run(const user_job *j, int64_t a, int64_t b, unsigned char *acc,
                     unsigned char *tot, int write) {
  const tally_user_op *u = j->u;
  size_t sz = u->size;
  int64_t bx = j->p->sx * (int64_t)sz, bo = j->p->so0 * (int64_t)sz;
  unsigned char v[256];
  memcpy(tot, u->identity, sz);
  for (int64_t i = a; i < b; i++) {
    memcpy(v, j->x + i * bx, sz); /* read before writing: exact in place */
    if (write && j->p->exclusive) memcpy(j->o + i * bo, acc, sz);
    if (write) u->combine(acc, v, u->user);
    u->combine(tot, v, u->user);
    if (write && !j->p->exclusive) memcpy(j->o + i * bo, acc, sz);
  }
}

static int user_chunk(const user_job *j, int64_t c, const unsigned char *carry,
                      unsigned char *tot, int write) {
  const tally__scan_problem *p = j->p;
  int64_t lo = c * SCAN_CHUNK, hi = lo + SCAN_CHUNK < p->n ? lo + SCAN_CHUNK : p->n;
  int64_t h = last_head(p, lo, hi);
  unsigned char acc[256];
  if (!write) {
    memcpy(acc, j->start, j->u->size);
    user_run(j, h >= 0 ? h : lo, hi, acc, tot, 0);
    return h >= 0;
  }
  memcpy(acc, lo == 0 || last_head(p, lo, lo + 1) == lo ? j->start : carry, j->u->size);
  for (int64_t pos = lo; pos < hi;) {
    int64_t end = next_head(p, pos, hi);
    user_run(j, pos, end, acc, tot, 1);
    memcpy(acc, j->start, j->u->size);
    pos = end;
  }
  return h >= 0;
}

static void user_next(const user_job *j, int64_t c, const unsigned char *tot, int heads) {
  size_t sz = j->u->size;
  unsigned char *next = j->carry + (c + 1) * (int64_t)sz;
  memcpy(next, heads ? j->start : j->carry + c * (int64_t)sz, sz);
  j->u->combine(next, tot, j->u->user);
}

static void user_task(void *arg, int64_t c) {
  user_job *j = arg;
  unsigned char tot[256];
  size_t sz = j->u->size;
  if (c + 1 < j->nchunks) {
    int heads = user_chunk(j, c, NULL, tot, 0);
    for (int spins = 0; !atomic_load_explicit(&j->ready[c], memory_order_acquire); spins++)
      if (spins > 64) sched_yield();
    user_next(j, c, tot, heads);
    atomic_store_explicit(&j->ready[c + 1], 1, memory_order_release);
  } else {
    for (int spins = 0; !atomic_load_explicit(&j->ready[c], memory_order_acquire); spins++)
      if (spins > 64) sched_yield();
  }
  user_chunk(j, c, j->carry + c * (int64_t)sz, tot, 1);
}

/* ------------------------------------------------------------ the entry */

/* Whether to scan on the threads. Under WAKE_BYTES while they sleep: no, but wake them
 * for the next call; unless the device string set parallel_bytes (cpu:parallel_bytes=N),
 * which the scan then keeps to, so that tests and measurements know what runs. */
static bool go_parallel(tally__cpu_ctx *c, int64_t bytes, int64_t nchunks) {
  if (c->threads < 2 || nchunks < 2 || bytes < c->parallel_bytes) return false;
  if (bytes < WAKE_BYTES && !c->parallel_bytes_given && !tally__pool_awake(c->pool)) {
    tally__pool_wake(c->pool);
    return false;
  }
  return true;
}

static tally_status user_scan(tally_context *ctx, const tally__scan_problem *p, const void *in,
                              void *out) {
  tally__cpu_ctx *c = (tally__cpu_ctx *)ctx;
  const tally_user_op *u = p->uop;
  size_t sz = u->size;
  /* init and the identity are copied first: init may lie in out (and be overwritten). */
  unsigned char start[256];
  memcpy(start, p->init ? p->init : u->identity, sz);
  user_job j = {p, u, in, out, (p->n + SCAN_CHUNK - 1) / SCAN_CHUNK, NULL, NULL, start};
  if (!go_parallel(c, p->n * (int64_t)sz, j.nchunks)) {
    unsigned char carry[256], tot[256];
    memcpy(carry, j.start, sz);
    for (int64_t k = 0; k < j.nchunks; k++) {
      int heads = user_chunk(&j, k, carry, tot, 1);
      unsigned char next[256];
      memcpy(next, heads ? j.start : carry, sz);
      u->combine(next, tot, u->user);
      memcpy(carry, next, sz);
    }
    return TALLY_OK;
  }
  j.carry = malloc((size_t)j.nchunks * sz);
  j.ready = calloc((size_t)j.nchunks, sizeof *j.ready);
  if (!j.carry || !j.ready) {
    free(j.carry);
    free((void *)j.ready);
    return tally__fail(ctx, TALLY_ENOMEM, "scan: out of memory for %lld chunk carries",
                       (long long)j.nchunks);
  }
  memcpy(j.carry, j.start, sz);
  atomic_store(&j.ready[0], 1);
  tally__pool_run(c->pool, j.nchunks, user_task, &j, NULL, NULL);
  free(j.carry);
  free((void *)j.ready);
  return TALLY_OK;
}

/* $TALLY_SCAN_LANES=avx2: the AVX2 set's f64-lane kernels on an AVX-512 context, for
 * measuring (read once). */
static int getenv_avx2_lanes(void) {
  static int which; /* 0: not read yet, 1: zmm, 2: AVX2 (a race reads it twice alike) */
  if (!which) {
    const char *e = getenv("TALLY_SCAN_LANES");
    which = e && strcmp(e, "avx2") == 0 ? 2 : 1;
  }
  return which == 2;
}

/* The float sums' vector set on an AVX-512 context: the AVX2 set, whose blocks are
 * written in intrinsics with the two passes fused (scan_simd.c), where the AVX-512 set is
 * the generic lanes. The same bits either way. AMD EPYC with AVX-512 (Zen 4, 2 threads,
 * 2026-11-26, ms at 2^26, two runs): f32 DEFAULT 28.8-30.1 -> 18.8-18.9, FAST
 * 17.4-17.7 -> 16.0-16.9, f64 FAST 27.6-34.1 -> 27.6-35.3 (equal). On the Intel Xeon of
 * the GPU machine (16 threads, 2026-11-27, × a copy): f32 DEFAULT 1.02 against 0.96, FAST
 * 1.31 against 0.94. $TALLY_SCAN_SIMD=avx512 takes the AVX-512 set, for measuring (read
 * once). (The compensated f64 sum has its own kernels, scan_dd.c, built for the context's
 * ISA.) */
static const tally__scan_simd_set *scan_set_avx512(void) {
  static int which; /* 0: not read yet, 1: AVX2's, 2: AVX-512's (a race reads it twice alike) */
  if (!which) {
    const char *e = getenv("TALLY_SCAN_SIMD");
    which = e && strcmp(e, "avx512") == 0 ? 2 : 1;
  }
  return which == 2 ? &tally__scan_simd_avx512 : &tally__scan_simd_avx2;
}

tally_status tally__cpu_scan(tally_context *ctx, const tally__scan_problem *p, const void *in,
                             const void *in2, void *out) {
  if (p->uop) return user_scan(ctx, p, in, out);
  tally__cpu_ctx *c = (tally__cpu_ctx *)ctx;
  /* FAST sums and products of f16 and bf16 run as DEFAULT (f64 lanes; on AVX-512 and
   * AVX2 converted in registers, with a fused pass: the input read once): DEFAULT's
   * results are FAST's too (at least as accurate; FAST promises no order), and FAST's
   * own path (pieces converted to f32 for the f32 kernels, no fused pass) reads the input
   * twice. On every ISA and layout alike, so the bits stay the same across thread
   * counts, ISAs and strides (the conformance suite's threads check). GPU host's Xeon,
   * 16 threads, 2^26, 2026-11-28 (runs 150-151), FAST ms before / after: AVX-512 f16
   * SUM 12.2 / 5.3-5.6, bf16 SUM 12.5 / 5.5-5.9, f16 PROD 16.2 / 6.1-6.9, bf16 PROD
   * 14.8 / 5.8-6.3; AVX2 (DEFAULT's times there) f16 SUM 10.6-11.0 / 7.0-7.3, PROD
   * 12.6-14.0 / 7.4-7.9. Where compute bounds the scan instead (a 2-core VM), FAST's own
   * SUM kernels were up to 1.2 x faster: see docs/PERFORMANCE.md. */
  tally__scan_problem as_default;
  if (p->accuracy == TALLY_ACCURACY_FAST && (p->dtype == TALLY_F16 || p->dtype == TALLY_BF16) &&
      (p->op == TALLY_SUM || p->op == TALLY_PROD)) {
    as_default = *p;
    as_default.accuracy = TALLY_ACCURACY_DEFAULT;
    p = &as_default;
  }
  scan_job j;
  memset(&j, 0, sizeof j);
  j.p = p;
  tally__scan_impl_for(p, &j.im);
  int64_t es = (int64_t)tally_dtype_size(p->dtype), rs = (int64_t)tally_dtype_size(p->rdtype);
  j.g.exclusive = p->exclusive;
  j.g.ignore_nan = p->nan == TALLY_NAN_IGNORE;
  j.g.bx = p->sx * es;
  j.g.by = p->sy * es;
  j.g.bo0 = p->so0 * rs;
  j.g.bo1 = p->so1 * rs;
  j.g.identity = j.im.identity;
  /* Contiguous float sums and products run their full blocks in vector code (the same
   * bits); f16 and bf16 converted in registers (the set's lanes_d) or, where it has
   * none, through the f32 kernels on pieces converted to f32. */
  const tally__scan_simd_set *v = c->isa == TALLY__ISA_AVX512 ? scan_set_avx512()
                                  : c->isa == TALLY__ISA_AVX2 ? &tally__scan_simd_avx2
                                                               : &tally__scan_simd_scalar;
  const bool fast = p->accuracy == TALLY_ACCURACY_FAST, contig = p->sx == 1 && p->so0 == 1;
  const bool half = p->dtype == TALLY_F16 || p->dtype == TALLY_BF16;
  int dd_pairs = 0, dd_kernel = 0;
  /* On AVX-512 the f64-lane kernels (f16, bf16 DEFAULT sums; DEFAULT float products,
   * f64's FAST alike) with a block in one zmm register: the AVX-512 set's lanes_d, the
   * same bits as the AVX2 set's with one conversion of each kind a block, not two. */
  const bool lanes = (p->op == TALLY_PROD || (p->op == TALLY_SUM && half)) &&
                     (!fast || (p->op == TALLY_PROD && p->dtype == TALLY_F64));
  if (contig && lanes && c->isa == TALLY__ISA_AVX512 && !getenv_avx2_lanes() &&
      tally__scan_simd_avx512.lanes_d(p->op, p->dtype, &j.g.simd, &j.g.simd_reduce, &j.g.fused)) {
    if (p->exclusive || j.g.ignore_nan || in == out) j.g.fused = NULL;
  } else if (p->op == TALLY_SUM && contig) {
    if (p->dtype == TALLY_F32) {
      j.g.simd = fast ? v->sum_f32_f : v->sum_f32_d;
      j.g.simd_reduce = fast ? v->reduce_f32_f : v->reduce_f32_d;
      j.g.fused = fast ? v->fused_f32_f : v->fused_f32_d;
    } else if (p->dtype == TALLY_F64 && fast) {
      j.g.simd = v->sum_f64;
      j.g.simd_reduce = v->reduce_f64;
      j.g.fused = v->fused_f64;
    } else if (half && v->lanes_d(p->op, p->dtype, &j.g.simd, &j.g.simd_reduce, &j.g.fused)) {
      /* converted in registers (FAST halves arrive here as DEFAULT: see the top) */
    } else if (half) { /* through the f32 kernels: no fused kernel */
      j.g.simd_f32 = v->sum_f32_d;
      j.g.simd_reduce_f32 = v->reduce_f32_d;
    } else if (p->dtype == TALLY_F64) {
      const tally__scan_dd_set *d = c->isa == TALLY__ISA_AVX512 ? &tally__scan_dd_avx512
                                    : c->isa == TALLY__ISA_AVX2 ? &tally__scan_dd_avx2
                                                                 : &tally__scan_dd_scalar;
      j.g.simd = d->sum;
      j.g.simd_reduce = d->reduce;
      j.g.fused = d->fused;
      /* Its writes fetched a piece ahead, on Intel: GPU host's Xeon, 16 threads, 2^26
       * (run 152, six turns), median 18.97 ms against 20.98 (0.85 x copy against 0.80),
       * lower in 5 of 6 turns than the plain runs on either side; on the 2-core AMD VM it
       * lost in run 148 (63-69 ms against 56-60) and was within that VM's noise later. */
      j.prefetch_out = !c->amd && j.g.simd != NULL;
      /* AVX-512 runs its blocks in pairs (scan_dd_pair.h): pieces of two blocks */
      dd_pairs = d == &tally__scan_dd_avx512;
      dd_kernel = j.g.simd != NULL;
      /* Outputs too large to stay in the cache are written with streaming stores
       * (scan_dd.c, stream_copy): without them a store that misses reads its line first,
       * and the core waits on those reads instead of computing. Then nothing fetches the
       * outputs ahead. */
      if (in != out && (int64_t)(p->n * 16) > c->stream_bytes) {
        j.g.stream_out = 1;
        j.prefetch_out = 0;
      }
    }
    if (p->exclusive || j.g.ignore_nan || in == out) j.g.fused = NULL; /* see tally__scan_fused_fn */
  } else if (p->op == TALLY_PROD && contig && (!fast || p->dtype == TALLY_F64) &&
             v->lanes_d(p->op, p->dtype, &j.g.simd, &j.g.simd_reduce, &j.g.fused)) {
    /* f64 lanes, inputs converted in registers (f64 PROD is the same in FAST) */
    if (p->exclusive || j.g.ignore_nan || in == out) j.g.fused = NULL;
  } else if (p->op == TALLY_PROD && contig) {
    if (p->dtype == TALLY_F64) j.g.simd = v->prod_f64;
    else if (p->dtype == TALLY_F32) j.g.simd = fast ? v->prod_f32_f : v->prod_f32_d;
    else if (half) j.g.simd_f32 = j.g.simd_reduce_f32 = v->prod_f32_d; /* DEFAULT: see the top */
  }
  if (j.g.simd_f32) {
    j.g.simd = p->dtype == TALLY_F16 ? v->half_f16 : v->half_bf16;
    j.g.simd_reduce = p->dtype == TALLY_F16 ? v->half_reduce_f16 : v->half_reduce_bf16;
  }
  /* Contiguous exact ops (integer SUM and PROD, MIN and MAX) run their full vectors in
   * vector code too (scan_exact.c; the same bits in any grouping). */
  if (p->sx == 1 && p->so0 == 1 && p->op != TALLY_AFFINE &&
      (p->op == TALLY_MIN || p->op == TALLY_MAX || tally__dtype_kind(p->dtype) != TALLY__KIND_FLOAT)) {
    tally__scan_simd_fn (*exact)(tally_op, tally_dtype) =
        c->isa == TALLY__ISA_AVX512 ? tally__scan_exact_avx512
        : c->isa == TALLY__ISA_AVX2 ? tally__scan_exact_avx2 : tally__scan_exact_scalar;
    j.g.simd = exact(p->op, p->dtype);
  }
  /* Contiguous AFFINE (a's, b's and the pairs out) runs its full blocks in vector code
   * (scan_affine.c; the same bits). */
  if (p->op == TALLY_AFFINE && p->sx == 1 && p->sy == 1 && p->so0 == 2 && p->so1 == 1) {
    tally__scan_pair_fn (*aff)(tally_dtype, int, int) =
        c->isa == TALLY__ISA_AVX512 ? tally__scan_affine_avx512
        : c->isa == TALLY__ISA_AVX2 ? tally__scan_affine_avx2 : tally__scan_affine_scalar;
    j.g.pair = aff(p->dtype, fast, !c->amd);
  }
  j.bx_el = j.g.bx;
  j.by_el = j.g.by;
  j.bo_el = j.g.bo0;
  j.x = in;
  j.y = in2;
  j.o = out;
  j.start = j.im.identity;
  if (p->init) tally__scan_init_acc(p, p->init, &j.start);
  j.threads = c->threads;
  /* bytes read and written an element, and in all */
  int64_t moved = es * (in2 ? 2 : 1) + rs * p->width, bytes = p->n * moved;
  const int narrow = moved >= 8 ? 1 : moved >= 4 ? 2 : 4;
  j.piece = SCAN_PIECE * narrow * (dd_pairs ? 2 : 1);
  /* Outputs too large to stay in the cache go out by streaming stores (stream_out), where
   * they are one contiguous range: each piece through the buffer. (The compensated f64
   * sum streams from its own kernels: its pass 1 leaves the stash in the outputs.) */
  if (in != out && !dd_kernel && bytes > c->stream_bytes && j.bo_el == rs * p->width &&
      (p->width == 1 || p->so1 == 1) && j.piece * j.bo_el <= STREAM_BUF)
    j.stream = 1;
  /* Exact ops (MIN and MAX of every dtype, integer SUM, PROD and AFFINE) give the same
   * bits in any chunking, so those moving under 8 bytes an element take chunks of 256 KiB
   * moved, like the others' 2^15 elements of 8 bytes: each chunk costs a carry passed
   * from thread to thread and a task's setup. GPU host's Xeon, 16 threads, 2^26, 1-byte
   * MIN/MAX (run 156, two turns, pieces of 2^10): chunks of 2^15 elements 0.59-0.67 x a
   * copy, 2^16 0.72-0.95, 2^17 0.88-1.03, 2^18 0.87-1.06 (pieces of 2^11-2^13 alike).
   * Float SUM, PROD and AFFINE keep 2^15: their bits depend on the chunks
   * (docs/SEMANTICS.md). */
  const bool exact = p->op == TALLY_MIN || p->op == TALLY_MAX ||
                     tally__dtype_kind(p->dtype) != TALLY__KIND_FLOAT;
  j.chunk = SCAN_CHUNK * (exact ? narrow : 1);
  j.nchunks = (p->n + j.chunk - 1) / j.chunk;
  if (!go_parallel(c, bytes, j.nchunks)) {
    tally__sacc carry = j.start, tot;
    for (int64_t k = 0; k < j.nchunks; k++) {
      int heads = scan_chunk(&j, k, &carry, &tot, 0);
      carry = next_carry(&j, &carry, &tot, heads);
    }
    return TALLY_OK;
  }
  size_t nc = (size_t)j.nchunks;
  j.carry = malloc(nc * sizeof *j.carry);
  j.agg = malloc(nc * sizeof *j.agg);
  j.agg_heads = malloc(nc * sizeof *j.agg_heads);
  j.ready = calloc(nc, sizeof *j.ready);
  j.agg_state = calloc(nc, sizeof *j.agg_state);
  j.stash = j.g.fused ? calloc(nc, 1) : NULL;
  tally_status st = TALLY_OK;
  if (!j.carry || !j.agg || !j.agg_heads || !j.ready || !j.agg_state || (j.g.fused && !j.stash)) {
    st = tally__fail(ctx, TALLY_ENOMEM, "scan: out of memory for %lld chunk carries",
                     (long long)j.nchunks);
  } else {
    j.carry[0] = j.start;
    atomic_store(&j.ready[0], 2);
    tally__pool_run(c->pool, j.nchunks, chain_task, &j, NULL, NULL);
  }
  free(j.carry);
  free(j.agg);
  free(j.agg_heads);
  free((void *)j.ready);
  free((void *)j.agg_state);
  free(j.stash);
  return st;
}

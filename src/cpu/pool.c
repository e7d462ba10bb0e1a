/* See pool.h.
 *
 * One 64-bit atomic "ticket" holds (generation << 32 | tasks not yet claimed). A thread
 * claims a task by a compare-and-swap that also checks the generation, so a worker that
 * wakes late can never take a task of a job that is over or not yet published: the job's
 * fields (fn, arg, ntasks) are written before the ticket that announces them (release)
 * and read only after a successful claim (acquire), and the caller does not return, nor
 * publish the next job, until every claimed task has finished. */
#include "pool.h"
#include "core/clock.h"

#include <limits.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define CPU_RELAX() _mm_pause()
#else
#define CPU_RELAX() ((void)0)
#endif

/* How long an idle worker spins before it sleeps: long enough to catch the next call of
 * a loop of reductions, short enough not to burn a core for long. */
#define SPIN_NS 200000

struct tally__pool {
  _Atomic uint64_t ticket;
  _Atomic int64_t done;
  _Atomic int sleepers;
  _Atomic uint32_t wakes; /* the futex sleepers wait on: raised, then they are woken */
  _Atomic bool quit;
  tally__task_fn fn;
  void *arg;
  int64_t ntasks;
  int nthreads;
  pthread_t *threads;
  int *cpu; /* the CPU each worker is pinned to, -1 if none */
};

static uint32_t gen_of(uint64_t t) { return (uint32_t)(t >> 32); }
static uint32_t rem_of(uint64_t t) { return (uint32_t)t; }

/* Claim and run tasks of generation gen until none is left; returns tasks run. */
static int64_t work(tally__pool *p, uint32_t gen, tally__progress_fn progress, void *parg) {
  int64_t ran = 0;
  uint64_t t = atomic_load_explicit(&p->ticket, memory_order_acquire);
  for (;;) {
    if (gen_of(t) != gen || rem_of(t) == 0) return ran;
    if (!atomic_compare_exchange_weak_explicit(&p->ticket, &t, t - 1, memory_order_acq_rel,
                                               memory_order_acquire))
      continue;
    int64_t task = p->ntasks - (int64_t)rem_of(t);
    p->fn(p->arg, task);
    int64_t d = atomic_fetch_add_explicit(&p->done, 1, memory_order_release) + 1;
    ran++;
    if (progress) progress(parg, d);
    t = atomic_load_explicit(&p->ticket, memory_order_acquire);
  }
}

/* Sleeping workers wait on a futex rather than a condition variable: a broadcast makes
 * every woken worker take the condition's mutex in turn before it may run, so the last of
 * 15 started some 20 µs after the call (Xeon, 2026-11-26); from a futex all wake at once.
 * The sleeper raises sleepers, then looks at the generation again, then waits only while
 * wakes still holds what it read before raising sleepers; the caller publishes the
 * generation, then reads sleepers (all sequentially consistent): either the sleeper sees
 * the new generation, or the caller sees the sleeper and raises wakes, which fails or ends
 * its wait. */
static void futex_wait(_Atomic uint32_t *word, uint32_t seen) {
  syscall(SYS_futex, (uint32_t *)word, FUTEX_WAIT_PRIVATE, seen, NULL, NULL, 0);
}

static void wake_sleepers(tally__pool *p) {
  if (atomic_load(&p->sleepers) == 0) return;
  atomic_fetch_add(&p->wakes, 1);
  syscall(SYS_futex, (uint32_t *)&p->wakes, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
}

static void *worker(void *arg) {
  tally__pool *p = arg;
  uint32_t seen = 0;
  for (;;) {
    uint64_t t = atomic_load_explicit(&p->ticket, memory_order_acquire);
    int64_t until = tally__now_ns() + SPIN_NS;
    for (int spin = 1; gen_of(t) == seen; spin++) {
      CPU_RELAX();
      t = atomic_load_explicit(&p->ticket, memory_order_acquire);
      if ((spin & 255) == 0 && tally__now_ns() > until) break;
    }
    if (gen_of(t) == seen) {
      uint32_t w = atomic_load(&p->wakes);
      atomic_fetch_add(&p->sleepers, 1);
      if (gen_of(atomic_load(&p->ticket)) == seen && !atomic_load(&p->quit)) futex_wait(&p->wakes, w);
      atomic_fetch_sub(&p->sleepers, 1);
      continue; /* a new job, a poke (spin again, ready for the next call) or a spurious wake */
    }
    if (atomic_load(&p->quit)) return NULL;
    seen = gen_of(t);
    work(p, seen, NULL, NULL);
  }
}

/* Workers are pinned, each to its own CPU, none to the caller's: left to itself the
 * scheduler starts a new thread beside its creator (and wakes a sleeping caller on any
 * CPU), and a spinning worker on the caller's CPU takes its time instead of sharing the
 * work, until the scheduler moves one of them milliseconds later. */
static bool pin(pthread_t t, int cpu) {
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(cpu, &one);
  return pthread_setaffinity_np(t, sizeof one, &one) == 0;
}

/* An allowed CPU that is neither `avoid` nor any worker's; -1 if none. */
static int free_cpu(const tally__pool *p, int avoid) {
  cpu_set_t allowed;
  if (sched_getaffinity(0, sizeof allowed, &allowed) != 0) return -1;
  for (int c = 0; c < CPU_SETSIZE; c++) {
    if (!CPU_ISSET(c, &allowed) || c == avoid) continue;
    bool used = false;
    for (int w = 0; w < p->nthreads - 1 && !used; w++) used = p->cpu[w] == c;
    if (!used) return c;
  }
  return -1;
}

/* Move any worker off the calling thread's CPU (rare: one system call when it happens). */
static void keep_off_caller(tally__pool *p) {
  int me = sched_getcpu();
  for (int w = 0; w < p->nthreads - 1; w++) {
    if (p->cpu[w] != me) continue;
    int c = free_cpu(p, me);
    if (c >= 0 && pin(p->threads[w], c)) p->cpu[w] = c;
  }
}

tally__pool *tally__pool_create(int nthreads) {
  if (nthreads < 1) nthreads = 1;
  tally__pool *p = calloc(1, sizeof *p);
  if (!p) return NULL;
  p->nthreads = nthreads;
  atomic_init(&p->ticket, 0);
  atomic_init(&p->done, 0);
  atomic_init(&p->sleepers, 0);
  atomic_init(&p->wakes, 0);
  atomic_init(&p->quit, false);
  if (nthreads > 1) {
    p->threads = calloc((size_t)nthreads - 1, sizeof *p->threads);
    if (!p->threads) { p->nthreads = 1; tally__pool_destroy(p); return NULL; }
    p->cpu = calloc((size_t)nthreads - 1, sizeof *p->cpu);
    if (!p->cpu) { p->nthreads = 1; tally__pool_destroy(p); return NULL; }
    for (int i = 0; i < nthreads - 1; i++) p->cpu[i] = -1;
    int me = sched_getcpu();
    for (int i = 0; i < nthreads - 1; i++) {
      if (pthread_create(&p->threads[i], NULL, worker, p) != 0) {
        p->nthreads = i + 1; /* destroy joins only the ones that started */
        tally__pool_destroy(p);
        return NULL;
      }
      int c = free_cpu(p, me);
      if (c >= 0 && pin(p->threads[i], c)) p->cpu[i] = c;
    }
  }
  return p;
}

void tally__pool_destroy(tally__pool *p) {
  if (!p) return;
  if (p->threads) {
    atomic_store(&p->quit, true);
    /* A new generation ends spins and sleeps (see wake_sleepers). */
    atomic_fetch_add(&p->ticket, (uint64_t)1 << 32);
    wake_sleepers(p);
    for (int i = 0; i < p->nthreads - 1; i++) pthread_join(p->threads[i], NULL);
    free(p->threads);
    free(p->cpu);
  }
  free(p);
}

int tally__pool_threads(const tally__pool *p) { return p->nthreads; }

bool tally__pool_awake(tally__pool *p) { return atomic_load(&p->sleepers) == 0; }

void tally__pool_wake(tally__pool *p) { wake_sleepers(p); }

void tally__pool_run(tally__pool *p, int64_t ntasks, tally__task_fn fn, void *arg,
                     tally__progress_fn progress, void *progress_arg) {
  if (ntasks <= 0) return;
  if (p->nthreads == 1 || ntasks == 1) {
    for (int64_t t = 0; t < ntasks; t++) {
      fn(arg, t);
      if (progress) progress(progress_arg, t + 1);
    }
    return;
  }
  keep_off_caller(p);
  /* At most 2^32 - 1 tasks per job fit the ticket; the driver's chunks are far fewer. */
  p->fn = fn;
  p->arg = arg;
  p->ntasks = ntasks;
  atomic_store_explicit(&p->done, 0, memory_order_relaxed);
  uint32_t gen = gen_of(atomic_load(&p->ticket)) + 1;
  atomic_store(&p->ticket, ((uint64_t)gen << 32) | (uint64_t)ntasks);
  wake_sleepers(p);
  work(p, gen, progress, progress_arg);
  while (atomic_load_explicit(&p->done, memory_order_acquire) < ntasks) CPU_RELAX();
}

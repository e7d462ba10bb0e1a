/* A persistent thread pool: the caller and nthreads-1 workers share the tasks of one job
 * at a time. Workers spin briefly after a job (back-to-back calls start at once), then
 * sleep on a condition variable. */
#ifndef TALLY_CPU_POOL_H
#define TALLY_CPU_POOL_H

#include <stdbool.h>
#include <stdint.h>

typedef struct tally__pool tally__pool;

typedef void (*tally__task_fn)(void *arg, int64_t task);
/* Called on the calling thread only, with the number of tasks finished so far. */
typedef void (*tally__progress_fn)(void *arg, int64_t done);

/* NULL on failure (threads or memory). nthreads >= 1; 1 spawns no thread. */
tally__pool *tally__pool_create(int nthreads);
void tally__pool_destroy(tally__pool *pool);
int tally__pool_threads(const tally__pool *pool);

/* True when no worker sleeps: a job starts on all threads at once. */
bool tally__pool_awake(tally__pool *pool);
/* Wake sleeping workers without a job, so that they spin, ready, for a while. */
void tally__pool_wake(tally__pool *pool);

/* Run fn(arg, t) for t in [0, ntasks) on all threads; returns when all are done.
 * Tasks are claimed in increasing order. progress may be NULL. */
void tally__pool_run(tally__pool *pool, int64_t ntasks, tally__task_fn fn, void *arg,
                     tally__progress_fn progress, void *progress_arg);

#endif

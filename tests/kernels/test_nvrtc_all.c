/* Compiles every GPU kernel specialisation the CUDA backend can ask for through NVRTC,
 * for the lent GPUs' architecture (sm_90, Hopper) or ARCH (e.g. sm_89) — no GPU needed,
 * so CI catches a kernel that does not compile before any GPU machine sees it. Exit 77
 * when NVRTC is absent. Internal API: links the static library.
 *
 *   test_nvrtc_all [ARCH] [--warm]   --warm (on a GPU machine): also fill the disk
 *   kernel cache ($TALLY_CACHE_DIR) for this machine's driver, with every core, so that
 *   the test suites that follow compile nothing; kernels already in the cache are not
 *   compiled again. --warm-for-driver=N: the same for a machine whose driver reports
 *   version N (cuDriverGetVersion), filled here (no driver needed), carried there.
 *   --only=TEXT: only the specialisations whose sources or defines contain TEXT (e.g.
 *   scan.clh, or "-DDT=7 -DSOP=0"), to look at a few kernels' cubins in the cache. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda/cuda_ctx.h"

#define MAX_SPECS 8192

typedef struct {
  const char *const *srcs[MAX_SPECS];
  char *defs[MAX_SPECS];
  int n;
  _Atomic int next, failures;
  const char *arch;
  int driver; /* > 0: also write the disk cache for contexts on this driver */
  const char *only; /* NULL, or a text the sources or defines must contain */
} work;

static int wanted(const work *w, const char *const *srcs, const char *defs) {
  if (!w->only || strstr(defs, w->only)) return 1;
  for (int i = 0; srcs[i]; i++)
    if (strstr(srcs[i], w->only)) return 1;
  return 0;
}

static void collect(const char *const *srcs, const char *defs, void *user) {
  work *w = user;
  if (!wanted(w, srcs, defs)) return;
  for (int i = 0; i < w->n; i++)
    if (w->srcs[i] == srcs && strcmp(w->defs[i], defs) == 0) return; /* seen */
  if (w->n == MAX_SPECS) return;
  w->srcs[w->n] = srcs;
  w->defs[w->n++] = strdup(defs);
}

static void *worker(void *arg) {
  work *w = arg;
  for (int i; (i = atomic_fetch_add(&w->next, 1)) < w->n;) {
    char *log = malloc(1 << 16);
    tally_status s = tally__cuda_compile_only(w->srcs[i], w->defs[i], w->arch, w->driver, log, 1 << 16);
    /* A warning fails too: ptxas drops a launch bound of more threads than an SM holds
     * with only a warning, and the kernel then runs with whatever registers it likes. */
    if (s != TALLY_OK || log[0]) {
      int f = atomic_fetch_add(&w->failures, 1);
      if (f < 5) printf("%s %s [%s]: %s\n", s ? "FAIL" : "FAIL (warning)", w->srcs[i][1], w->defs[i], log);
    }
    free(log);
  }
  return NULL;
}

static work W; /* large: keep it off the stack */

int main(int argc, char **argv) {
#ifdef TALLY_TEST_SKIP_SANITIZED
  printf("SKIP: the sanitizer build leaves this to the plain build (same kernels, NVRTC is "
         "not sanitized)\n");
  return 77;
#endif
  char why[512];
  if (!tally__nvrtc_load(why, sizeof why)) {
    printf("SKIP: %s\n", why);
    return 77;
  }
  W.arch = "sm_90";
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--warm") == 0) {
      const tally__cu_api *cu = tally__cu_load(why, sizeof why);
      if (!cu) { printf("FAIL: --warm needs the CUDA driver: %s\n", why); return 1; }
      cu->cuDriverGetVersion(&W.driver);
    } else if (strncmp(argv[i], "--warm-for-driver=", 18) == 0) {
      W.driver = atoi(argv[i] + 18); /* fill the cache for another machine's driver */
    } else if (strncmp(argv[i], "--only=", 7) == 0) {
      W.only = argv[i] + 7;
    } else {
      W.arch = argv[i];
    }
  }
  int calls = tally__cuda_each_spec(W.arch, collect, &W);
  int nthreads = 2;
  const char *env = getenv("TALLY_TEST_THREADS");
  if (env && atoi(env) > 0) nthreads = atoi(env);
  if (nthreads > 16) nthreads = 16;
  pthread_t th[16];
  for (int t = 0; t < nthreads; t++) pthread_create(&th[t], NULL, worker, &W);
  for (int t = 0; t < nthreads; t++) pthread_join(th[t], NULL);
  int f = atomic_load(&W.failures);
  printf("%s: %d distinct kernel specialisations (of %d requests) compiled for %s, %d failed\n",
         f ? "FAILED" : "PASSED", W.n, calls, W.arch, f);
  for (int i = 0; i < W.n; i++) free(W.defs[i]);
  return f ? 1 : 0;
}

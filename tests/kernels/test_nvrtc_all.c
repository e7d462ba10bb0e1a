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
 *   scan.clh, or "-DDT=7 -DSOP=0"), to look at a few kernels' cubins in the cache; given
 *   again (up to 4), every TEXT must be there (e.g. "-DSOP=4" and "-DCARRY_RTREE=1": the
 *   AFFINE kernels with the radix-32 tree carries). --except=TEXT (up to 4): leave out
 *   the specialisations whose sources or defines contain TEXT, so that several ctests
 *   split the set, each within its time limit on CI's 2 cores (tests/kernels/
 *   CMakeLists.txt). A selection that matches nothing fails.
 *   --fit: the kernels with a launch bound (scan_1pass, -DMINB) are compiled with ptxas's
 *   report, and fail unless MINB blocks of them fit one SM of ARCH by threads and by
 *   shared memory as ptxas counts it (otherwise ptxas caps their registers for blocks
 *   that never run); how many spill, and the most bytes of spill stores, are printed.
 *   --count: only say how many specialisations the selection holds (compiles nothing). */
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
  const char *only[4]; /* texts the sources or defines must all contain */
  int nonly;
  const char *except[4]; /* texts they must not contain */
  int nexcept;
  int fit; /* --fit */
  tally__cuda_sm_limits lim;
  _Atomic int bounded, spilled, most_spill;
} work;

static int contains(const char *const *srcs, const char *defs, const char *text) {
  if (strstr(defs, text)) return 1;
  for (int i = 0; srcs[i]; i++)
    if (strstr(srcs[i], text)) return 1;
  return 0;
}

static int wanted(const work *w, const char *const *srcs, const char *defs) {
  for (int i = 0; i < w->nonly; i++)
    if (!contains(srcs, defs, w->only[i])) return 0;
  for (int i = 0; i < w->nexcept; i++)
    if (contains(srcs, defs, w->except[i])) return 0;
  return 1;
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

/* The number after `key` in text, or -1. */
static long number_after(const char *text, const char *key) {
  const char *at = strstr(text, key);
  return at ? strtol(at + strlen(key), NULL, 10) : -1;
}

/* The number before `key` in text ("43120 bytes smem"), or -1. */
static long number_before(const char *text, const char *key) {
  const char *at = strstr(text, key);
  if (!at) return -1;
  while (at > text && at[-1] == ' ') at--;
  while (at > text && at[-1] >= '0' && at[-1] <= '9') at--;
  return strtol(at, NULL, 10);
}

/* Whether a log line is ptxas's report ("ptxas info    : ..." or "ptxas         . ..."),
 * not a warning or an error. */
static int report_line(const char *line) {
  if (strncmp(line, "ptxas info", 10) == 0) return 1;
  if (strncmp(line, "ptxas", 5) != 0) return 0;
  line += 5;
  while (*line == ' ') line++;
  return *line == '.';
}

/* Check scan_1pass's ptxas report (--fit) and take the report out of the log, which must
 * then be empty like any other (a ptxas warning stays and fails). 0 and why[] on failure. */
static int check_fit(work *w, const char *defs, char *log, char *why, size_t len) {
  long block = number_after(defs, "-DBLOCK="), minb = number_after(defs, "-DMINB=");
  const char *mine = strstr(log, "entry function 'scan_1pass'"); /* its own lines only */
  long smem = mine ? number_before(mine, " bytes smem") : -1;
  long regs = mine ? number_after(mine, "Used ") : -1;
  long spill = mine ? number_before(mine, " bytes spill stores") : -1;
  if (block < 0 || minb < 0 || smem < 0 || regs < 0 || spill < 0) {
    snprintf(why, len, "no ptxas report for scan_1pass (block %ld, minb %ld, smem %ld, "
             "registers %ld)", block, minb, smem, regs);
    return 0;
  }
  atomic_fetch_add(&w->bounded, 1);
  if (spill > 0) atomic_fetch_add(&w->spilled, 1);
  int most = atomic_load(&w->most_spill);
  while (spill > most && !atomic_compare_exchange_weak(&w->most_spill, &most, (int)spill)) {}
  char *out = log;
  for (char *line = log; *line;) {
    char *end = strchr(line, '\n');
    size_t n = end ? (size_t)(end - line) + 1 : strlen(line);
    if (!report_line(line)) { memmove(out, line, n); out += n; }
    line += n;
  }
  *out = '\0';
  const long unit = w->lim.smem_unit, threads = (block + 32) * minb;
  const long per = (smem + w->lim.smem_reserved + unit - 1) / unit * unit;
  if (per * minb > w->lim.smem || threads > w->lim.threads) {
    snprintf(why, len, "MINB %ld blocks do not fit an SM of %s: %ld of %d bytes of shared memory "
             "(%ld bytes a block), %ld of %d threads; %ld registers", minb, w->arch, per * minb,
             w->lim.smem, smem, threads, w->lim.threads, regs);
    return 0;
  }
  return 1;
}

static void *worker(void *arg) {
  work *w = arg;
  for (int i; (i = atomic_fetch_add(&w->next, 1)) < w->n;) {
    char *log = malloc(1 << 16), defs[512], why[512] = "";
    /* scan_1pass is the kernel with a launch bound; the scan ladder's have none */
    const int bounded = w->fit && strstr(w->defs[i], "-DMINB=") && !strstr(w->defs[i], "-DSCAN_LADDER=1");
    snprintf(defs, sizeof defs, "%s%s", w->defs[i], bounded ? " --ptxas-options=-v" : "");
    tally_status s = tally__cuda_compile_only(w->srcs[i], defs, w->arch, w->driver, log, 1 << 16);
    int fits = s != TALLY_OK || !bounded || check_fit(w, w->defs[i], log, why, sizeof why);
    /* A warning fails too: ptxas drops a launch bound of more threads than an SM holds
     * with only a warning, and the kernel then runs with whatever registers it likes. */
    if (s != TALLY_OK || log[0] || !fits) {
      int f = atomic_fetch_add(&w->failures, 1);
      if (f < 5) printf("%s %s [%s]: %s%s\n", s ? "FAIL" : fits ? "FAIL (warning)" : "FAIL (fit)",
                        w->srcs[i][1], w->defs[i], log, why);
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
  unsetenv("TALLY_SCAN_CARRIES"); /* it would take one tree of carries for every length */
  char why[512];
  if (!tally__nvrtc_load(why, sizeof why)) {
    printf("SKIP: %s\n", why);
    return 77;
  }
  W.arch = "sm_90";
  int count_only = 0;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--warm") == 0) {
      const tally__cu_api *cu = tally__cu_load(why, sizeof why);
      if (!cu) { printf("FAIL: --warm needs the CUDA driver: %s\n", why); return 1; }
      cu->cuDriverGetVersion(&W.driver);
    } else if (strncmp(argv[i], "--warm-for-driver=", 18) == 0) {
      W.driver = atoi(argv[i] + 18); /* fill the cache for another machine's driver */
    } else if (strncmp(argv[i], "--only=", 7) == 0) {
      if (W.nonly == 4) {
        printf("FAIL: more than 4 --only\n");
        return 1;
      }
      W.only[W.nonly++] = argv[i] + 7;
    } else if (strncmp(argv[i], "--except=", 9) == 0) {
      if (W.nexcept == 4) {
        printf("FAIL: more than 4 --except\n");
        return 1;
      }
      W.except[W.nexcept++] = argv[i] + 9;
    } else if (strcmp(argv[i], "--fit") == 0) {
      W.fit = 1;
    } else if (strcmp(argv[i], "--count") == 0) {
      count_only = 1;
    } else {
      W.arch = argv[i];
    }
  }
  if (W.fit && W.driver) { /* the report's option would name other cache files */
    printf("FAIL: --fit does not go with --warm\n");
    return 1;
  }
  tally__cuda_arch_sm_limits(W.arch, &W.lim);
  int calls = tally__cuda_each_spec(W.arch, collect, &W);
  if (W.n == 0) { /* a selection (or $TALLY_KERNEL_DEFS) that reached no kernel tests nothing */
    printf("FAILED: no kernel specialisation for %s matches every --only and no --except\n", W.arch);
    return 1;
  }
  if (count_only) { /* to choose how the ctests split the set */
    printf("%d distinct kernel specialisations (of %d requests) selected for %s\n", W.n, calls, W.arch);
    for (int i = 0; i < W.n; i++) free(W.defs[i]);
    return 0;
  }
  int nthreads = 2;
  const char *env = getenv("TALLY_TEST_THREADS");
  if (env && atoi(env) > 0) nthreads = atoi(env);
  if (nthreads > 16) nthreads = 16;
  pthread_t th[16];
  for (int t = 0; t < nthreads; t++) pthread_create(&th[t], NULL, worker, &W);
  for (int t = 0; t < nthreads; t++) pthread_join(th[t], NULL);
  int f = atomic_load(&W.failures);
  if (W.fit)
    printf("%d kernels with a launch bound checked against an SM of %s (%d threads, %d bytes of "
           "shared memory); %d of them spill registers, at most %d bytes of spill stores\n", atomic_load(&W.bounded),
           W.arch, W.lim.threads, W.lim.smem, atomic_load(&W.spilled), atomic_load(&W.most_spill));
  printf("%s: %d distinct kernel specialisations (of %d requests) compiled for %s, %d failed\n",
         f ? "FAILED" : "PASSED", W.n, calls, W.arch, f);
  for (int i = 0; i < W.n; i++) free(W.defs[i]);
  return f ? 1 : 0;
}

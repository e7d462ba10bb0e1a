/* tally_conformance DEVICE [--quick] [--variant NAME] [--scan-variant NAME] [--hist-variant NAME] [--case K] [--sample K] [--groups LIST]
 *                  [--host-input auto|device]
 *
 * --host-input: opt.host_input of every call; default device, so that on a GPU the suite
 * checks the GPU's kernels (with auto a GPU context reduces many host arrays on the host's
 * CPU backend, which the suite checks on `cpu`).
 *
 * --sample K runs one case in K (which ones depends on the seed); --groups runs only the
 * named groups (sizes,nan,layouts,segments,plans,user,huge,scan,hist); --ops and --dtypes only the
 * cases of those ops and dtypes (the scan group's own checks beside its cases, and the
 * hist group, run whole). TALLY_TEST_TRACE=1 prints each case as it begins. For the GPU
 * ladder's rungs on slow devices (PoCL in CI, where each new kernel specialisation takes
 * seconds to build): each rung on a few specialisations and a sample of cases, every run
 * a different sample.
 *
 * The backend-agnostic conformance suite: every op, dtype, size class, distribution,
 * layout, accuracy and NaN mode, checked against references written independently of the
 * library (tests/support) with the bounds of docs/SEMANTICS.md. Exit 0: all passed;
 * 1: failures; 77: the device cannot be opened here (skipped). */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sanitized.h"
#include "tc.h"

static int usage(void) {
  fprintf(stderr, "usage: tally_conformance DEVICE [--quick] [--variant NAME] [--scan-variant NAME] [--hist-variant NAME] [--case K] "
                  "[--sample K] [--groups sizes,nan,layouts,segments,plans,user,huge,scan,hist] "
                  "[--ops sum,max,...] [--dtypes f32,i32,...] [--host-input auto|device]\n");
  return 2;
}

/* Whether name is one of the comma-separated list's items. */
static int in_list(const char *list, const char *name) {
  size_t n = strlen(name);
  for (const char *p = list; *p;) {
    const char *e = strchr(p, ',');
    size_t len = e ? (size_t)(e - p) : strlen(p);
    if (len == n && strncmp(p, name, n) == 0) return 1;
    if (!e) break;
    p = e + 1;
  }
  return 0;
}

static double now(void) {
  struct timespec ts;
  timespec_get(&ts, TIME_UTC);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void report_bounds(const tc_run *R) {
  printf("worst error / bound per (op, dtype), DEFAULT/FAST (above 1: a failure; ops and\n"
         "dtypes not listed are exact and were compared bit for bit):\n");
  for (int op = 0; op < TALLY_OP_COUNT_; op++) {
    int any = 0;
    for (int dt = 0; dt < TALLY_DTYPE_COUNT_; dt++)
      any |= R->worst[op][dt][0] > 0 || R->worst[op][dt][1] > 0;
    if (!any) continue;
    printf("  %-6s", tally_op_name((tally_op)op));
    for (int dt = 0; dt < TALLY_DTYPE_COUNT_; dt++) {
      if (R->worst[op][dt][0] <= 0 && R->worst[op][dt][1] <= 0) continue;
      printf(" %s:%.2g", tally_dtype_name((tally_dtype)dt), R->worst[op][dt][0]);
      if (R->worst[op][dt][1] > 0) printf("/%.2g", R->worst[op][dt][1]);
    }
    printf("\n");
  }
}

int main(int argc, char **argv) {
  tc_run R;
  memset(&R, 0, sizeof R);
  R.only_case = -1;
  R.host_input = TALLY_HOST_INPUT_DEVICE;
  R.trace = getenv("TALLY_TEST_TRACE") && *getenv("TALLY_TEST_TRACE") == '1';
  const char *device = NULL, *only_groups = NULL;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--quick") == 0) R.quick = 1;
    else if (strcmp(argv[i], "--variant") == 0 && i + 1 < argc) R.variant_name = argv[++i];
    else if (strcmp(argv[i], "--scan-variant") == 0 && i + 1 < argc) R.scan_variant = argv[++i];
    else if (strcmp(argv[i], "--hist-variant") == 0 && i + 1 < argc) R.hist_variant = argv[++i];
    else if (strcmp(argv[i], "--case") == 0 && i + 1 < argc) R.only_case = strtoll(argv[++i], NULL, 10);
    else if (strcmp(argv[i], "--sample") == 0 && i + 1 < argc) R.sample = strtoll(argv[++i], NULL, 10);
    else if (strcmp(argv[i], "--groups") == 0 && i + 1 < argc) only_groups = argv[++i];
    else if (strcmp(argv[i], "--ops") == 0 && i + 1 < argc) R.only_ops = argv[++i];
    else if (strcmp(argv[i], "--dtypes") == 0 && i + 1 < argc) R.only_dtypes = argv[++i];
    else if (strcmp(argv[i], "--host-input") == 0 && i + 1 < argc) {
      const char *v = argv[++i];
      if (strcmp(v, "auto") == 0) R.host_input = TALLY_HOST_INPUT_AUTO;
      else if (strcmp(v, "device") == 0) R.host_input = TALLY_HOST_INPUT_DEVICE;
      else return usage();
    }
    else if (argv[i][0] == '-') return usage();
    else if (!device) device = argv[i];
    else return usage();
  }
  if (!device) return usage();
  if (tt_skip_sanitized_opencl(device)) return 77;
  R.device = device;
  R.seed = tt_test_seed("tally_conformance");

  tally_status s = tally_open(device, &R.ctx);
  if (s == TALLY_EUNSUPPORTED || s == TALLY_ENODEV || s == TALLY_EDRIVER) {
    printf("SKIP: device '%s' cannot be opened here: %s (%s)\n", device, tally_status_name(s),
           tally_errmsg(NULL));
    return 77;
  }
  if (s != TALLY_OK) {
    printf("FAIL: tally_open(\"%s\"): %s: %s\n", device, tally_status_name(s), tally_errmsg(NULL));
    return 1;
  }
  if (R.variant_name) {
    int found = 0;
    for (int i = 0; tally_variant_name(R.ctx, i); i++)
      found |= strcmp(tally_variant_name(R.ctx, i), R.variant_name) == 0;
    if (!found) {
      printf("SKIP: device '%s' has no variant '%s'\n", device, R.variant_name);
      tally_close(R.ctx);
      return 77;
    }
    R.variant = strcmp(R.variant_name, "sequential") == 0 ? TC_SEQUENTIAL
                : strcmp(R.variant_name, "naive") == 0    ? TC_NAIVE
                : strcmp(R.variant_name, "best") == 0     ? TC_BEST
                                                          : TC_OTHER;
  }
  tally_context_info info;
  memset(&info, 0, sizeof info);
  if (tally_context_describe(R.ctx, &info) == TALLY_OK)
    printf("device %s: backend %s, %s, isa %s, %d threads%s%s%s\n", device, info.backend,
           info.device, info.isa, info.threads, R.quick ? ", quick" : "",
           R.variant_name ? ", variant " : "", R.variant_name ? R.variant_name : "");

  /* GPU ladder rungs run slice by slice (see tc_run_case): no cases of many slices. */
  if (R.variant_name && strcmp(R.variant_name, "best") != 0 && strcmp(info.backend, "cpu") != 0)
    R.max_slices = 1024;

  struct { const char *name; void (*fn)(tc_run *); } groups[] = {
      {"sizes", tc_group_sizes},       {"nan", tc_group_nan},     {"layouts", tc_group_layouts},
      {"segments", tc_group_segments}, {"plans", tc_group_plans}, {"user", tc_group_user},
      {"huge", tc_group_huge},         {"scan", tc_group_scan},   {"hist", tc_group_hist}};
  double t0 = now();
  size_t ngroups = sizeof groups / sizeof groups[0];
  if (only_groups) { /* every name must be a group: a typo must not pass as "0 cases" */
    for (const char *t = only_groups; *t;) {
      size_t len = strcspn(t, ","), g = 0;
      while (g < ngroups && !(strlen(groups[g].name) == len && strncmp(groups[g].name, t, len) == 0))
        g++;
      if (g == ngroups) {
        fprintf(stderr, "tally_conformance: --groups: no group '%.*s'\n", (int)len, t);
        return usage();
      }
      t += len + (t[len] == ',');
    }
  }
  for (int which = 0; which < 2; which++) { /* names must exist: a typo is no filter */
    const char *list = which ? R.only_dtypes : R.only_ops;
    for (const char *t = list ? list : ""; *t;) {
      size_t len = strcspn(t, ",");
      char name[32];
      snprintf(name, sizeof name, "%.*s", (int)(len < 31 ? len : 31), t);
      tally_op op;
      tally_dtype dt;
      if (which ? tally_dtype_from_name(name, &dt) != TALLY_OK : tally_op_from_name(name, &op) != TALLY_OK) {
        fprintf(stderr, "tally_conformance: --%s: no %s '%s'\n", which ? "dtypes" : "ops",
                which ? "dtype" : "op", name);
        return usage();
      }
      t += len + (t[len] == ',');
    }
  }
  if (R.sample > 1) printf("sample: one case in %" PRId64 "\n", R.sample);
  if (R.only_ops || R.only_dtypes)
    printf("only ops %s, dtypes %s\n", R.only_ops ? R.only_ops : "(all)",
           R.only_dtypes ? R.only_dtypes : "(all)");
  for (size_t g = 0; g < ngroups; g++) {
    if (only_groups && !in_list(only_groups, groups[g].name)) continue;
    /* Scans and histograms have no variants: the variant runs leave them to the others. */
    if ((strcmp(groups[g].name, "scan") == 0 || strcmp(groups[g].name, "hist") == 0) &&
        R.variant_name && strcmp(R.variant_name, "best") != 0)
      continue;
    int64_t c0 = R.cases, f0 = R.failures;
    double tg = now();
    groups[g].fn(&R);
    printf("  %-9s %7" PRId64 " cases, %4" PRId64 " failures, %6.1f s\n", groups[g].name,
           R.cases - c0, R.failures - f0, now() - tg);
    fflush(stdout);
  }
  if (R.skipped)
    printf("  (%" PRId64 " cases of more than %d slices left out: variant %s reduces slice by "
           "slice)\n", R.skipped, R.max_slices, R.variant_name);
  if (R.skipped_device)
    printf("  (%" PRId64 " scan/histogram cases on device arrays skipped: the backend does not "
           "take device arrays for them yet)\n", R.skipped_device);
  report_bounds(&R);
  if (R.failures) {
    printf("failures per (op, dtype):");
    for (int op = 0; op < TALLY_OP_COUNT_; op++)
      for (int dt = 0; dt < TALLY_DTYPE_COUNT_; dt++)
        if (R.fail_by[op][dt])
          printf(" %s/%s:%" PRId64, tally_op_name((tally_op)op), tally_dtype_name((tally_dtype)dt),
                 R.fail_by[op][dt]);
    printf(" other:%" PRId64 "\n", R.other_failures);
  }
  printf("%s: %" PRId64 " cases, %" PRId64 " failures, %" PRId64 " skipped, %.1f s (seed %" PRIu64 ")\n",
         R.failures ? "FAILED" : "PASSED", R.cases, R.failures, R.skipped + R.skipped_device,
         now() - t0, R.seed);
  tally_close(R.ctx);
  return R.failures ? 1 : 0;
}

/* tally bench: tally's variants, the peers (numpy, an OpenMP loop; CUB on a GPU) and the
 * probe (the plainest fastest read of the same bytes), timed side by side in one run;
 * what is measured and how: bench/README.md. Here: the loops over ops, dtypes and sizes.
 * bench_point.c measures one size on the CPU, bench_gpu.c on a GPU, bench_report.c and
 * bench_report_gpu.c print it; the pieces shared with nothing else of the CLI live in
 * bench/ (data, clock, timing, probe, peers, references). */
#include "bench_run.h"
#include "bench_util.h"
#include "cli.h"
#include "commands.h"

#include <stdlib.h>
#include <string.h>

/* "best,naive", "ladder" or "all" into r->variants; usage errors print their line. */
static int resolve_variants(bench_run *r) {
  const char *spec = r->o->variants;
  if (strcmp(spec, "ladder") == 0 || strcmp(spec, "all") == 0) {
    for (int i = 0; r->nvariants < BENCH_MAX_VARIANTS; i++) {
      const char *v = tally_variant_name(r->ctx, i);
      if (!v) break;
      r->variants[r->nvariants++] = v;
    }
    return 0;
  }
  char *copy = strdup(spec);
  if (!copy) return -1;
  int rc = 0;
  for (char *save = NULL, *item = strtok_r(copy, ",", &save); item && !rc;
       item = strtok_r(NULL, ",", &save)) {
    const char *found = NULL;
    for (int i = 0; !found; i++) {
      const char *v = tally_variant_name(r->ctx, i);
      if (!v) break;
      if (strcmp(v, item) == 0) found = v;
    }
    if (!found) {
      cli_error("--variants: %s: not a variant of %s (see tally info)", item, r->info.backend);
      rc = -1;
    } else if (r->nvariants == BENCH_MAX_VARIANTS) {
      cli_error("--variants: at most %d", BENCH_MAX_VARIANTS);
      rc = -1;
    } else {
      r->variants[r->nvariants++] = found;
    }
  }
  free(copy);
  if (!rc && r->nvariants == 0) {
    cli_error("--variants: empty list");
    rc = -1;
  }
  return rc;
}

/* A GPU backend, or the GPU method asked for: bench_gpu.c measures. */
static int is_gpu(const bench_run *r) {
  return r->o->gpu_method || strcmp(r->info.backend, "cuda") == 0 ||
         strcmp(r->info.backend, "opencl") == 0;
}

/* Every size of one (op, dtype): numpy first (one process for all sizes, while this one
 * holds no big buffers and no spinning threads), then each size. 0 measured, 1 skipped
 * (the op is not defined on the dtype), -1 failed. */
static int measure_op_dtype(const bench_run *r, tally_op op, tally_dtype dt) {
  const bench_opts *o = r->o;
  tally_dtype rt;
  tally_status st = tally_result_dtype(op, dt, &rt);
  if (st != TALLY_OK) {
    cli_error("note: skipping %s on %s: %s", tally_op_name(op), tally_dtype_name(dt),
              tally_status_str(st));
    return 1;
  }
  if (r->gpu) return bench_gpu_measure_op_dtype(r, op, dt, rt);
  numpy_point *np_pts = calloc((size_t)o->nsizes, sizeof *np_pts);
  bench_point *p = malloc(sizeof *p);
  if (!np_pts || !p) {
    free(np_pts);
    free(p);
    cli_error("out of memory");
    return -1;
  }
  for (int i = 0; i < o->nsizes; i++) np_pts[i].median_us = -1;
  if (!o->no_peers && r->numpy.present) {
    bench_settle();
    if (numpy_peer_run(&r->numpy, op, dt, o->sizes, o->nsizes, o->seed, &o->timing,
                       o->nan == TALLY_NAN_IGNORE, np_pts) != 0)
      cli_error("note: the numpy peer failed on %s %s; reported absent", tally_op_name(op),
                tally_dtype_name(dt));
  }
  int rc = 0, rows = 0;
  for (int i = 0; i < o->nsizes && rc == 0; i++) {
    memset(p, 0, sizeof *p);
    p->op = op;
    p->dt = dt;
    p->rt = rt;
    p->n = o->sizes[i];
    p->numpy_us = np_pts[i].median_us;
    p->numpy_err = np_pts[i].rel_err;
    rc = bench_measure_point(r, p);
    if (rc == 0) {
      bench_report_point(r, p);
      rows += p->nrows;
    }
  }
  if (rc == 0 && rows == 0)
    cli_error("note: %s on %s: none of the variants asked for does it", tally_op_name(op),
              tally_dtype_name(dt));
  free(np_pts);
  free(p);
  return rc;
}

/* One whole run on `device` (NULL: $TALLY_DEVICE, else auto). */
static int run_on(bench_opts *o, const char *device, int local, bench_sweep *sweep) {
  bench_run r;
  memset(&r, 0, sizeof r);
  r.o = o;
  r.local = local;
  r.sweep = sweep;
  int rc;
  tally_status st = tally_open(device, &r.ctx);
  if (st != TALLY_OK) return cli_lib_error(NULL, st);
  if ((st = tally_context_describe(r.ctx, &r.info)) != TALLY_OK) {
    rc = cli_lib_error(r.ctx, st);
  } else if (resolve_variants(&r) != 0) {
    rc = CLI_EXIT_USAGE;
  } else if (o->host && !is_gpu(&r)) {
    cli_error("--host: only for GPU devices (%s reads host memory anyway)", r.info.backend);
    rc = CLI_EXIT_USAGE;
  } else if (sweep && strcmp(r.info.backend, "opencl") != 0) {
    cli_error("--local-sizes: only for OpenCL devices (this is %s)", r.info.backend);
    rc = CLI_EXIT_USAGE;
  } else if ((r.gpu = is_gpu(&r)) && bench_gpu_init(&r) != 0) {
    rc = CLI_EXIT_FAIL;
  } else {
    bench_utc_date(r.date, sizeof r.date);
    if (!o->no_peers && !r.gpu) numpy_peer_find(&r.numpy);
    if (sweep && !o->json) printf("# work-group size %d (device %s)\n", local, device);
    bench_report_header(&r);
    int measured = 0;
    rc = 0;
    for (int i = 0; i < o->nops && rc == 0; i++) {
      for (int k = 0; k < o->ndtypes && rc == 0; k++) {
        int x = measure_op_dtype(&r, o->ops[i], o->dtypes[k]);
        if (x < 0) rc = CLI_EXIT_FAIL;
        else if (x == 0) measured++;
      }
    }
    if (rc == 0 && !measured) {
      cli_error("nothing to measure: no op asked for is defined on the dtypes asked for");
      rc = CLI_EXIT_FAIL;
    }
  }
  if (r.gpu) bench_gpu_free(&r);
  tally_close(r.ctx);
  return rc;
}

/* --local-sizes: each work-group size in turn (the device string gets local=N), then the
 * best size of each point. */
static int sweep_local(bench_opts *o) {
  const char *base = o->device;
  if (!base || !*base) base = getenv("TALLY_DEVICE");
  if (!base || !*base) base = "opencl";
  if (strncmp(base, "opencl", 6) != 0) {
    cli_error("--local-sizes: only for OpenCL devices (--device %s)", base);
    return CLI_EXIT_USAGE;
  }
  bench_sweep *sw = calloc(1, sizeof *sw);
  if (!sw) return cli_error("out of memory"), CLI_EXIT_FAIL;
  int rc = 0;
  for (int i = 0; i < o->nlocal && rc == 0; i++) {
    char dev[160];
    snprintf(dev, sizeof dev, "%s%slocal=%d", base, strchr(base, ':') ? "," : ":", o->local_sizes[i]);
    rc = run_on(o, dev, o->local_sizes[i], sw);
  }
  if (rc == 0) {
    if (!o->json) printf("# the best work-group size of each point\n%-13s %-6s %10s %-10s %-8s %6s %12s %9s\n",
                         "op", "dtype", "n", "variant", "acc", "local", "median_us", "GB/s");
    for (int i = 0; i < sw->n; i++) {
      const bench_sweep_entry *e = &sw->e[i];
      char n[32];
      bench_format_n(n, sizeof n, e->n);
      double gbps = e->bytes / (e->median_us * 1e3);
      if (o->json)
        printf("{\"kind\":\"local_size_best\",\"op\":\"%s\",\"dtype\":\"%s\",\"n\":%lld,"
               "\"variant\":\"%s\",\"accuracy\":\"%s\",\"local\":%d,\"median_us\":%g,\"gbps\":%g}\n",
               tally_op_name(e->op), tally_dtype_name(e->dt), (long long)e->n, e->variant,
               bench_acc_name(e->acc), e->local, e->median_us, gbps);
      else
        printf("%-13s %-6s %10s %-10s %-8s %6d %12.3f %9.2f\n", tally_op_name(e->op),
               tally_dtype_name(e->dt), n, e->variant, bench_acc_name(e->acc), e->local,
               e->median_us, gbps);
    }
  }
  free(sw);
  return rc;
}

int tally_cmd_bench(int argc, char **argv) {
  bench_opts o;
  int rc = bench_opts_parse(argc, argv, &o);
  if (rc >= 0) return rc;
  rc = o.scan || o.hist ? bench_scan_hist(&o) : o.nlocal ? sweep_local(&o) : run_on(&o, o.device, 0, NULL);
  bench_opts_free(&o);
  return rc;
}

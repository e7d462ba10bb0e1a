/* `tally bench`'s output on GPU devices (bench_gpu.c): the table, or one JSON object per
 * line and row. The columns are the CPU's (bench_report.c), from the GPU method's figures:
 * median_us is tally_reduce()'s call time, the probe and the peer (CUB) are cub_peer's
 * call times; JSON adds the peer's and the probe's kernel times (CUDA events), and both
 * add the speed-up over the first variant where several are measured. */
#include "bench_run.h"
#include "cli.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

/* The first row with the same accuracy: the "first" of the speed-up. */
static const bench_row *first_row(const bench_point *p, const bench_row *w) {
  for (int k = 0; k < p->nrows; k++)
    if (p->rows[k].acc == w->acc) return &p->rows[k];
  return w;
}

static double gbps_of(double bytes, double us) { return us > 0 ? bytes / us * 1e-3 : NAN; }

static void print_json(const bench_run *r, const bench_point *p, const bench_row *w) {
  const tally_context_info *in = &r->info;
  double t = w->plan.median_us, gbps = gbps_of(p->bytes, t);
  double probe_gbps = gbps_of(p->bytes, p->probe_us);
  int no_probe = p->probe_us < 0, no_peer = !p->peer;
  char cc[16];
  snprintf(cc, sizeof cc, "%d.%d", in->cc_major, in->cc_minor);
  printf("{\"backend\":");
  cli_json_string(stdout, in->backend);
  bench_json_str("device", in->device);
  bench_json_str("arch", in->arch);
  bench_json_str("cc", cc);
  printf(",\"sms\":%d,\"l2_bytes\":%" PRId64 ",\"driver_version\":%d", in->compute_units,
         in->l2_bytes, in->driver_version);
  bench_json_str("isa", in->isa);
  printf(",\"threads\":%d", in->threads);
  bench_json_str("date", r->date);
  bench_json_str("op", tally_op_name(p->op));
  bench_json_str("dtype", tally_dtype_name(p->dt));
  printf(",\"n\":%" PRId64, p->n);
  bench_json_str("variant", w->variant);
  bench_json_str("accuracy", bench_acc_name(w->acc));
  bench_json_str("nan", bench_nan_name(r->o->nan));
  bench_json_str("mem", r->o->host == 2 ? "pinned" : r->o->host ? "host" : "device");
  bench_json_str("timing", "wall");
  bench_json_num("median_us", t, 0);
  bench_json_num("min_us", w->plan.min_us, 0);
  printf(",\"runs\":%d", w->plan.runs);
  bench_json_str("cub_version", r->cub.present ? r->cub.version : NULL);
  bench_json_num("bytes", p->bytes, 0);
  printf(",\"flush_bytes\":%" PRId64, r->flush_bytes);
  bench_json_num("gbps", gbps, 0);
  bench_json_str("probe", r->o->host ? "h2d" : "probe");
  bench_json_num("probe_us", p->probe_us, no_probe);
  bench_json_num("probe_gbps", probe_gbps, no_probe);
  bench_json_num("probe_kernel_us", p->probe_kernel_us, no_probe);
  bench_json_num("probe_gbps_kernel", gbps_of(p->bytes, p->probe_kernel_us), no_probe);
  bench_json_num("ratio_probe", gbps / probe_gbps, no_probe);
  bench_json_str("probe_note", p->probe_note);
  bench_json_str("peer", p->peer);
  bench_json_num("peer_us", p->peer_us, no_peer);
  bench_json_num("peer_gbps", gbps_of(p->bytes, p->peer_us), no_peer);
  bench_json_num("peer_kernel_us", p->peer_kernel_us, no_peer);
  bench_json_num("peer_gbps_kernel", gbps_of(p->bytes, p->peer_kernel_us), no_peer);
  bench_json_num("ratio_peer", p->peer_us / t, no_peer);
  bench_json_num("peer_rel_err", p->peer_err, no_peer);
  bench_json_str("peer_note", p->peer_note);
  bench_json_num("speedup_first", first_row(p, w)->plan.median_us / t, 0);
  bench_json_num("max_rel_err", w->err, !p->have_ref);
  printf("}\n");
}

void bench_gpu_report_header(const bench_run *r) {
  const bench_opts *o = r->o;
  const tally_context_info *in = &r->info;
  if (o->json) return;
  printf("# tally bench %s: %s, %s", r->date, in->backend, in->device);
  if (in->compute_units)
    printf(" (%s, %d SMs, L2 %.0f MiB, driver %d)", in->arch, in->compute_units,
           (double)in->l2_bytes / (1 << 20), in->driver_version);
  printf("; nan %s\n", bench_nan_name(o->nan));
  printf("# input in %s memory; a run: one tally_reduce(), host clock until the result is "
         "on the host; median of %d runs", o->host == 2 ? "pinned host" : o->host ? "host" : "device",
         o->timing.repeat ? o->timing.repeat : 50);
  if (!o->timing.repeat) printf(" (fewer past 5 s)");
  printf(" after 2 warm-up calls, in %d rounds; ", o->timing.rounds);
  if (r->flush_bytes > 0)
    printf("L2 flushed before each (2 x %.0f MiB)\n", (double)r->flush_bytes / (1 << 20));
  else
    printf("no L2 flush (--flush 0: warm L2)\n");
  if (!r->cub.present) {
    printf("# probe and peer absent: %s\n", r->cub.why);
  } else {
    printf("# probe: %s, timed the same way (%s, CUB %s)\n",
           o->host ? "pinned host-to-device copy (cub_peer --h2d)"
                   : "16-byte loads of the same bytes (cub_peer --probe)",
           r->cub.path, r->cub.version);
    if (o->no_peers) printf("# peers: none (--no-peers)\n");
    else if (o->host) printf("# peers: none for host input (ratio_probe is the figure)\n");
    else printf("# peers: cub::DeviceReduce (cub_peer) for sum, min, max, argmin, argmax\n");
  }
  printf("%-13s %-5s %7s %-10s %-7s %10s %7s %10s %11s %-6s %10s %10s %11s", "op", "dtype", "n",
         "variant", "acc", "median_us", "GB/s", "probe_GB/s", "ratio_probe", "peer", "peer_us",
         "ratio_peer", "max_rel_err");
  if (r->nvariants > 1) printf(" %7s", "x_first");
  printf("\n");
  fflush(stdout);
}

static void print_row(const bench_run *r, const bench_point *p, const bench_row *w) {
  char n[32], probe[32] = "-", ratio_probe[32] = "-", peer_us[32] = "-", ratio[32] = "-",
              err[32] = "-";
  double t = w->plan.median_us, gbps = gbps_of(p->bytes, t);
  bench_format_n(n, sizeof n, p->n);
  if (p->probe_us > 0) {
    double pg = gbps_of(p->bytes, p->probe_us);
    snprintf(probe, sizeof probe, "%.2f", pg);
    snprintf(ratio_probe, sizeof ratio_probe, "%.2f", gbps / pg);
  }
  if (p->peer) {
    snprintf(peer_us, sizeof peer_us, "%.3f", p->peer_us);
    snprintf(ratio, sizeof ratio, "%.2f", p->peer_us / t);
  }
  if (p->have_ref) snprintf(err, sizeof err, "%.2g", w->err);
  printf("%-13s %-5s %7s %-10s %-7s %10.3f %7.2f %10s %11s %-6s %10s %10s %11s",
         tally_op_name(p->op), tally_dtype_name(p->dt), n, w->variant, bench_acc_name(w->acc), t,
         gbps, probe, ratio_probe, p->peer ? p->peer : "-", peer_us, ratio, err);
  if (r->nvariants > 1) printf(" %7.2f", first_row(p, w)->plan.median_us / t);
  printf("\n");
}

void bench_gpu_report_point(const bench_run *r, const bench_point *p) {
  for (int k = 0; k < p->nrows; k++) {
    if (r->o->json) print_json(r, p, &p->rows[k]);
    else print_row(r, p, &p->rows[k]);
  }
  fflush(stdout);
}

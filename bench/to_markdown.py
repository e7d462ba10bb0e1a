#!/usr/bin/env python3
"""Turn `tally bench --json` lines (stdin or files) into the Markdown tables of
docs/PERFORMANCE.md: one row per result, with the ratios the issues ask about (CPU rows:
numpy and OpenMP; GPU rows: CUB and the probe)."""
import json
import sys


def fmt(v, spec):
    return "-" if v is None else format(v, spec)


def size_name(n):
    e = n.bit_length() - 1
    return f"2^{e}" if n == 1 << e else str(n)


def gpu_table(rows):
    """GPU rows (tools/tally/bench_report_gpu.c): CUB and the probe instead of numpy and
    OpenMP; the speed-up over the first variant where there are several."""
    r0 = rows[0]
    l2 = r0["l2_bytes"] / (1 << 20)
    print(f"{r0['device']} ({r0['arch']}, {r0['sms']} SMs, L2 {l2:.0f} MiB, driver "
          f"{r0['driver_version']}, CUB {r0.get('cub_version') or '-'}), {r0['date']}; "
          f"input in {r0['mem']} memory, L2 flushed ({r0['flush_bytes'] >> 20} MiB x 2)\n")
    ladder = len({r["variant"] for r in rows}) > 1
    probe = "H2D" if r0["probe"] == "h2d" else "probe"
    print(f"| op | dtype | n | variant | accuracy | median µs | GB/s | {probe} GB/s | × {probe} | "
          "CUB µs | × CUB | CUB kernel µs | max rel err |" + (" × first |" if ladder else ""))
    print("|---|---|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|" +
          ("---:|" if ladder else ""))
    for r in rows:
        print(f"| {r['op']} | {r['dtype']} | {size_name(r['n'])} | {r['variant']} | "
              f"{r['accuracy']} | {fmt(r['median_us'], '.3f')} | {fmt(r['gbps'], '.1f')} | "
              f"{fmt(r['probe_gbps'], '.1f')} | {fmt(r['ratio_probe'], '.2f')} | "
              f"{fmt(r['peer_us'], '.3f')} | {fmt(r['ratio_peer'], '.2f')} | "
              f"{fmt(r['peer_kernel_us'], '.3f')} | {fmt(r.get('max_rel_err'), '.2g')} |" +
              (f" {fmt(r['speedup_first'], '.2f')} |" if ladder else ""))


def main():
    rows = []
    for src in sys.argv[1:] or ["-"]:
        f = sys.stdin if src == "-" else open(src)
        for line in f:
            line = line.strip()
            if line.startswith("{"):
                rows.append(json.loads(line))
    if not rows:
        return
    r0 = rows[0]
    if "flush_bytes" in r0:  # the GPU method (a GPU device, or --gpu-method)
        return gpu_table(rows)
    print(f"{r0['device']} ({r0['isa']}, {r0['threads']} threads), {r0['date']}\n")
    print("| op | dtype | n | variant | accuracy | median µs | GB/s | probe GB/s | × probe | numpy µs | × numpy | OpenMP µs | × OpenMP | max rel err |")
    print("|---|---|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        n = r["n"]
        e = n.bit_length() - 1
        size = f"2^{e}" if n == 1 << e else str(n)
        t = r["median_us"]
        np_us, omp_us = r.get("numpy_us"), r.get("omp_us")
        print(f"| {r['op']} | {r['dtype']} | {size} | {r['variant']} | {r['accuracy']} | "
              f"{fmt(t, '.3f')} | {fmt(r['gbps'], '.1f')} | {fmt(r['probe_gbps'], '.1f')} | "
              f"{fmt(r['ratio_probe'], '.2f')} | {fmt(np_us, '.3f')} | "
              f"{fmt(np_us / t if np_us else None, '.2f')} | {fmt(omp_us, '.3f')} | "
              f"{fmt(omp_us / t if omp_us else None, '.2f')} | {fmt(r.get('max_rel_err'), '.2g')} |")


if __name__ == "__main__":
    main()

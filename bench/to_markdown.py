#!/usr/bin/env python3
"""Turn `tally bench --json` lines (stdin or files) into the Markdown tables of
docs/PERFORMANCE.md: one row per result, with the ratios the issues ask about."""
import json
import sys


def fmt(v, spec):
    return "-" if v is None else format(v, spec)


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

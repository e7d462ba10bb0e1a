#!/usr/bin/env python3
"""Where a CUDA scan tile's time goes, from bench/peers/scan_trace.cu's CSV.

    scripts/scan_trace.py TRACE.csv [SLOTS]

SLOTS: the blocks resident at once, the SMs times the blocks an SM (on an H200: 792 for
the f64 plans, the default, 528 for f32's; the harness prints it).

Each tile's points (src/gpu/scan.clh, SCAN_STAMP) are global nanoseconds, one time line
for every tile. Prints each phase's median by where the tile falls (the first wave of
resident blocks, the middle, the last wave), and a time line of how many tiles are in
each phase."""
import csv
import statistics as st
import sys

rows = list(csv.DictReader(open(sys.argv[1])))
slots = int(sys.argv[2]) if len(sys.argv) > 2 else 792
T = [{k: int(v) for k, v in r.items()} for r in rows]
# every tile's points must be there (kernels whose runs are not in local memory have no
# points 1, 2, 7, 8: this script is for those that do)
missing = [t["tile"] for t in T if any(t.get(f"t{i}", 1) == 0 for i in (0, 1, 2, 3, 4, 5, 7, 8))]
if missing:
    sys.exit(f"scan_trace.py: {len(missing)} tiles lack points (the first: tile {missing[0]})")
t_start = min(t["t0"] for t in T)
t_end = max(t["t7"] for t in T)
n = len(T)
print(f"tiles {n}, span {(t_end - t_start) / 1e3:.1f} us (first start to last store)")


def at(t, i):
    """Point i of tile t in us from the first tile's start."""
    return (t[f"t{i}"] - t_start) / 1e3


# phases: (name, from point, to point). A time read just after a barrier can be taken
# before the barrier completes (the compiler may schedule it early; runs 179-180). So point 6 (after
# barrier B) is left out: the carry's wait shows from barrier A (3) to the look-back warp's
# carry (5), and the results from there to 8. Point 3 may be early by warp 0's wait at
# barrier A for the block's other data warps (their run totals take about as long).
PH = [("load", 0, 1), ("runs' totals", 1, 2), ("to barrier A", 2, 3), ("A to the carry", 3, 5),
      ("carry to results in local memory", 5, 8), ("stores", 8, 7), ("whole tile", 0, 7)]
LB = [("node/total published", 0, 4)]


def table(sel, name):
    if not sel:
        return
    cells = []
    for label, a, b in PH + LB:
        if not all(f"t{i}" in sel[0] for i in (a, b)):
            continue
        cells.append(f"{label} {st.median(at(t, b) - at(t, a) for t in sel):.2f}")
    print(f"  {name} ({len(sel)} tiles): " + "; ".join(cells))


print("median us per phase:")
table([t for t in T if t["tile"] < slots], "first wave")
table([t for t in T if slots <= t["tile"] < n - slots], "middle")
table([t for t in T if t["tile"] >= n - slots and t["tile"] >= slots], "last wave")

# the carry's wait: from barrier A to the carry, against the previous tile's publication
# (the middle tiles, as above)
mid = [(at(T[k], 5) - at(T[k], 3), at(T[k - 1], 4) - at(T[k], 3))
       for k in range(max(1, slots), n - slots)]
if not mid:
    sys.exit("scan_trace.py: no tiles between the first and the last wave")
print("middle tiles: carry there after own barrier A, median %.2f us; previous tile's "
      "node/total published after own barrier A, median %.2f us" %
      (st.median(w[0] for w in mid), st.median(w[1] for w in mid)))

# time line
step = max(1.0, (t_end - t_start) / 1e3 / 40)
print(f"time line ({step:.1f} us bins): tiles loading / summing (loaded..A) / waiting (A..carry) / "
      "writing (carry..stored), tiles done")
b = 0.0
span = (t_end - t_start) / 1e3
while b < span:
    mid_t = b + step / 2
    c = [0, 0, 0, 0]
    done = 0
    for t in T:
        p = [at(t, i) for i in (0, 1, 3, 5, 7)]
        for j in range(1, 5):  # a carry there before barrier A: no wait
            p[j] = max(p[j], p[j - 1])
        if p[4] <= mid_t:
            done += 1
        for j in range(4):
            if p[j] <= mid_t < p[j + 1]:
                c[j] += 1
    print(f"  {b:7.1f}: {c[0]:5d} {c[1]:5d} {c[2]:5d} {c[3]:5d}   done {done}")
    b += step

#!/usr/bin/env python3
"""Where a CUDA scan tile's time goes, from bench/peers/scan_trace.cu's CSV.

    scripts/scan_trace.py TRACE.csv [SLOTS]   (SLOTS: resident blocks, SMs x MINB)

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
t_start = min(t["t0"] for t in T)
t_end = max(t["t7"] for t in T)
n = len(T)
print(f"tiles {n}, span {(t_end - t_start) / 1e3:.1f} us (first start to last store)")


def at(t, i):
    """Point i of tile t in us from the first tile's start."""
    return (t[f"t{i}"] - t_start) / 1e3


# phases: (name, from point, to point). A time read just after a barrier can be taken when
# the warp arrives there, before the barrier completes (runs 179-180). So point 6 (after
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
waits = []
for t, p in zip(T[1:], T):
    waits.append((at(t, 5) - at(t, 3), at(p, 4) - at(t, 3)))
mid = waits[slots:n - slots] or waits
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
        if p[4] <= mid_t:
            done += 1
        for j in range(4):
            if p[j] <= mid_t < p[j + 1]:
                c[j] += 1
    print(f"  {b:7.1f}: {c[0]:5d} {c[1]:5d} {c[2]:5d} {c[3]:5d}   done {done}")
    b += step

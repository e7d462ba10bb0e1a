#!/usr/bin/env bash
# scripts/gpu-tune.sh NAME=KERNEL_DIR ... : the same benchmark on several versions of the
# GPU kernels, in one run on the GPU machine, for choosing between them.
#
# Each NAME=DIR is a complete copy of src/gpu (a version to try), given to tally through
# $TALLY_KERNEL_DIR; NAME=builtin is the kernels built into this build. Every version runs
# the same `tally bench` lines (CUB and the probe in each, so each row carries its own
# ratios), in turns (A B C, A B C, ...: a drift of the machine reaches every version
# alike). The host side must agree with every version (the block counts, the part layout).
#
# Environment: TALLY (the tally program; default build-gpu/tools/tally/tally), OUT (the
# results folder, default ./tune-out), TURNS (default 2), TUNE_ARGS (the bench lines,
# separated by ';'; default below). Output: $OUT/tune.jsonl (one JSON object per result,
# with "version" and "turn" added) and a table on stdout: per version and line, the
# median over turns of each result's median time, GB/s, x probe and x CUB.
set -u
cd "$(dirname "$0")/.." || exit 2
TALLY=${TALLY:-$PWD/build-gpu/tools/tally/tally}
OUT=${OUT:-$PWD/tune-out}
TURNS=${TURNS:-2}
TUNE_ARGS=${TUNE_ARGS:-"--ops sum --dtypes f32 --sizes 2^20..2^30:2;--ops sum,max,argmax,dot --dtypes f32,f64,i32 --sizes 2^28"}
[ $# -gt 0 ] || { sed -n '2,17p' "$0"; exit 2; }
[ -x "$TALLY" ] || { echo "gpu-tune.sh: $TALLY is not built" >&2; exit 2; }
mkdir -p "$OUT"
: >"$OUT/tune.jsonl"

for turn in $(seq 1 "$TURNS"); do
  for spec in "$@"; do
    name=${spec%%=*} dir=${spec#*=}
    IFS=';' read -r -a lines <<<"$TUNE_ARGS"
    for line in "${lines[@]}"; do
      # shellcheck disable=SC2086  # each line is a list of flags
      if [ "$dir" = builtin ]; then
        env -u TALLY_KERNEL_DIR "$TALLY" bench --device cuda --json $line
      else
        TALLY_KERNEL_DIR=$(cd "$dir" && pwd) "$TALLY" bench --device cuda --json $line
      fi 2>>"$OUT/tune.log" |
        sed "s/^{/{\"version\":\"$name\",\"turn\":$turn,/" >>"$OUT/tune.jsonl"
    done
    echo "turn $turn: $name done ($(date -u +%H:%M:%S))"
  done
done

python3 - "$OUT/tune.jsonl" <<'EOF'
import json, sys, statistics as st
rows = {}
for line in open(sys.argv[1]):
    line = line.strip()
    if not line.startswith("{"): continue
    r = json.loads(line)
    key = (r["op"], r["dtype"], r["n"], r["version"])
    rows.setdefault(key, []).append(r)
def med(rs, k):
    v = [r[k] for r in rs if r.get(k) is not None]
    return st.median(v) if v else None
def f(x, fmt):
    return "-" if x is None else fmt % x
print("%-7s %-4s %6s %-10s %10s %8s %8s %8s %s" %
      ("op", "type", "n", "version", "median_us", "GB/s", "x_probe", "x_CUB", "max_rel_err"))
for key in sorted(rows, key=lambda k: (k[0], k[1], k[2], k[3])):
    rs = rows[key]
    n = key[2]
    print("%-7s %-4s %6s %-10s %10s %8s %8s %8s %s" % (
        key[0], key[1], "2^%d" % (n.bit_length() - 1) if n & (n - 1) == 0 else n, key[3],
        f(med(rs, "median_us"), "%.2f"), f(med(rs, "gbps"), "%.0f"),
        f(med(rs, "ratio_probe"), "%.3f"), f(med(rs, "ratio_peer"), "%.3f"),
        f(max((r["max_rel_err"] or 0) for r in rs), "%.1e")))
EOF

#!/usr/bin/env bash
# scripts/gpu-profile.sh : Nsight Compute (ncu) on tally's scan and histogram kernels and on
# CUB's, at one size, on the GPU machine (run from the repository root). For finding where
# a kernel's time goes (memory throughput, stalls, occupancy) next to the peer's.
#
# Environment: BUILD (default build-gpu; built here if missing), OUT (default ./prof-out),
# N (elements, default 2^26), SECTIONS (ncu --section list), ONLY (a regex: profile only the
# runs whose name matches, e.g. ONLY=hist). ncu runs with
# --clock-control none (the lent machine's clocks are left as they are).
set -u
cd "$(dirname "$0")/.." || exit 2
BUILD=${BUILD:-build-gpu}
OUT=${OUT:-$PWD/prof-out}
N=${N:-2^26}
SECTIONS=${SECTIONS:-SpeedOfLight MemoryWorkloadAnalysis Occupancy LaunchStats WarpStateStats SchedulerStats}
mkdir -p "$OUT"
if [ ! -x "$BUILD/tools/tally/tally" ]; then
  cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=Release >"$OUT/build.log" 2>&1 &&
    cmake --build "$BUILD" -j "$(nproc)" >>"$OUT/build.log" 2>&1 || { tail -30 "$OUT/build.log"; exit 1; }
fi
TALLY=$BUILD/tools/tally/tally
PEER=$(find "$BUILD" -name cub_peer -type f -perm -u+x | head -1)
NCU=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu /usr/local/cuda/bin/ncu 2>/dev/null | head -1)
[ -n "$NCU" ] || { echo "gpu-profile.sh: ncu not found" >&2; exit 1; }
sec=()
for s in $SECTIONS; do sec+=(--section "$s"); done
prof() { # NAME KERNEL_REGEX COMMAND...
  local name=$1 k=$2
  shift 2
  [[ $name =~ ${ONLY:-.} ]] || return 0
  echo "== $name: $*"
  "$NCU" --clock-control none -k "regex:$k" --launch-skip 2 -c 1 "${sec[@]}" "$@" >"$OUT/$name.txt" 2>&1
  echo "rc $?"
  grep -E "Duration|Memory Throughput|DRAM Throughput|Achieved Occupancy|Registers Per|Block Size|Grid Size|Stall|Theoretical Occupancy|L1/TEX Hit|L2 Hit|Issued Ipc|No Eligible" "$OUT/$name.txt" | head -30
}
prof tally_scan_f32 "scan_1pass|scan_tiles" "$TALLY" bench --device cuda --scan --dtypes f32 --sizes "$N" --repeat 3
prof cub_scan_f32 DeviceScanKernel "$PEER" --scan --dtype f32 --sizes "$N" --reps 3
prof tally_hist_f32 hist_blocks "$TALLY" bench --device cuda --hist --bins 256 --dtypes f32 --sizes "$N" --repeat 3
prof cub_hist_f32 DeviceHistogramSweep "$PEER" --hist --dtype f32 --sizes "$N" --reps 3
prof tally_hist_u8 hist_blocks "$TALLY" bench --device cuda --hist --bins 256 --dtypes u8 --sizes "$N" --repeat 3
prof cub_hist_u8 DeviceHistogramSweep "$PEER" --hist --dtype u8 --sizes "$N" --reps 3

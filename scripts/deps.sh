#!/usr/bin/env bash
# Install what tally's build, tests and benchmarks need, on Debian or Ubuntu.
# As root: installs what is missing. Otherwise: prints the exact command to run.
# The CUDA toolkit is optional and never installed here (tally loads CUDA at run time).
set -euo pipefail

packages=(cmake make gcc g++ pkg-config python3 python3-numpy libmpfr-dev
          pocl-opencl-icd ocl-icd-opencl-dev opencl-headers)

if ! command -v dpkg-query >/dev/null 2>&1; then
  echo "deps.sh: not a Debian/Ubuntu system; install by hand: ${packages[*]}" >&2
  exit 0
fi

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "deps.sh: everything needed is installed"
  exit 0
fi

if [ "$(id -u)" -eq 0 ]; then
  echo "deps.sh: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}"
else
  echo "deps.sh: missing packages: ${missing[*]}"
  echo "deps.sh: run:  sudo apt-get install -y ${missing[*]}"
  # Building needs only cmake and a C compiler; say so rather than fail.
  for tool in cmake cc; do
    command -v "$tool" >/dev/null 2>&1 || { echo "deps.sh: '$tool' is required to build" >&2; exit 1; }
  done
fi

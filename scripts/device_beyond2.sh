#!/usr/bin/env bash
# Steps 07-10, second round: more tile shapes, and ncu on steps 07-10 and cuBLAS at 4096.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
make -j16 all > /tmp/build.log 2>&1 || { tail -30 /tmp/build.log; exit 1; }
echo "== sweep"; python3 scripts/warptile_sweep.py --shapes more --stages "3 4" > "$OUT/sweep2.log" 2>&1; echo "sweep: $?"
grep "n= 4096" "$OUT/sweep2.log" | sort -k11 -g | tail -8; grep "n= 1000" "$OUT/sweep2.log" | sort -k11 -g | tail -4
echo "== ncu"; for s in 07 08 09 10 cublas; do make --no-print-directory profile STEP=$s NCU_N=4096 NCU_SECTIONS="--section WarpStateStats"; done > "$OUT/ncu_4096_beyond.txt" 2>&1; echo "ncu: $?"
cp results/nvidia-h100-80gb-hbm3-warptile-sweep.csv "$OUT/"

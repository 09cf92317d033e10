#!/usr/bin/env bash
# Steps 09-10 after the swizzle: the third sweep and a quick look against cuBLAS.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
make -j16 all > /tmp/build.log 2>&1 || { tail -30 /tmp/build.log; exit 1; }
for p in step09_warptile/step09 step10_pipelined/step10 cublas/cublas; do
  for n in 1000 4096 8192; do ./$p -n $n --reps 10 --csv | cut -d, -f1,2,4,5,7,19; done; done
python3 scripts/warptile_sweep.py --shapes third --stages "2 3 4" > "$OUT/sweep3.log" 2>&1; echo "sweep: $?"
grep "n= 4096" "$OUT/sweep3.log" | sort -k11 -g | tail -8; grep "n= 1000" "$OUT/sweep3.log" | sort -k11 -g | tail -4
cp results/nvidia-h100-80gb-hbm3-warptile-sweep.csv "$OUT/"

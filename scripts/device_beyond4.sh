#!/usr/bin/env bash
# The fourth sweep (16 warps on the large tiles), and step 10 against cuBLAS three times.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
make -j16 all > /tmp/build.log 2>&1 || { tail -30 /tmp/build.log; exit 1; }
python3 scripts/warptile_sweep.py --step 10 --shapes fourth --stages "3 4" --sizes 4096 > "$OUT/sweep4.log" 2>&1; echo "sweep: $?"
sort -k11 -g "$OUT/sweep4.log" | tail -8
for r in 1 2 3; do for p in step10_pipelined/step10 cublas/cublas; do for n in 4096 8192; do ./$p -n $n --reps 20 --csv --check none | cut -d, -f1,2,4,5; done; done; done
cp results/nvidia-h100-80gb-hbm3-warptile-sweep.csv "$OUT/"

#!/usr/bin/env bash
# Steps 07-10 on the GPU: quick figures against cuBLAS, the tile-shape sweep, the tests
# and sanitizers, and the transpose chapter again. Logs and CSVs come back through $OUT.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
make -j16 all > /tmp/build.log 2>&1 || { tail -30 /tmp/build.log; exit 1; }
make regs 2>&1 | grep -A3 "step0[7-9]\|step10" > "$OUT/regs.txt"
echo "== quick"; for p in step07_regtile/step07 step08_vectorized/step08 step09_warptile/step09 step10_pipelined/step10 cublas/cublas; do
  for n in 1000 4096 8192; do ./$p -n $n --reps 10 --csv | cut -d, -f1,2,4,5,7,19; done; done
echo "== sweep"; python3 scripts/warptile_sweep.py ${SWEEP_ARGS:-} > "$OUT/sweep.log" 2>&1; echo "sweep: $?"
sort -t' ' -k1,1 "$OUT/sweep.log" | grep "n= 4096" | sort -k9 -n -t' ' | tail -n 50 | awk '{print}' | sort -k10 -g | tail -12
echo "== transpose"; make transpose > "$OUT/transpose.log" 2>&1; echo "make transpose: $?"; grep -E "tiled32x8|copy" "$OUT/transpose.log"
echo "== test"; make test > "$OUT/test.log" 2>&1; echo "make test: $?"; tail -n 3 "$OUT/test.log"
echo "== sanitize"; make sanitize > "$OUT/sanitize.log" 2>&1; echo "make sanitize: $?"; grep -E "ERROR SUMMARY|RACECHECK SUMMARY" "$OUT/sanitize.log" | sort | uniq -c
cp results/nvidia-h100-80gb-hbm3-warptile-sweep.csv results/nvidia-h100-80gb-hbm3-transpose.csv "$OUT/" 2>/dev/null

#!/usr/bin/env bash
# The final figures: MODE=compare: make compare over the size sweep with every step and
# cuBLAS, ncu on steps 07-10 and cuBLAS at n = 4096, make regs. MODE=check: make test
# and make sanitize.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
make -j16 all > /tmp/build.log 2>&1 || { tail -30 /tmp/build.log; exit 1; }
if [ "${MODE:-compare}" = compare ]; then
  make regs > "$OUT/regs.txt" 2>&1
  make compare SIZES="256 512 1000 2048 4096 8192" REPS=20 > "$OUT/compare.log" 2>&1; echo "make compare: $?"
  grep -A 14 "n = 1000$\|n = 4096$\|n = 8192$" "$OUT/compare.log" | cut -c1-110
  for s in 07 08 09 10 cublas; do make --no-print-directory profile STEP=$s NCU_N=4096 NCU_SECTIONS="--section WarpStateStats"; done > "$OUT/ncu_4096_beyond.txt" 2>&1; echo "ncu: $?"
  cp results/nvidia-h100-80gb-hbm3.csv "$OUT/"
else
  make test > "$OUT/test.log" 2>&1; echo "make test: $?"; tail -n 4 "$OUT/test.log"
  make sanitize > "$OUT/sanitize.log" 2>&1; echo "make sanitize: $?"; grep -E "ERROR SUMMARY|RACECHECK SUMMARY" "$OUT/sanitize.log" | sort | uniq -c
fi

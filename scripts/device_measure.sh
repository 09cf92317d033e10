#!/usr/bin/env bash
# One device call for the ladder's figures: build, test, sanitize, the size sweep of
# make compare (every step and cuBLAS), the tile sweep, and the ncu metric sets.
# Logs go to $OUT; rows go to results/ (copied to $OUT to bring them back).
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
{ date -u; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem,power.limit --format=csv
  obj/gpu_info 2>/dev/null; lscpu | grep -E "Model name|^CPU\(s\)"; nvcc --version | tail -1; ncu --version | tail -1
} > "$OUT/device.txt" 2>&1
make -j16 all tile-programs > /tmp/build.log 2>&1 || { cat /tmp/build.log; exit 1; }
obj/gpu_info >> "$OUT/device.txt"
echo "== test"; make test > "$OUT/test.log" 2>&1; echo "make test: $?"; tail -n 3 "$OUT/test.log"
echo "== sanitize"; make sanitize > "$OUT/sanitize.log" 2>&1; echo "make sanitize: $?"
grep -E "ERROR SUMMARY|RACECHECK SUMMARY" "$OUT/sanitize.log" | sort | uniq -c
echo "== compare"; make compare SIZES="${SIZES:-256 512 1000 2048 4096 8192}" REPS=20 > "$OUT/compare.log" 2>&1
echo "make compare: $?"; grep -A 12 "n = 1000$\|n = 4096$" "$OUT/compare.log"
echo "== tile-sweep"; make tile-sweep > "$OUT/tile_sweep.log" 2>&1; echo "make tile-sweep: $?"; tail -n 24 "$OUT/tile_sweep.log"
ncu --clock-control none --launch-skip 1 --launch-count 1 --metrics gpu__time_duration.sum,launch__grid_size,launch__block_size,launch__registers_per_thread,launch__shared_mem_per_block_dynamic \
  ./cublas/cublas -n 4096 --reps 1 > "$OUT/ncu_cublas.txt" 2>&1
grep -E "^  [a-z_0-9]+.*\(" "$OUT/ncu_cublas.txt" | head -3
cp results/nvidia*.csv "$OUT/"   # at most 8 files come back

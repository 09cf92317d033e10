#!/usr/bin/env bash
# One device call: build for the GPU, run the tests, the sanitizers, record the
# ladder at n = 1000 and 4096, and profile every step. Logs go to $OUT.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
{
  date -u; nvidia-smi; nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,clocks.mem,power.limit --format=csv
  lscpu | grep -E "Model name|^CPU\(s\)"; nvcc --version | tail -1; ncu --version | tail -1
} > "$OUT/device.txt" 2>&1
make -j16 all > "$OUT/build.log" 2>&1 || { cat "$OUT/build.log"; exit 1; }
make regs > "$OUT/regs.txt" 2>&1
echo "== test"; make test > "$OUT/test.log" 2>&1; echo "make test: $?"; tail -n 8 "$OUT/test.log"
echo "== record"; scripts/record.sh "1000 4096" $(ls step0*/step0? | sort) -- --reps 20 2>&1 | tail -n 14
cp results/*.csv "$OUT/" 2>/dev/null
for s in 01 02 03 04 05 06; do make --no-print-directory profile STEP=$s; done > "$OUT/ncu_1000.txt" 2>&1
echo "ncu: $?"
echo "== sanitize"; make sanitize > "$OUT/sanitize.log" 2>&1; echo "make sanitize: $?"; tail -n 3 "$OUT/sanitize.log"

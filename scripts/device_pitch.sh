#!/usr/bin/env bash
# The pitch experiment of step 04: sectors per global-load request with and without
# cudaMallocPitch, at a sector-aligned width (n = 1000) and unaligned ones (1001, 4001).
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
make -j16 all > "$OUT/build.log" 2>&1 || { cat "$OUT/build.log"; exit 1; }
obj/gpu_info
m=gpu__time_duration.sum,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,lts__t_bytes.sum,dram__bytes_read.sum
for n in 1000 1001 4001; do
  for p in step03_shared_row/step03 step04_pitch/step04; do
    echo "\$ $p -n $n"; ./$p -n $n --reps 20 | grep -E "Pitch|Kernel"
    ncu --clock-control none --kernel-name regex:matmult_kernel --launch-skip 1 --launch-count 1 --metrics $m ./$p -n $n --reps 1 --check none 2>&1 | grep -E "^    [a-z]"
  done
done

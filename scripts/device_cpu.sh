#!/usr/bin/env bash
# The CPU chapter on the device machine's host CPU, and the GPU tests again.
# MODE=tune: build, make test, and a block-size tuning run of the AVX-512 kernel.
# MODE=measure: make cpu and make cpu-sweep.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
blas=()
if pkg-config --exists openblas 2>/dev/null; then echo "OpenBLAS: the system's (pkg-config)";
elif [ -d .openblas ]; then echo "OpenBLAS: none on the system; Debian's packages carried in .openblas"; blas=(OPENBLAS_DIR=.openblas);
else echo "OpenBLAS: none"; fi
ls /usr/include/cblas.h /usr/include/*/cblas.h /usr/include/*/*/cblas.h 2>/dev/null; ldconfig -p | grep -i openblas | head -3
grep -m1 "cpu MHz" /proc/cpuinfo; lscpu | grep -E "Model name|^CPU\(s\)|Thread|L1d|L2|L3|MHz|Flags" | sed 's/Flags:.*\(avx512[a-z_]*\).*/avx512: yes/' | head -12
make -j16 all "${blas[@]}" > /tmp/build.log 2>&1 || { tail -30 /tmp/build.log; exit 1; }
./cpu/cpu_gemm --features
if [ "${MODE:-tune}" = tune ]; then
  echo "== test"; make test "${blas[@]}" > "$OUT/test.log" 2>&1; echo "make test: $?"; tail -n 12 "$OUT/test.log"
  echo "== tuning the packed kernel, n = 2048, 1 thread"
  ./cpu/cpu_gemm -n 2048 --variant openblas --check none --reps 5 | tail -1
  for kc in 128 256 384 512; do for mc in 120 240 480; do
    printf "KC=%-4s MC=%-4s " $kc $mc; PACKED_KC=$kc PACKED_MC=$mc ./cpu/cpu_gemm -n 2048 --variant packed --check none --reps 5 | tail -1
  done; done
  ./cpu/cpu_gemm -n 2048 --variant openblas --check none --reps 5 | tail -1
  echo "== threads 16, n = 2048"
  ./cpu/cpu_gemm -n 2048 --variant packed_omp --threads 16 --check none --reps 5 | tail -1
  ./cpu/cpu_gemm -n 2048 --variant openblas --threads 16 --check none --reps 5 | tail -1
  PACKED_MC=48 ./cpu/cpu_gemm -n 2048 --variant packed_omp --threads 16 --check none --reps 5 | tail -1
else
  make cpu "${blas[@]}" > "$OUT/cpu.log" 2>&1; echo "make cpu: $?"; tail -n 60 "$OUT/cpu.log"
  make cpu-sweep "${blas[@]}" > "$OUT/cpu_sweep.log" 2>&1; echo "make cpu-sweep: $?"; tail -n 6 "$OUT/cpu_sweep.log"
  cp results/*-cpu.csv "$OUT/"
fi

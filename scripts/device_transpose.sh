#!/usr/bin/env bash
# The transpose chapter on the GPU: make transpose, ncu's counters, the tests and the
# sanitizers (which now include the transpose kernels).
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
make -j16 all > /tmp/build.log 2>&1 || { tail -30 /tmp/build.log; exit 1; }
echo "== transpose"; make transpose > "$OUT/transpose.log" 2>&1; echo "make transpose: $?"; cat "$OUT/transpose.log"
echo "== profile"; make transpose-profile > "$OUT/transpose_profile.log" 2>&1; echo "make transpose-profile: $?"; cat "$OUT/transpose_profile.log"
echo "== test"; make test > "$OUT/test.log" 2>&1; echo "make test: $?"; tail -n 4 "$OUT/test.log"
echo "== sanitize"; make sanitize > "$OUT/sanitize.log" 2>&1; echo "make sanitize: $?"
grep -E "ERROR SUMMARY|RACECHECK SUMMARY" "$OUT/sanitize.log" | sort | uniq -c
cp results/*-transpose.csv "$OUT/"

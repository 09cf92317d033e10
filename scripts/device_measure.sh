#!/usr/bin/env bash
# One device call for the ladder's figures: build, test, sanitize, record every
# step at n = 1000 and 4096 (and the pitch experiment), and the ncu metric sets.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
make -j16 all > "$OUT/build.log" 2>&1 || { cat "$OUT/build.log"; exit 1; }
steps=$(ls step0*/step0? | sort)
echo "== test"; make test > "$OUT/test.log" 2>&1; echo "make test: $?"; tail -n 3 "$OUT/test.log"
echo "== sanitize"; make sanitize > "$OUT/sanitize.log" 2>&1; echo "make sanitize: $?"; grep -E "ERROR SUMMARY|no errors|Error" "$OUT/sanitize.log" | sort | uniq -c
echo "== record"
scripts/record.sh "1000 4096" $steps -- --reps 20 2>&1 | tail -n 13
scripts/record.sh "1001 4001" step03_shared_row/step03 step04_pitch/step04 -- --reps 20 2>&1 | tail -n 5
{ for p in $steps; do echo "\$ ./$p -n 1000 --breakdown"; ./$p -n 1000 --breakdown; echo; done
  echo "\$ ./step04_pitch/step04 -n 1024"; ./step04_pitch/step04 -n 1024; } > "$OUT/article_style.txt" 2>&1
for n in 1000 4096; do
  for s in 01 02 03 04 05 06; do make --no-print-directory profile STEP=$s NCU_N=$n; done > "$OUT/ncu_$n.txt" 2>&1
  echo "ncu $n: $?"
done
cp results/*.csv "$OUT/"
cuobjdump -sass step03_shared_row/step03 > "$OUT/step03.sass" 2>&1

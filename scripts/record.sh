#!/usr/bin/env bash
# Run programs on the GPU and record their CSV rows in results/<device-slug>.csv,
# with the date and the command. A new row replaces an earlier one of the same
# program, n and device. Usage: scripts/record.sh "SIZES" PROGRAM... [-- EXTRA ARGS]
set -euo pipefail
cd "$(dirname "$0")/.."
if [ $# -lt 2 ] || [ "$1" = "--help" ]; then
    echo "Usage: scripts/record.sh \"SIZES\" PROGRAM... [-- EXTRA ARGS]"
    echo "e.g.   scripts/record.sh \"1000 4096\" step0*/step0? -- --reps 20"
    [ "${1:-}" = "--help" ] && exit 0 || exit 2
fi
sizes=$1; shift
programs=(); extra=()
while (($#)); do
    if [ "$1" = "--" ]; then shift; extra=("$@"); break; fi
    programs+=("$1"); shift
done
info=$(obj/gpu_info) || exit 3
device=${info%%,*}
slug=$(echo "$device" | tr 'A-Z' 'a-z' | sed -e 's/[^a-z0-9]\{1,\}/-/g' -e 's/^-//' -e 's/-$//')
mkdir -p results
out=results/$slug.csv
header="date,command,$(${programs[0]} --csv-header -n 1 --reps 1 --check none | head -n 1)"
tmp=$(mktemp)
[ -f "$out" ] && tail -n +2 "$out" > "$tmp"
for p in "${programs[@]}"; do
    for n in $sizes; do
        cmd="$p -n $n --csv ${extra[*]:-}"
        row=$($cmd) || { echo "FAILED: $cmd" >&2; exit 1; }
        echo "$row" | cut -d, -f1-8 >&2
        key=$(echo "$row" | cut -d, -f1-3)
        # drop the earlier row of this program, n and device (fields 3-5 after date,command)
        awk -F, -v k="$key" '($3 "," $4 "," $5) != k' "$tmp" > "$tmp.new" && mv "$tmp.new" "$tmp"
        echo "$(date -u +%Y-%m-%dT%H:%MZ),$cmd,$row" >> "$tmp"
    done
done
{ echo "$header"; sort -t, -k3,3 -k4,4n "$tmp"; } > "$out"
rm -f "$tmp"
echo "wrote $out" >&2

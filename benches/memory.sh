#!/usr/bin/env bash
# Peak memory (max RSS, GNU time -v) of the memory benchmarks, for one or more binaries:
#   benches/memory.sh [BINARY...]        (default target/release/tessera)
# e.g. benches/memory.sh /work/main/target/release/tessera target/release/tessera
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
programs=("$here/narrow_tiny.flx" "$here/narrow_varray.flx" "$here/reshape_big.flx")
binaries=("$@")
[ ${#binaries[@]} -eq 0 ] && binaries=(target/release/tessera)
[ -x /usr/bin/time ] || { echo "needs GNU time: apt-get install -y time" >&2; exit 1; }
printf '%-22s %-40s %12s %8s\n' program binary "max RSS MB" seconds
for program in "${programs[@]}"; do
  for binary in "${binaries[@]}"; do
    log=$(mktemp)
    RAYON_NUM_THREADS=1 /usr/bin/time -v "$binary" "$program" >/dev/null 2>"$log"
    rss=$(awk -F: '/Maximum resident set size/ {gsub(/ /, "", $2); print $2}' "$log")
    secs=$(awk -F': ' '/Elapsed \(wall clock\)/ {print $2}' "$log")
    printf '%-22s %-40s %12.1f %8s\n' "$(basename "$program")" "$binary" "$(echo "$rss / 1024" | bc -l)" "$secs"
    rm -f "$log"
  done
done

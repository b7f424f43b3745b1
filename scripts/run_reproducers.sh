#!/usr/bin/env bash
# Runs every reproducer of ../shared/robustness/crashes/ with the done-when limits of the
# robustness rounds: an answer within 2 s and 1 GiB peak memory under an 8 GiB address-space
# limit, no crash, no R0000, no `<?>` and no internal type (`?N`) in any output.
# Each line shows the wall time and the CPU time (user + system) of the run: on a machine
# shared with other work the wall time overstates the cost, so the 2 s bound applies to the
# CPU time (the interpreter runs these on one thread), or to the wall time with WALL=1.
# Usage: scripts/run_reproducers.sh BINARY [DIR]
set -u
bin=$(realpath "$1")
dir=${2:-$(dirname "$0")/../../shared/robustness/crashes}
limit_s=2
limit_kb=$((1024 * 1024))
fails=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for f in "$dir"/*.flx; do
  name=$(basename "$f" .flx)
  args=(run "$f")
  stdin=/dev/null
  case "$name" in
    repl_*) args=(); stdin=$f ;;
    r0000_stack_grow_raised_limit) args=(--max-call-depth 20000000 run "$f") ;;
  esac
  start=$(date +%s.%N)
  /usr/bin/time -f '%U %S %M' -o "$tmp/mem" prlimit --as=8589934592 "$bin" "${args[@]}" \
    <"$stdin" >"$tmp/out" 2>"$tmp/err"
  status=$?
  end=$(date +%s.%N)
  secs=$(echo "$end - $start" | bc)
  read -r user sys kb < <(tail -1 "$tmp/mem")
  cpu=$(echo "$user + $sys" | bc)
  judged=$cpu
  [[ ${WALL:-0} == 1 ]] && judged=$secs
  verdict=ok
  if (( $(echo "$judged > $limit_s" | bc) )); then verdict="SLOW"; fi
  if (( kb > limit_kb )); then verdict="$verdict BIGMEM"; fi
  if (( status > 4 )); then verdict="$verdict STATUS"; fi
  if grep -q -e 'R0000' -e '<?>' -e 'panicked' "$tmp/out" "$tmp/err" \
     || grep -q -E '\?[0-9]+' "$tmp/err"; then verdict="$verdict LEAK"; fi
  [[ $verdict == ok ]] || fails=$((fails + 1))
  printf '%-40s %-12s status %3d %6.2f s wall %6.2f s cpu %7d KB\n' "$name" "$verdict" "$status" \
    "$secs" "$cpu" "$kb"
done
echo "$fails reproducer(s) outside the limits"
[[ $fails == 0 ]]

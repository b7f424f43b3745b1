#!/usr/bin/env bash
# Compare the Tessera benchmark kernels with their baselines (numpy, CPython, Lua 5.4, native
# Rust), whole process, start-up included.
#
#   benches/compare.sh [RUNS] [KERNEL-REGEX]
#
# For each kernel, every available command runs once as a warm-up, then RUNS times (default 5)
# in alternation (one run of each command per round). The table gives the median wall seconds
# of each command and the ratio Tessera / anchor for each anchor of the kernel (the targets of
# issue 5). Peak RSS of K1 is measured with /usr/bin/time when it is installed.
#
# Environment: TESSERA (the binary, default target/release/tessera), BASELINES (the baselines
# folder, default ../shared/bench/baselines from the repository root), PY (the python3 that has
# numpy), TESSERA_THREADS (passed as RAYON_NUM_THREADS to Tessera; default 1, the targets are
# single-threaded except K2's scaling row).
set -uo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
runs=${1:-5}
only=${2:-.}
tessera=${TESSERA:-$repo/target/release/tessera}
baselines=${BASELINES:-$repo/../shared/bench/baselines}
[ -d "$baselines" ] || baselines=/work/shared/bench/baselines
rust_bin=/tmp/rustbase/target/release
threads=${TESSERA_THREADS:-1}

missing=()
note_missing() { missing+=("$1"); }

if [ ! -x "$tessera" ]; then
  echo "compare.sh: $tessera not found; build it with: cargo build --release" >&2
  exit 1
fi
if [ ! -d "$baselines" ]; then
  echo "compare.sh: baselines folder not found; set BASELINES=/path/to/shared/bench/baselines" >&2
  exit 1
fi

# The real python3 binary (not a pyenv shim), as the baselines were measured.
PY=${PY:-$(python3 -c 'import sys; print(sys.executable)' 2>/dev/null || true)}
have_py=0
have_numpy=0
if [ -n "$PY" ] && [ -x "$PY" ]; then
  have_py=1
  "$PY" -c 'import numpy' 2>/dev/null && have_numpy=1
fi
[ $have_py = 1 ] || note_missing "python3 (apt-get install -y python3)"
[ $have_py = 1 ] && [ $have_numpy = 0 ] && note_missing "numpy (pip install numpy)"
have_lua=0
command -v lua5.4 >/dev/null && have_lua=1 || note_missing "lua5.4 (apt-get install -y lua5.4)"
have_rust=0
[ -x "$rust_bin/k1" ] && have_rust=1 ||
  note_missing "native Rust baselines (cd $baselines && ./run.sh build)"
have_time=0
[ -x /usr/bin/time ] && have_time=1 || note_missing "GNU time for peak RSS (apt-get install -y time)"

now_ns() { date +%s%N; }

# run_once LABEL COMMAND...: time one run, append the seconds to the label's sample file.
run_once() {
  local label=$1
  shift
  local start end
  start=$(now_ns)
  if ! "$@" >/dev/null 2>"$work/$label.err"; then
    echo "  $label failed: $*" >&2
    head -3 "$work/$label.err" >&2
  fi
  end=$(now_ns)
  echo "$(( end - start ))" >>"$work/$label.ns"
}

median() {
  sort -n "$1" | awk '{ v[NR] = $1 } END {
    if (NR == 0) { print "NA"; exit }
    m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
    printf "%.3f", m / 1e9 }'
}

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# kernel LABEL TESSERA-FILE ANCHORS -- then lines "label command..." read from a here-doc.
declare -a rows=()
kernel() {
  local name=$1 file=$2 anchors=$3
  [[ $name =~ $only ]] || return 0
  local -a labels=() 
  local -A commands=()
  labels+=("$name.tessera")
  commands["$name.tessera"]="env RAYON_NUM_THREADS=$threads $tessera run $repo/benches/$file"
  while read -r label command; do
    [ -z "$label" ] && continue
    labels+=("$name.$label")
    commands["$name.$label"]=$command
  done
  for label in "${labels[@]}"; do
    (cd "$baselines" && run_once "$label" bash -c "${commands[$label]}")
  done
  : >"$work/warm"
  for label in "${labels[@]}"; do : >"$work/$label.ns"; done
  for ((round = 0; round < runs; round++)); do
    for label in "${labels[@]}"; do
      (cd "$baselines" && run_once "$label" bash -c "${commands[$label]}")
    done
  done
  local tessera_median
  tessera_median=$(median "$work/$name.tessera.ns")
  local line="$name tessera=$tessera_median"
  for label in "${labels[@]:1}"; do
    line+="  ${label#"$name".}=$(median "$work/$label.ns")"
  done
  local ratios=""
  for anchor in $anchors; do
    local anchor_median
    anchor_median=$(median "$work/$name.$anchor.ns")
    if [ "$anchor_median" != "NA" ] && [ -s "$work/$name.$anchor.ns" ]; then
      ratios+=" $(awk -v t="$tessera_median" -v a="$anchor_median" -v n="$anchor" \
        'BEGIN { printf "%s %.2fx;", n, t / a }')"
    else
      ratios+=" $anchor missing;"
    fi
  done
  printf '%-4s %-s\n     ratio Tessera/anchor:%s\n' "" "$line" "$ratios"
  rows+=("| $name | $tessera_median | $(for label in "${labels[@]:1}"; do printf '%s %s, ' "${label#"$name".}" "$(median "$work/$label.ns")"; done) |$ratios |")
}

# Counterparts: only the commands whose tool is installed.
counterparts() {
  local k=$1
  [ $have_numpy = 1 ] && [ -f "$baselines/py/${k}_np.py" ] && echo "np $PY py/${k}_np.py"
  [ $have_py = 1 ] && [ "${2:-}" != "no-py" ] && echo "py $PY py/$k.py"
  [ $have_lua = 1 ] && echo "lua lua5.4 lua/$k.lua"
  if [ $have_rust = 1 ]; then
    case $k in
      k5) echo "rs $rust_bin/k5" ;;
      *) echo "rs $rust_bin/$k seq" ;;
    esac
  fi
}

echo "Tessera: $tessera (RAYON_NUM_THREADS=$threads); $runs runs after a warm-up; $(uptime)"
echo "Baselines: $baselines"

kernel K1 k1_sum.flx "np rs" < <(counterparts k1 no-py)
kernel K2 k2_map.flx "np rs" < <(counterparts k2 no-py)
kernel K3 k3_rows.flx "np rs" < <(counterparts k3)
kernel K4 k4_fib.flx "lua" < <(counterparts k4)
kernel K5 k5_loop.flx "lua" < <(counterparts k5)
kernel K6 k6_digits.flx "flat" < <(echo "flat $tessera run $repo/benches/k6_flat.flx"; counterparts k6 no-py)
kernel K7 k7_transpose.flx "np rs" < <(counterparts k7 no-py)
kernel R reshape_big.flx "small" < <(echo "small $tessera run $repo/benches/reshape_small.flx")
if [[ K2T =~ $only ]]; then
  # Parallel scaling of K2: the same program with 1 and 2 threads, in alternation.
  threads=2 kernel K2T k2_map.flx "t1" < <(echo "t1 env RAYON_NUM_THREADS=1 $tessera run $repo/benches/k2_map.flx")
fi

if [[ K1 =~ $only ]] && [ $have_time = 1 ]; then
  peak=$(env RAYON_NUM_THREADS=$threads /usr/bin/time -f '%M' "$tessera" run "$repo/benches/k1_sum.flx" 2>&1 >/dev/null | tail -1)
  awk -v kb="$peak" 'BEGIN { n = 50000000; printf "K1 peak RSS %.1f MiB = %.3f x 8N bytes (N = 5e7; target <= 1.1 x 8N + a constant)\n", kb / 1024, kb * 1024 / (8 * n) }'
fi

echo
echo "Markdown rows (kernel | Tessera median s | counterparts' median s | ratios):"
for row in "${rows[@]}"; do echo "$row"; done
if [ ${#missing[@]} -gt 0 ]; then
  echo
  echo "Missing counterparts (install to compare against them):"
  for m in "${missing[@]}"; do echo "  - $m"; done
fi

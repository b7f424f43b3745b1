#!/usr/bin/env bash
# Compare the Tessera benchmark kernels and idioms with their baselines (numpy, CPython, Lua 5.4,
# native Rust), whole process, start-up included.
#
#   benches/compare.sh [RUNS] [REGEX]
#
# Every available command of a kernel or idiom row runs once as a warm-up, then RUNS times
# (default 5) in alternation (one run of each command per round). REGEX (default: everything)
# selects kernels (K1 ... K7, K1f, K2l, K3l, R, K2T, K1fT) and idiom rows (sum, isum, dsum, map,
# gsum, store, dwhile, fib, call, pairs, str, str2x, closure, thr, fthr) by name: '^K' for the kernels only,
# '^[a-z]' for the idioms and programs. Programs (Part 4): matmul, stencil, sort_ptr, nbody, springs, sieve,
# particles, orders, callbacks, histogram, strscan, tuple_rec, mandelbrot, rowsum, filter_sum, variants, queens, darray_stats,
# toplevel_structs, textbuild, cons_list, tree_insert, print_doubles, readlines, wordsort, fannkuch, shapes, and startup (tessera run
# examples/hello.flx);
# e.g. '^(matmul|stencil|sort_ptr|nbody|sieve|histogram|strscan|tuple_rec|mandelbrot|rowsum|startup)$'.
#
# Part 1, the kernels: median wall seconds of each command and the ratio Tessera /
# anchor for each anchor of the kernel. Peak RSS of K1 is measured with /usr/bin/time.
# Part 2, the idioms (benches/idioms/): per row (one piece of work), per form (one way
# of writing it), the median wall seconds, the ns per element or call (median minus the median of
# the row's setup program, which does only the fill and start-up, divided by the count), the
# ratio to the fastest Tessera form of the row and to the counterparts (benches/counterparts/),
# all whole process. The warm-up run checks every output against the "Expected output:" line of
# the program (counterparts against the row's first form).
# Part 3, the issue's targets, met or not (ratios of whole-process medians).
# Part 4, the programs (benches/programs/, user-style code): per program the median seconds of
# Tessera and of each counterpart (Rust, Lua 5.4, CPython, numpy where natural), the ratios
# Tessera / counterpart, each marked against its target (<= 2.0x Rust, <= 0.5x Lua, <= 0.1x
# CPython, <= 1.0x numpy); the warm-up checks every output against the program's "Expected
# output:" line. Row "startup": the median whole-process time of tessera run examples/hello.flx.
#
# Environment: TESSERA (the binary, default target/release/tessera), BASELINES (the baselines
# folder, default ../shared/bench/baselines from the repository root), PY (the python3 that has
# numpy), TESSERA_THREADS (passed as RAYON_NUM_THREADS to Tessera; default 1, the targets are
# single-threaded except the K2T, K1fT, thr and fthr scaling rows), RS_IDIOMS (where the Rust counterparts of
# the idioms are built with rustc -O, default /tmp/tessera-bench-rs).
set -uo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
runs=${1:-5}
only=${2:-.}
tessera=${TESSERA:-$repo/target/release/tessera}
baselines=${BASELINES:-$repo/../shared/bench/baselines}
[ -d "$baselines" ] || baselines=/work/shared/bench/baselines
rust_bin=/tmp/rustbase/target/release
threads=${TESSERA_THREADS:-1}
idioms=$repo/benches/idioms
cps=$repo/benches/counterparts
rs_idioms=${RS_IDIOMS:-/tmp/tessera-bench-rs}

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
# Native Rust counterparts of the idioms: each benches/counterparts/rust/X.rs is one binary,
# built with plain rustc -O (no crates) when missing or older than its source.
have_rsi=0
if command -v rustc >/dev/null; then
  have_rsi=1
  mkdir -p "$rs_idioms"
  for source in "$cps"/rust/*.rs; do
    bin=$rs_idioms/$(basename "$source" .rs)
    if [ ! -x "$bin" ] || [ "$source" -nt "$bin" ]; then
      rustc -O -o "$bin" "$source" 2>"$rs_idioms/build.err" ||
        { echo "compare.sh: rustc failed on $source:" >&2; head -5 "$rs_idioms/build.err" >&2; }
    fi
  done
else
  note_missing "rustc for the Rust counterparts of the idioms (https://rustup.rs)"
fi

now_ns() { date +%s%N; }

# run_once LABEL COMMAND...: time one run, append the seconds to the label's sample file.
run_once() {
  local label=$1
  shift
  local start end
  start=$(now_ns)
  if ! "$@" >"$work/$label.out" 2>"$work/$label.err"; then
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

# median_ns FILE: the median of the samples in ns (empty if there are none).
median_ns() {
  sort -n "$1" | awk '{ v[NR] = $1 } END {
    if (NR == 0) exit
    m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
    printf "%.0f", m }'
}

# Medians of every command run, in ns, by label ("K4.lua", "fib.double"), for the targets.
declare -A med=()
# Peak RSS in KiB by label.
declare -A rss=()

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
  for label in "${labels[@]}"; do med[$label]=$(median_ns "$work/$label.ns"); done
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
# K1-K3 as a Felix user writes them (fold_left and map of lambdas), against the \sum / map
# kernel forms above and native Rust.
kernel K1f k1_fold.flx "sum rs" < <(echo "sum env RAYON_NUM_THREADS=$threads $tessera run $repo/benches/k1_sum.flx"; counterparts k1 no-py | grep '^rs ')
kernel K2l k2_lambda.flx "map rs" < <(echo "map env RAYON_NUM_THREADS=$threads $tessera run $repo/benches/k2_map.flx"; counterparts k2 no-py | grep '^rs ')
kernel K3l k3_lambda.flx "rows rs" < <(echo "rows env RAYON_NUM_THREADS=$threads $tessera run $repo/benches/k3_rows.flx"; counterparts k3 no-py | grep '^rs ')
kernel R reshape_big.flx "small" < <(echo "small $tessera run $repo/benches/reshape_small.flx")
if [[ K2T =~ $only ]]; then
  # Parallel scaling of K2: the same program with 1 and 2 threads, in alternation.
  threads=2 kernel K2T k2_map.flx "t1" < <(echo "t1 env RAYON_NUM_THREADS=1 $tessera run $repo/benches/k2_map.flx")
fi
if [[ K1fT =~ $only ]]; then
  # Parallel scaling of K1f (fold_left of integer +, split over rayon like \sum): 2 threads
  # against 1, in alternation.
  threads=2 kernel K1fT k1_fold.flx "t1" < <(echo "t1 env RAYON_NUM_THREADS=1 $tessera run $repo/benches/k1_fold.flx")
fi

if [[ K1 =~ $only ]] && [ $have_time = 1 ]; then
  peak=$(env RAYON_NUM_THREADS=$threads /usr/bin/time -f '%M' "$tessera" run "$repo/benches/k1_sum.flx" 2>&1 >/dev/null | tail -1)
  awk -v kb="$peak" 'BEGIN { n = 50000000; printf "K1 peak RSS %.1f MiB = %.3f x 8N bytes (N = 5e7; target <= 1.1 x 8N + a constant)\n", kb / 1024, kb * 1024 / (8 * n) }'
fi

# ---------------------------------------------------------------------------------------------
# Idioms: benches/idioms/ROW_FORM.flx, counterparts in benches/counterparts/.

# expected_of FILE: the "Expected output:" line of a program's header comment.
expected_of() { sed -n 's/^\(\/\/\|--\|#\) Expected output: //p' "$1" | head -1; }

# fmt_s NS: seconds with three decimals.
fmt_s() { awk -v n="$1" 'BEGIN { printf "%.3f", n / 1e9 }'; }

# idiom ROW COUNT UNIT, then lines on stdin:
#   setup FILE                         the row's fill and start-up alone (subtracted for ns/UNIT)
#   form LABEL FILE [CPS [THREADS]]    a Tessera form; CPS = the counterparts it is compared with,
#                                      comma-separated, '*' (default) = all of the row's
#   cp LABEL COMMAND...                a counterpart, run from benches/counterparts
declare -a idiom_rows=()
idiom() {
  local row=$1 count=$2 unit=$3
  [[ $row =~ $only ]] || return 0
  local -a labels=() forms=() cplabels=()
  local -A commands=() files=() formcps=()
  local kind label rest file cpl thr
  while read -r kind label rest; do
    case $kind in
      setup)
        labels+=("$row.setup")
        files[$row.setup]=$idioms/$label
        commands[$row.setup]="env RAYON_NUM_THREADS=$threads $tessera run $idioms/$label" ;;
      form)
        read -r file cpl thr <<<"$rest"
        labels+=("$row.$label")
        forms+=("$label")
        files[$row.$label]=$idioms/$file
        formcps[$label]=${cpl:-*}
        commands[$row.$label]="env RAYON_NUM_THREADS=${thr:-$threads} $tessera run $idioms/$file" ;;
      cp)
        labels+=("$row.$label")
        cplabels+=("$label")
        commands[$row.$label]=$rest ;;
    esac
  done
  # Warm-up, and the output checks.
  local expected_row expected out
  expected_row=$(expected_of "${files[$row.${forms[0]}]}")
  for label in "${labels[@]}"; do
    (cd "$cps" && run_once "$label" bash -c "${commands[$label]}")
    expected=$expected_row
    [ -n "${files[$label]:-}" ] && expected=$(expected_of "${files[$label]}")
    out=$(tail -1 "$work/$label.out")
    if [ "$out" != "$expected" ]; then
      echo "  $label: WRONG OUTPUT '$out', expected '$expected'" >&2
      bad_outputs+=("$label")
    fi
  done
  for label in "${labels[@]}"; do : >"$work/$label.ns"; done
  for ((round = 0; round < runs; round++)); do
    for label in "${labels[@]}"; do
      (cd "$cps" && run_once "$label" bash -c "${commands[$label]}")
    done
  done
  for label in "${labels[@]}"; do med[$label]=$(median_ns "$work/$label.ns"); done
  local fastest="" form setup_ns=${med[$row.setup]:-0}
  for form in "${forms[@]}"; do
    [ -n "${med[$row.$form]}" ] || continue
    if [ -z "$fastest" ] || [ "${med[$row.$form]}" -lt "$fastest" ]; then fastest=${med[$row.$form]}; fi
  done
  local per cell cp
  printf '%-8s setup %s s\n' "$row" "$(fmt_s "$setup_ns")"
  for form in "${forms[@]}"; do
    per=$(awk -v t="${med[$row.$form]}" -v s="$setup_ns" -v n="$count" -v f="$fastest" \
      'BEGIN { printf "%.1f | %.2fx", (t - s) / n, t / f }')
    cell=""
    for cp in "${cplabels[@]}"; do
      [[ ",${formcps[$form]}," == *",$cp,"* || ${formcps[$form]} == "*" ]] || continue
      cell+=$(awk -v t="${med[$row.$form]}" -v c="${med[$row.$cp]}" -v n="$cp" \
        'BEGIN { printf "%s %.3f s: %.2fx; ", n, c / 1e9, t / c }')
    done
    [ -n "$cell" ] || cell="—"
    printf '%-8s %-12s %s s  ns/%s %s  %s\n' "$row" "$form" "$(fmt_s "${med[$row.$form]}")" "$unit" \
      "${per/ | / x fastest }" "$cell"
    idiom_rows+=("| $row | $form | $(fmt_s "${med[$row.$form]}") | ${per% | *}/$unit | ${per#* | } | ${cell%; } |")
  done
}
declare -a bad_outputs=()

# Counterpart lines, only for the tools that are installed.
cp_lua() { [ $have_lua = 1 ] && echo "cp $1 lua5.4 lua/$2.lua"; }
cp_py() { [ $have_py = 1 ] && echo "cp $1 $PY py/$2"; }
cp_rs() { [ $have_rsi = 1 ] && [ -x "$rs_idioms/$2" ] && echo "cp $1 $rs_idioms/$2"; }

echo
echo "Idioms: ns/unit = (median - setup median) / count; x fastest = median / fastest form of the row."

idiom sum 10000000 elem <<EOF
setup sum_setup.flx
form kernel sum_kernel.flx
form fold_lambda sum_fold_lambda.flx
form fold_named sum_fold_named.flx
form fold_generic sum_fold_generic.flx
form fold_partial sum_fold_partial.flx
form iter_proc sum_iter_proc.flx
form for_in sum_for_in.flx
$(cp_rs rs sum)
EOF
idiom isum 10000000 elem <<EOF
setup isum_setup.flx
form kernel isum_kernel.flx
form fold_lambda isum_fold_lambda.flx
$(cp_rs rs isum)
EOF
idiom dsum 10000000 elem <<EOF
setup dsum_setup.flx
form kernel dsum_kernel.flx
form fold_lambda dsum_fold_lambda.flx
$(cp_rs rs dsum)
EOF
idiom map 10000000 elem <<EOF
setup sum_setup.flx
form kernel map_kernel.flx
form lambda map_lambda.flx
form capture map_capture.flx
form if map_if.flx
form block map_block.flx
$(cp_rs rs map)
EOF
idiom gsum 10000000 elem <<EOF
setup sum_setup.flx
form kernel gsum_kernel.flx
form for_in gsum_for_in.flx
$(cp_rs rs gsum)
EOF
idiom store 10000000 elem <<EOF
setup store_setup.flx
form fused store_fused.flx
form range store_range.flx
form while store_while.flx
form set store_set.flx
$(cp_rs rs store)
EOF
idiom dwhile 5000000 iter <<EOF
setup start_setup.flx
form loop dwhile_loop.flx
$(cp_lua lua dwhile)
EOF
idiom fib 2692537 call <<EOF
setup start_setup.flx
form int fib_int.flx lua_int
form double fib_double.flx lua_double
$(cp_lua lua_int fib_int)
$(cp_lua lua_double fib_double)
EOF
idiom call 5000000 call <<EOF
setup start_setup.flx
form inline call_inline.flx
form curried call_curried.flx
form tuple call_tuple.flx
$(cp_lua lua call)
EOF
idiom pairs 2000000 elem <<EOF
setup start_setup.flx
form aos pairs_aos.flx
form soa pairs_soa.flx
$(cp_lua lua pairs)
$(cp_rs rs pairs)
EOF
idiom str 100000 append <<EOF
setup start_setup.flx
form append str_append.flx
$(cp_py py "str_append.py 100000")
EOF
idiom str2x 200000 append <<EOF
setup start_setup.flx
form append str_append_2x.flx
$(cp_py py "str_append.py 200000")
EOF
idiom closure 5000000 elem <<EOF
setup closure_setup.flx
form kernel closure_kernel.flx
form pipeline closure_pipeline.flx
$(cp_lua lua closure)
$(cp_rs rs closure)
EOF
# Parallel scaling of a capturing map: map_capture.flx on 1 and 2 threads, in alternation.
idiom thr 10000000 elem <<EOF
setup sum_setup.flx
form t1 map_capture.flx - 1
form t2 map_capture.flx - 2
EOF
# Parallel scaling of fold_left of integer +: sum_fold_lambda.flx on 1 and 2 threads.
idiom fthr 10000000 elem <<EOF
setup sum_setup.flx
form t1 sum_fold_lambda.flx - 1
form t2 sum_fold_lambda.flx - 2
EOF

# Peak RSS of the array of pairs, and of Lua's table of tables.
if [[ pairs =~ $only ]] && [ $have_time = 1 ]; then
  rss[pairs.aos]=$(env RAYON_NUM_THREADS=$threads /usr/bin/time -f '%M' "$tessera" run "$idioms/pairs_aos.flx" 2>&1 >/dev/null | tail -1)
  [ $have_lua = 1 ] && rss[pairs.lua]=$(cd "$cps" && /usr/bin/time -f '%M' lua5.4 lua/pairs.lua 2>&1 >/dev/null | tail -1)
  awk -v kb="${rss[pairs.aos]}" -v lkb="${rss[pairs.lua]:-0}" 'BEGIN { n = 2000000;
    printf "pairs peak RSS %.1f MiB = %.1f bytes per element (N = 2e6; target <= 24 N + 16 MiB = %.1f MiB)", kb / 1024, kb * 1024 / n, (24 * n + 16 * 1048576) / 1048576
    if (lkb > 0) printf "; Lua 5.4 %.1f MiB", lkb / 1024
    printf "\n" }'
fi

# ---------------------------------------------------------------------------------------------
# Part 4, the programs: benches/programs/NAME.flx, user-style programs (plain loops, structs,
# pointers), each against its counterparts benches/counterparts/{rust,lua,py}/NAME.* and, where a
# numpy user would use numpy, py/NAME_np.py. Targets (whole-process medians): Tessera <= 2.0x
# Rust, <= 0.5x Lua 5.4, <= 0.1x CPython, <= 1.0x numpy.
programs=$repo/benches/programs
declare -a program_rows=()

# ratio_cell NUM_NS DEN_NS LIMIT: "1.23x met" or "4.56x **not met**", "—" without a sample.
ratio_cell() {
  if [ -z "$1" ] || [ -z "$2" ]; then echo "—"; return; fi
  awk -v t="$1" -v c="$2" -v l="$3" 'BEGIN { r = t / c; printf "%.2fx %s", r, (r <= l) ? "met" : "**not met**" }'
}

# program NAME: run every available version of one program, warm-up (outputs checked against the
# "Expected output:" line of the Tessera program), then RUNS rounds in alternation.
program() {
  local name=$1
  [[ $name =~ $only ]] || return 0
  local -a labels=()
  local -A commands=()
  labels+=("$name.tessera")
  commands[$name.tessera]="env RAYON_NUM_THREADS=$threads $tessera run $programs/$name.flx"
  if [ $have_rsi = 1 ] && [ -x "$rs_idioms/$name" ]; then
    labels+=("$name.rs"); commands[$name.rs]="$rs_idioms/$name"
  fi
  if [ $have_lua = 1 ] && [ -f "$cps/lua/$name.lua" ]; then
    labels+=("$name.lua"); commands[$name.lua]="lua5.4 lua/$name.lua"
  fi
  if [ $have_py = 1 ] && [ -f "$cps/py/$name.py" ]; then
    labels+=("$name.py"); commands[$name.py]="$PY py/$name.py"
  fi
  if [ $have_numpy = 1 ] && [ -f "$cps/py/${name}_np.py" ]; then
    labels+=("$name.np"); commands[$name.np]="$PY py/${name}_np.py"
  fi
  local expected out label
  expected=$(expected_of "$programs/$name.flx")
  for label in "${labels[@]}"; do
    : >"$work/$label.ns"
    (cd "$cps" && run_once "$label" bash -c "${commands[$label]}")
    out=$(tail -1 "$work/$label.out")
    if [ "$out" != "$expected" ]; then
      echo "  $label: WRONG OUTPUT '$out', expected '$expected'" >&2
      bad_outputs+=("$label")
    fi
  done
  for label in "${labels[@]}"; do : >"$work/$label.ns"; done
  for ((round = 0; round < runs; round++)); do
    for label in "${labels[@]}"; do
      (cd "$cps" && run_once "$label" bash -c "${commands[$label]}")
    done
  done
  for label in "${labels[@]}"; do med[$label]=$(median_ns "$work/$label.ns"); done
  local t=${med[$name.tessera]} cell_s="" lang
  for lang in rs lua py np; do
    if [ -n "${med[$name.$lang]:-}" ]; then cell_s+="$lang $(fmt_s "${med[$name.$lang]}")  "; fi
  done
  local r_rs r_lua r_py r_np
  r_rs=$(ratio_cell "$t" "${med[$name.rs]:-}" 2.0)
  r_lua=$(ratio_cell "$t" "${med[$name.lua]:-}" 0.5)
  r_py=$(ratio_cell "$t" "${med[$name.py]:-}" 0.1)
  r_np=$(ratio_cell "$t" "${med[$name.np]:-}" 1.0)
  printf '%-10s tessera %s  %s\n' "$name" "$(fmt_s "$t")" "$cell_s"
  printf '%-10s Tessera/Rust %s; /Lua %s; /CPython %s; /numpy %s\n' "" "$r_rs" "$r_lua" "$r_py" "$r_np"
  local s_rs="—" s_lua="—" s_py="—" s_np="—"
  [ -n "${med[$name.rs]:-}" ] && s_rs=$(fmt_s "${med[$name.rs]}")
  [ -n "${med[$name.lua]:-}" ] && s_lua=$(fmt_s "${med[$name.lua]}")
  [ -n "${med[$name.py]:-}" ] && s_py=$(fmt_s "${med[$name.py]}")
  [ -n "${med[$name.np]:-}" ] && s_np=$(fmt_s "${med[$name.np]}")
  program_rows+=("| $name | $(fmt_s "$t") | $s_rs | $s_lua | $s_py | $s_np | $r_rs | $r_lua | $r_py | $r_np |")
}

# startup: the whole-process time of `tessera run examples/hello.flx` (two lines of output), with
# the start-up of Lua 5.4 and CPython printing the same lines for comparison; at least 20 runs.
startup() {
  [[ startup =~ $only ]] || return 0
  local n=$(( runs > 20 ? runs : 20 )) label
  local -a labels=(startup.tessera)
  local -A commands=([startup.tessera]="$tessera run $repo/examples/hello.flx")
  if [ $have_lua = 1 ]; then
    labels+=(startup.lua); commands[startup.lua]="lua5.4 -e 'print(\"Hello, Tessera!\") print(42)'"
  fi
  if [ $have_py = 1 ]; then
    labels+=(startup.py); commands[startup.py]="$PY -c 'print(\"Hello, Tessera!\"); print(42)'"
  fi
  for label in "${labels[@]}"; do (cd "$cps" && run_once "$label" bash -c "${commands[$label]}"); done
  for label in "${labels[@]}"; do : >"$work/$label.ns"; done
  for ((round = 0; round < n; round++)); do
    for label in "${labels[@]}"; do (cd "$cps" && run_once "$label" bash -c "${commands[$label]}"); done
  done
  # The shell that run_once starts (bash -c) is included; its own start-up, for reference.
  : >"$work/startup.bash.ns"
  for ((round = 0; round < n; round++)); do run_once startup.bash bash -c true; done
  local line="startup (median of $n, whole process through bash -c): tessera hello.flx $(fmt_ms "$(median_ns "$work/startup.tessera.ns")") ms"
  for label in "${labels[@]:1}"; do line+="; ${label#startup.} $(fmt_ms "$(median_ns "$work/$label.ns")") ms"; done
  line+="; bash -c true alone $(fmt_ms "$(median_ns "$work/startup.bash.ns")") ms"
  # hyperfine, when installed, runs it without a shell (-N): the start-up alone.
  if command -v hyperfine >/dev/null && [ $have_py = 1 ]; then
    hyperfine -N -w 5 -r "$n" --export-json "$work/startup.json" "$tessera run $repo/examples/hello.flx" >/dev/null 2>&1 &&
      line+="; hyperfine -N: tessera hello.flx median $("$PY" -c 'import json, sys; print("%.1f" % (json.load(open(sys.argv[1]))["results"][0]["median"] * 1000))' "$work/startup.json") ms"
  fi
  echo "$line"
  startup_line=$line
}
startup_line=""
fmt_ms() { awk -v n="$1" 'BEGIN { printf "%.1f", n / 1e6 }'; }

echo
echo "Programs (benches/programs/): median seconds; targets Tessera <= 2.0x Rust, <= 0.5x Lua 5.4, <= 0.1x CPython, <= 1.0x numpy."
for name in matmul stencil sort_ptr nbody springs particles orders callbacks sieve histogram strscan tuple_rec mandelbrot rowsum runtime_sum static_sum runtime_rows static_rows filter_sum variants queens darray_stats toplevel_structs textbuild cons_list tree_insert print_doubles readlines wordsort fannkuch shapes; do
  program "$name"
done
startup

# ---------------------------------------------------------------------------------------------
# Targets of the one-fast-path work.
declare -a target_rows=()
targets_run=0
# target DESCRIPTION NUM DEN OP LIMIT: measured = med[NUM] / med[DEN], met when it is OP LIMIT.
target() {
  local what=$1 num=$2 den=$3 op=$4 limit=$5
  local a=${med[$num]:-} b=${med[$den]:-}
  if [ -z "$a" ] || [ -z "$b" ]; then
    target_rows+=("| $what | not run | $op ${limit}x | — |")
    return
  fi
  targets_run=1
  target_rows+=("$(awk -v a="$a" -v b="$b" -v op="$op" -v l="$limit" -v w="$what" 'BEGIN {
    r = a / b; ok = (op == "<=") ? (r <= l) : (r >= l)
    printf "| %s | %.2fx | %s %sx | %s |", w, r, op, l, ok ? "met" : "**not met**" }')")
}
for form in fold_lambda fold_named fold_generic fold_partial iter_proc for_in; do
  target "sum: $form / \\sum" sum.$form sum.kernel "<=" 2.0
done
target "isum: fold_lambda / \\sum" isum.fold_lambda isum.kernel "<=" 2.0
target "dsum: fold_lambda / \\sum" dsum.fold_lambda dsum.kernel "<=" 2.0
for form in lambda capture if block; do
  target "map: $form / map kernel" map.$form map.kernel "<=" 2.0
done
target "gsum: for_in / \\sum (map g)" gsum.for_in gsum.kernel "<=" 2.0
target "closure: pipeline / kernel form" closure.pipeline closure.kernel "<=" 2.0
target "K1f (fold_left) / Rust" K1f.tessera K1f.rs "<=" 2.0
target "K2l (map, fold_left lambdas) / Rust" K2l.tessera K2l.rs "<=" 2.0
target "K3l (map, fold_left lambdas) / Rust" K3l.tessera K3l.rs "<=" 2.0
target "K4 fib(30) int / Lua 5.4" K4.tessera K4.lua "<=" 0.8
target "K5 nested loop / Lua 5.4" K5.tessera K5.lua "<=" 0.8
target "fib(30) double / Lua 5.4" fib.double fib.lua_double "<=" 1.0
target "while loop on doubles / Lua 5.4" dwhile.loop dwhile.lua "<=" 1.0
target "pairs 2e6 (long * double) / Lua 5.4 tables" pairs.aos pairs.lua "<=" 0.5
if [ -n "${rss[pairs.aos]:-}" ]; then
  target_rows+=("$(awk -v kb="${rss[pairs.aos]}" 'BEGIN { n = 2000000; b = kb * 1024; l = 24 * n + 16 * 1048576
    printf "| pairs peak RSS | %.1f MiB | <= %.1f MiB (24 B/elem + 16 MiB) | %s |", b / 1048576, l / 1048576, (b <= l) ? "met" : "**not met**" }')")
else
  target_rows+=("| pairs peak RSS | not run | <= 61.8 MiB (24 B/elem + 16 MiB) | — |")
fi
target "str: 1e5 appends / CPython" str.append str.py "<=" 1.0
target "str: time(2e5) / time(1e5) (linear about 2, quadratic about 4)" str2x.append str.append "<=" 2.5
target "closure: map capture + iter proc / Lua 5.4" closure.pipeline closure.lua "<=" 0.5
target "thr: capturing map, 1 thread / 2 threads" thr.t1 thr.t2 ">=" 1.6

if [ ${#rows[@]} -gt 0 ]; then
  echo
  echo "Markdown rows (kernel | Tessera median s | counterparts' median s | ratios):"
  for row in "${rows[@]}"; do echo "$row"; done
fi
if [ ${#idiom_rows[@]} -gt 0 ]; then
  echo
  echo "| idiom | form | Tessera s | ns per unit | x fastest form | counterparts: s, Tessera/them |"
  echo "|---|---|---|---|---|---|"
  for row in "${idiom_rows[@]}"; do echo "$row"; done
fi
if [ ${#program_rows[@]} -gt 0 ]; then
  echo
  echo "| program | Tessera s | Rust s | Lua s | CPython s | numpy s | Tessera/Rust (<= 2.0) | Tessera/Lua (<= 0.5) | Tessera/CPython (<= 0.1) | Tessera/numpy (<= 1.0) |"
  echo "|---|---|---|---|---|---|---|---|---|---|"
  for row in "${program_rows[@]}"; do echo "$row"; done
fi
[ -n "$startup_line" ] && { echo; echo "$startup_line"; }
if [ $targets_run = 1 ]; then
  echo
  echo "| target (one fast path) | measured | target | met? |"
  echo "|---|---|---|---|"
  for row in "${target_rows[@]}"; do echo "$row"; done
fi
if [ ${#bad_outputs[@]} -gt 0 ]; then
  echo
  echo "WRONG OUTPUT (see above): ${bad_outputs[*]}"
fi
if [ ${#missing[@]} -gt 0 ]; then
  echo
  echo "Missing counterparts (install to compare against them):"
  for m in "${missing[@]}"; do echo "  - $m"; done
fi

#!/usr/bin/env bash
# The distributed benchmarks on 1 and 2 processes: a map + reduce over 10^8 doubles, a cumsum
# and a fold over 10^7 doubles, a stencil sweep by rows and a one-dimensional stencil sweep with
# a halo exchange (benches/distributed/*.flx). Each program prints its result on stdout (the
# same bytes on any number of processes, checked here) and the seconds of its timed part on
# stderr.
#
#   cargo build --release --features mpi && benches/distributed/run.sh [PROGRAMS...]
set -euo pipefail
cd "$(dirname "$0")/../.."
binary=${TESSERA:-target/release/tessera}
root_flag=()
if [ "$(id -u)" = 0 ]; then root_flag=(--allow-run-as-root); fi
programs=("$@")
if [ ${#programs[@]} -eq 0 ]; then programs=(benches/distributed/map_reduce.flx benches/distributed/scan_fold.flx benches/distributed/stencil.flx benches/distributed/halo.flx); fi
for program in "${programs[@]}"; do
  for np in 1 2; do
    out=$(mpirun -np "$np" --oversubscribe --bind-to none "${root_flag[@]}" "$binary" run "$program" 2>/tmp/tessera-bench.err)
    seconds=$(grep -o 'seconds: [0-9.e+-]*' /tmp/tessera-bench.err | head -1)
    echo "$(basename "$program") np=$np result=$out $seconds"
  done
done

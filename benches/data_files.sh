#!/usr/bin/env bash
# numpy files: load and save of a 200 MB .npy (5000 x 5000 float64) by Tessera and by numpy.
# Rows: `npy_load` (load, then the sum of the elements, printed), `npy_load_save` (load, then
# save a copy: the save's cost is this row minus `npy_load`). The data is generated into a
# temporary folder (never committed) and removed at the end. Medians by hyperfine, peak RSS by
# GNU time. Usage: benches/data_files.sh [RUNS] (default 5); TESSERA=path for another binary.
set -euo pipefail
runs=${1:-5}
here=$(cd "$(dirname "$0")" && pwd)
tessera=${TESSERA:-$here/../target/release/tessera}
work=$(mktemp -d /tmp/tessera-data-bench.XXXXXX)
trap 'rm -rf "$work"' EXIT
export RAYON_NUM_THREADS=${RAYON_NUM_THREADS:-1}

python3 -c "
import numpy as np
rng = np.random.default_rng(7)
np.save('$work/big.npy', rng.random((5000, 5000)))
"
cat > "$work/load.flx" <<FLX
val a : double ^ (5000 \\* 5000) = load_npy "$work/big.npy";
println$ \\sum a;
FLX
cat > "$work/load_save.flx" <<FLX
val a : double ^ (5000 \\* 5000) = load_npy "$work/big.npy";
save_npy ("$work/copy.npy", a);
FLX
cat > "$work/load.py" <<PY
import numpy as np
a = np.load("$work/big.npy")
print(a.sum())
PY
cat > "$work/load_save.py" <<PY
import numpy as np
a = np.load("$work/big.npy")
np.save("$work/copy_np.npy", a)
PY

echo "== npy_load: 200 MB float64 (5000 x 5000), load and sum"
hyperfine -N -w 1 -r "$runs" -n tessera "$tessera $work/load.flx" -n numpy "python3 $work/load.py"
echo "== npy_load_save: load, then save a copy"
hyperfine -N -w 1 -r "$runs" -n tessera "$tessera $work/load_save.flx" -n numpy "python3 $work/load_save.py"
cmp <(tail -c +129 "$work/copy.npy") <(tail -c +129 "$work/big.npy") && echo "the copy's data is the original's"
echo "== peak RSS (KB)"
for cmd in "$tessera $work/load.flx" "python3 $work/load.py" "$tessera $work/load_save.flx" "python3 $work/load_save.py"; do
  rss=$(/usr/bin/time -v $cmd 2>&1 >/dev/null | awk -F': ' '/Maximum resident/ {print $2}')
  echo "$rss  $cmd" | sed "s|$work/||g"
done

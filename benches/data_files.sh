#!/usr/bin/env bash
# Data files: load and save of a 200 MB .npy (5000 x 5000 float64) by Tessera and by numpy, and
# load of a 50 MB CSV of doubles (550000 x 5, a header row) by Tessera, numpy.loadtxt and
# pandas.read_csv (when pandas is installed).
# Rows: `npy_load` (load, then the sum of the elements, printed), `npy_load_save` (load, then
# save a copy: the save's cost is this row minus `npy_load`), `csv_load` (load, then the sum,
# printed), `csv_save` (load, then save a copy). The data is generated into a
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

python3 -c "
import numpy as np
rng = np.random.default_rng(7)
np.savetxt('$work/big.csv', rng.random((550000, 5)) * 1000, delimiter=',', fmt='%.17g',
           header='a,b,c,d,e', comments='')
"
cat > "$work/csv_load.flx" <<FLX
val a : double ^ (550000 \\* 5) = load_csv "$work/big.csv";
println$ \\sum a;
FLX
cat > "$work/csv_save.flx" <<FLX
val a : double ^ (550000 \\* 5) = load_csv "$work/big.csv";
save_csv ("$work/copy.csv", a);
FLX
cat > "$work/csv_loadtxt.py" <<PY
import numpy as np
a = np.loadtxt("$work/big.csv", delimiter=",", skiprows=1)
print(a.sum())
PY
cat > "$work/csv_pandas.py" <<PY
import pandas as pd
a = pd.read_csv("$work/big.csv").to_numpy()
print(a.sum())
PY
cat > "$work/csv_pandas_save.py" <<PY
import pandas as pd
a = pd.read_csv("$work/big.csv")
a.to_csv("$work/copy_pd.csv", index=False)
PY
pandas=()
if python3 -c "import pandas" 2>/dev/null; then
  pandas=(-n pandas "python3 $work/csv_pandas.py")
fi

echo "== npy_load: 200 MB float64 (5000 x 5000), load and sum"
hyperfine -N -w 1 -r "$runs" -n tessera "$tessera $work/load.flx" -n numpy "python3 $work/load.py"
echo "== npy_load_save: load, then save a copy"
hyperfine -N -w 1 -r "$runs" -n tessera "$tessera $work/load_save.flx" -n numpy "python3 $work/load_save.py"
cmp <(tail -c +129 "$work/copy.npy") <(tail -c +129 "$work/big.npy") && echo "the copy's data is the original's"
echo "== csv_load: 50 MB CSV of doubles (550000 x 5), load and sum"
hyperfine -N -w 1 -r "$runs" -n tessera "$tessera $work/csv_load.flx" \
  -n numpy.loadtxt "python3 $work/csv_loadtxt.py" "${pandas[@]}"
echo "== csv_save: load, then save a copy"
pandas_save=()
if [ ${#pandas[@]} -gt 0 ]; then pandas_save=(-n pandas "python3 $work/csv_pandas_save.py"); fi
hyperfine -N -w 1 -r "$runs" -n tessera "$tessera $work/csv_save.flx" "${pandas_save[@]}"
python3 -c "
import numpy as np
a = np.loadtxt('$work/big.csv', delimiter=',', skiprows=1)
b = np.loadtxt('$work/copy.csv', delimiter=',', skiprows=1)
assert (a == b).all()
print('the CSV copy reads back the same doubles')
"
echo "== peak RSS (KB)"
csv_cmds=("$tessera $work/csv_load.flx" "python3 $work/csv_loadtxt.py")
if [ ${#pandas[@]} -gt 0 ]; then csv_cmds+=("python3 $work/csv_pandas.py"); fi
for cmd in "$tessera $work/load.flx" "python3 $work/load.py" "$tessera $work/load_save.flx" "python3 $work/load_save.py" "${csv_cmds[@]}"; do
  rss=$(/usr/bin/time -v $cmd 2>&1 >/dev/null | awk -F': ' '/Maximum resident/ {print $2}')
  echo "$rss  $cmd" | sed "s|$work/||g"
done

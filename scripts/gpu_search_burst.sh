#!/usr/bin/env bash
# The GPU check of issue 27 (docs/performance.md, "The network on a GPU"), prepared for a lent
# GPU machine: the searches of K games per process share one network call on the GPU, one
# process per core, each process measured by benchmarks/search_speed.py (its "rounds" arms on
# the GPU, its "leaves" baseline on the CPU), and the GPU's utilisation sampled meanwhile.
#
#   OUT=runs/gpu PROCS=8 bash scripts/gpu_search_burst.sh
#
# The GPU image has torch and numba but not PettingZoo or Gymnasium: carry them as wheels in
# .whl/ (docs/performance.md says which); they are installed into /tmp/site when present.
# Writes at most 4 files into $OUT: gpu.txt, utilisation.txt, search.json, search.txt.
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-runs/gpu}
PROCS=${PROCS:-8}
KS=${KS:-"256 1024"}
mkdir -p "$OUT" "$OUT/parts"
if compgen -G ".whl/*.whl" >/dev/null; then
    python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site .whl/*.whl
    export PYTHONPATH="/tmp/site:$PWD"
fi
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv >"$OUT/gpu.txt" 2>&1 || true
nproc >>"$OUT/gpu.txt"
# compile the numba kernels once, before the processes start together
python3 benchmarks/search_speed.py --device cuda --sims 4 --ks 2 --baseline-k 2 --moves 1 \
    --trials 1 >/dev/null
nvidia-smi dmon -s u -d 1 >"$OUT/utilisation.txt" 2>&1 &
monitor=$!
pids=()
for p in $(seq 1 "$PROCS"); do
    # shellcheck disable=SC2086
    python3 benchmarks/search_speed.py --device cuda --precision "${PRECISION:-bf16}" \
        --ks $KS --baseline-k 32 --sims 200 --moves 4 --trials 1 --seed "$p" \
        --json "$OUT/parts/search-$p.json" >"$OUT/parts/search-$p.txt" 2>&1 &
    pids+=($!)
done
status=0
for pid in "${pids[@]}"; do wait "$pid" || status=1; done
kill "$monitor" 2>/dev/null || true
python3 - "$OUT" <<'PY'
import json, pathlib, sys
out = pathlib.Path(sys.argv[1])
parts = sorted((out / "parts").glob("search-*.json"))
runs = [r | {"process": p.stem} for p in parts for r in json.loads(p.read_text())["runs"]]
(out / "search.json").write_text(json.dumps({"runs": runs}, indent=1))
texts = sorted((out / "parts").glob("search-*.txt"))
(out / "search.txt").write_text("\n\n".join(f"== {t.stem}\n{t.read_text()}" for t in texts))
PY
rm -r "$OUT/parts"
exit $status

#!/usr/bin/env bash
# Play an arena match, or as much of it as fits, on a lent many-core machine, and bring its
# run folder home to finish or to record.
#
#   MINUTES=8 PACK=/tmp/pack MATCH_OUT=/work/screens/NAME bash scripts/gpu_arena_burst.sh \
#       AGENT_A AGENT_B --games 200 --seed 2051 ...    (gomcts arena's own arguments)
#
# The match runs with one worker per core (WORKERS to change) in MATCH_OUT, the same path as
# at home, and is stopped after MINUTES as Ctrl-C stops it (SIGTERM; finished games are kept,
# the games in flight are lost; KILL_AFTER seconds after the start it is killed). The folder is
# then packed into PACK/match.tgz, with the machine's facts (machine.txt) and the log
# (arena.log). At home, unpack it over the same path; `gomcts arena` with the same arguments
# and --out MATCH_OUT then plays the games left (the arena resumes a folder and refuses one
# that holds another match's results).
#
# What the agents' specs name by absolute path must exist there at the same path: FILES lists
# SRC:DST pairs copied before the match (SRC relative to this checkout, e.g. a carried network).
# An engine such as GNU Go travels as a folder carried with the checkout: if .gnugo/ holds a
# `gnugo` launcher (see docs/arena.md, "A match on a borrowed machine") it goes first on PATH.
# WARM_SPEC, if set, plays one quick game first so that the kernels compile once.
# The machine's Python must have the project's dependencies; wheels in .whl/ are installed
# (pettingzoo, gymnasium and farama-notifications on the project's GPU machines), and the
# checkout gets an editable install when gomcts is not installed (no network needed).
set -uo pipefail
cd "$(dirname "$0")/.."
MINUTES=${MINUTES:-8}
PACK=${PACK:?PACK must name the folder for the pack}
MATCH_OUT=${MATCH_OUT:?MATCH_OUT must name the match folder, the same path as at home}
KILL_AFTER=${KILL_AFTER:-$((MINUTES * 60 + 60))}
WORKERS=${WORKERS:-$(nproc)}
export PYTHONUNBUFFERED=1
mkdir -p "$PACK"
if compgen -G ".whl/*.whl" >/dev/null; then
    python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
        --target /tmp/site .whl/*.whl || exit 1
    export PYTHONPATH="/tmp/site${PYTHONPATH:+:$PYTHONPATH}"
fi
if ! python3 -c "import importlib.metadata as m; m.distribution('gomcts')" 2>/dev/null; then
    python3 -m pip install -q --no-deps --no-build-isolation -e . || exit 1
fi
[ -x .gnugo/gnugo ] && export PATH="$PWD/.gnugo:$PATH"
for pair in ${FILES:-}; do
    mkdir -p "$(dirname "${pair#*:}")" && cp "${pair%%:*}" "${pair#*:}" || exit 1
done
{
    date -u
    echo "cores: $(nproc), workers: $WORKERS"
    # the copy's git metadata: on a machine sent the working tree alone it can name an older
    # commit than the tree's (the project's GPU machines do; the record says which code ran)
    git rev-parse HEAD 2>/dev/null
    nvidia-smi --query-gpu=name,memory.total --format=csv,noheader 2>/dev/null
    python3 -c "import sys, numba, onnxruntime, torch; print(sys.version.split()[0], 'numba', numba.__version__, 'onnxruntime', onnxruntime.__version__, 'torch', torch.__version__)"
    command -v gnugo >/dev/null && gnugo --version | head -1
    for pair in ${FILES:-}; do sha256sum "${pair#*:}"; done
} >"$PACK/machine.txt" 2>&1
# compile the numba kernels once, before the workers start together: one quick game of
# WARM_SPEC (agent A's spec with few simulations) against the random agent
if [ -n "${WARM_SPEC:-}" ]; then
    python3 -m agents.cli arena "$WARM_SPEC" random --games 1 --workers 1 --out /tmp/warm \
        --no-sgf --no-plot --no-progress >"$PACK/warm.log" 2>&1 || { cat "$PACK/warm.log"; exit 1; }
fi
timeout -s TERM -k 30 "$KILL_AFTER" timeout -s TERM "$((MINUTES * 60))" \
    python3 -m agents.cli arena "$@" --workers "$WORKERS" --out "$MATCH_OUT" --no-progress \
    >"$PACK/arena.log" 2>&1
status=$?
date -u >>"$PACK/machine.txt"
tar czf "$PACK/match.tgz" -C "$(dirname "$MATCH_OUT")" "$(basename "$MATCH_OUT")"
exit $status

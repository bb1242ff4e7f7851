#!/usr/bin/env bash
# Continue a self-play run for a fixed time on a bigger, borrowed machine, and pack what changed.
#
#   RUN=runs/paper-9x9 MINUTES=4 PACK=/tmp/pack bash scripts/selfplay_burst.sh \
#       --preset paper-9x9 --search gumbel --games 2500 --sims 64 ... (the run's own resume flags)
#
# The run folder travels to the machine (copy it there, or carry it); the run resumes with one
# worker per core but two (the trainer and the system keep theirs), stops cleanly after MINUTES
# (`--budget-minutes`; KILL_AFTER seconds later it is killed, which loses at most the games in
# flight), and every file of the folder newer than the start is packed into PACK as
# selfplay.tgz.aa, .ab, ... (15 MB pieces). Unpack them over the folder where the run lives:
#
#   cat PACK/selfplay.tgz.* | tar xzf - -C /where/the/run/lives
#
# Nothing is lost if the pack never comes back: the folder at home is unchanged, and the run
# resumes there from where it was. A gate or ladder match the burst leaves half-played resumes
# at home with its games, though it named the networks under the burst's folder.
#
# The commands of `gomcts` are registered as the package's entry points, so a machine where
# the package is not installed gets an editable install of this checkout first (no network
# needed; missing dependencies such as pettingzoo must be there, e.g. installed from wheels).
set -uo pipefail
cd "$(dirname "$0")/.."
RUN=${RUN:?RUN must name the run folder}
MINUTES=${MINUTES:-4}
PACK=${PACK:?PACK must name the folder for the pack}
KILL_AFTER=${KILL_AFTER:-$((MINUTES * 60 + 150))}
WORKERS=${WORKERS:-$(($(nproc) > 3 ? $(nproc) - 2 : $(nproc)))}
mkdir -p "$PACK"
if ! python3 -c "import importlib.metadata as m; m.distribution('gomcts')" 2>/dev/null; then
    python3 -m pip install -q --no-deps --no-build-isolation -e . || exit 1
fi
stamp=$(mktemp)
touch -d '-1 second' "$stamp"
timeout "$KILL_AFTER" python3 -m agents.cli train selfplay --out "$RUN" --workers "$WORKERS" \
    --budget-minutes "$MINUTES" "$@"
status=$?
parent=$(dirname "$RUN")
name=$(basename "$RUN")
(cd "$parent" && find "$name" -type f -newer "$stamp" -print0 | tar czf - --null -T -) |
    split -b 15M - "$PACK/selfplay.tgz."
rm -f "$stamp"
exit $status

#!/usr/bin/env bash
# Set up everything gomcts needs on a fresh Debian-like machine: system packages (GNU Go,
# PostgreSQL),
# a virtual environment in .venv, and the package with all extras. Idempotent and quick when
# nothing changed. Used by `make demo` and `make test`.
set -euo pipefail
cd "$(dirname "$0")/.."

log() { printf '[bootstrap] %s\n' "$*" >&2; }

apt_install() {
    local runner=()
    if [ "$(id -u)" != 0 ]; then
        if command -v sudo >/dev/null 2>&1; then runner=(sudo); else
            log "cannot install $* (not root, no sudo): install it yourself"; return 1; fi
    fi
    log "installing system packages: $*"
    "${runner[@]}" apt-get update -qq >/dev/null
    DEBIAN_FRONTEND=noninteractive "${runner[@]}" apt-get install -y -qq "$@" >/dev/null
}

# --- system packages -------------------------------------------------------------------------
export PATH="$PATH:/usr/games"  # Debian installs GNU Go there
missing=()
command -v gnugo >/dev/null 2>&1 || missing+=(gnugo)
# PostgreSQL (server binaries in /usr/lib/postgresql/*/bin): the distributed-study tests.
compgen -G "/usr/lib/postgresql/*/bin/initdb" >/dev/null || command -v initdb >/dev/null 2>&1 \
    || missing+=(postgresql)
if [ ${#missing[@]} -gt 0 ]; then
    if ! apt_install "${missing[@]}"; then
        if [ "${CI:-}" = "true" ]; then log "CI needs: ${missing[*]}"; exit 1; fi
        log "continuing without: ${missing[*]} (tests that need them will be skipped)"
    fi
fi

# --- Python environment ----------------------------------------------------------------------
PYTHON=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
    log "creating .venv with $($PYTHON --version)"
    "$PYTHON" -m venv .venv
fi
stamp=.venv/.gomcts-installed
want=$(cat pyproject.toml scripts/bootstrap.sh scripts/constraints.txt | sha256sum | cut -d' ' -f1)
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
    log "installing gomcts and its dependencies into .venv"
    .venv/bin/python -m pip install -q --upgrade pip 2>&1 | grep -v '^WARNING: Location' || true
    # every extra but dashboard and bench; constraints: the exact torch build of
    # scripts/constraints.txt, never upgraded by a dependency (BoTorch, GPyTorch...)
    .venv/bin/python -m pip install -q -c scripts/constraints.txt \
        -e ".[agents,nets,tuning,gp,botorch,postgres,cluster,onnx,dev]" 2>&1 \
        | grep -v '^WARNING: Location' || true
    # fail loudly if the install broke
    .venv/bin/python -c "import go_env, agents, tuning, torch, botorch, psycopg2, ray, onnxruntime"
    echo "$want" > "$stamp"
fi
log "ready"

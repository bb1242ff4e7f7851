# The two commands of the README. Each sets up everything it needs (scripts/bootstrap.sh).
.PHONY: demo test lint bench clean-cache

# Debian installs GNU Go in /usr/games, which is not always on PATH.
export PATH := $(PATH):/usr/games

demo:
	@bash scripts/bootstrap.sh
	.venv/bin/python scripts/main_study.py

test:
	@bash scripts/bootstrap.sh
	.venv/bin/python -m pytest -n 2 --durations=15 $(PYTEST_ARGS)

lint:
	@bash scripts/bootstrap.sh
	.venv/bin/ruff check . && .venv/bin/ruff format --check . && .venv/bin/mypy

bench:
	@bash scripts/bootstrap.sh
	.venv/bin/python -c "import pyspiel, pygame" 2>/dev/null || .venv/bin/python -m pip install -q -e ".[agents,bench]"
	.venv/bin/python benchmarks/run_all.py $(BENCH_ARGS)

clean-cache:
	find go_env agents tuning -name '*.nbi' -delete -o -name '*.nbc' -delete

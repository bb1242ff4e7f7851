"""Simulations per CPU-second and per wall-second of K network searches in one process.

Games of two ``mcts`` agents with the value network as evaluator (``net``, no rollouts:
"value-only"), ``K`` games at once in this process driven as the arena drives them
(:func:`agents.mcts.multi.round_robin` over each game's coroutine, the agents asked through
:func:`agents.game.move_steps`), every game from its own random 2-move opening for
``--moves`` moves under the default rules (so that no search sees the move cap, whose
leaves need no network). Two leaf paths are measured in the same run, in rotating order:

* ``leaves`` (the path before the search set, commit 33f33a9): each leaf request goes up
  through the agent's and the game's coroutines (:meth:`MCTSAgent.act_leaf_steps
  <agents.mcts.agent.MCTSAgent.act_leaf_steps>`), every leaf is built as a
  :class:`~go_env.state.GoState`, its planes and mask computed in Python per state, its
  cache key by blake2b, and all requests of a round answered by one network call
  (:class:`~agents.mcts.multi.SharedEvaluation`); always fp32;
* ``rounds`` (today): the searches of all games run in rounds in a
  :class:`~agents.mcts.search_set.SearchSet`: compiled descents, the planes, masks and cache
  keys of all leaves in one compiled call each, one network call, compiled backups; at the
  given ``--precision`` (passed to the evaluator as ``net:precision=...``; ``fp32`` adds
  nothing to the spec).

It prints, per arm, simulations per wall-second and per CPU-second, the network's time per
simulation (process CPU time inside the forward calls), the time per simulation outside it (the
process's other CPU time, per simulation), the mean rows per network call and CPU/wall
(well below 1: the process waited for a core); then each ``rounds`` arm over the ``leaves``
arm of the same trial, per CPU-second and per wall-second, with the targets of the issue
(overall >= 2.5x per CPU-second; time outside the network <= a third). Torch runs on
``--threads`` threads (1 by default: CPU-seconds then compare one core's work). Each arm
starts after a full garbage collection, so that no arm pays for collecting another's objects.

    nice -n 5 .venv/bin/python benchmarks/search_speed.py                   # the full run
    nice -n 5 .venv/bin/python benchmarks/search_speed.py --sims 20 --ks 8 --baseline-k 8 \\
        --moves 2 --trials 1                                                  # a smoke test

With ``--json PATH`` each finished arm is recorded at once, and a run started again with the
same arguments skips the arms already there (a long run resumes after an interruption).
``docs/performance.md`` quotes its output.
"""

from __future__ import annotations

import argparse
import dataclasses
import gc
import hashlib
import json
import statistics
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np

from agents.game import move_steps
from agents.mcts.agent import MCTSAgent
from agents.mcts.multi import SharedEvaluation, round_robin
from agents.mcts.requests import Steps
from agents.nets.evaluator import NetEvaluator, NetForward, NetPending, pass_when_over
from agents.nets.features import stack_planes
from agents.nets.symmetry import SYMMETRIES
from agents.registry import agent_config
from go_env.rules import Rules
from go_env.state import GoState

sys.path.insert(0, str(Path(__file__).resolve().parent))  # benchmarks/common.py, run or imported
from common import machine_info, machine_line

TARGET = 2.5
"""Simulations per CPU-second of the best ``rounds`` arm over the ``leaves`` arm."""
OUTSIDE_TARGET = 1 / 3
"""Time outside the network per simulation, ``rounds`` over ``leaves``."""
AGENT = 'mcts:sims={sims},policy=puct,c=0.5,evaluator="net:{net}",choice=visits'


def _legacy_prepare(self: NetEvaluator, batch: Any) -> NetPending:
    """:meth:`NetEvaluator.prepare` as of commit 33f33a9: GoStates, Python planes, blake2b."""
    states = batch.states()
    c = self.config
    planes = stack_planes(states, c.history, c.tactical)
    masks = pass_when_over(np.stack([state.legal_mask() for state in states]))
    count = planes.shape[0]
    pending = NetPending(self, count)
    for i in range(count):
        key = b""
        if self.cache_size:
            key = hashlib.blake2b(planes[i].tobytes() + masks[i].tobytes(), digest_size=16).digest()
            hit = self._cache.get(key)
            if hit is not None:
                self._cache.move_to_end(key)
                pending.priors[i], pending.values[i] = hit
                self.hits += 1
                pending.keys.append(key)
                continue
        pending.keys.append(key)
        pending.todo.append(i)
    todo = pending.todo
    if not todo:
        return pending
    if len(todo) < count:
        planes, masks = planes[todo], masks[todo]
    n = len(todo)
    if self.symmetry == "random":
        syms = np.asarray(self._rng.integers(0, SYMMETRIES, size=(n,)), dtype=np.int64)
    else:
        syms = np.zeros(n, dtype=np.int64)
    pending.inputs = (planes, syms, masks)
    return pending


@contextmanager
def forward_cpu(clock: list[float]) -> Iterator[None]:
    """Inside: ``clock[0]`` gathers the process CPU time spent in network forward calls."""
    call = NetForward.__call__

    def timed(self: NetForward, *inputs: Any) -> Any:
        start = time.process_time()
        try:
            return call(self, *inputs)
        finally:
            clock[0] += time.process_time() - start

    NetForward.__call__ = timed  # type: ignore[method-assign]
    try:
        yield
    finally:
        NetForward.__call__ = call  # type: ignore[method-assign]


@contextmanager
def leaf_path() -> Iterator[None]:
    """Inside: the ``leaves`` arm's path (module docstring); restored on the way out."""
    act_steps, prepare = MCTSAgent.act_steps, NetEvaluator.prepare
    MCTSAgent.act_steps = MCTSAgent.act_leaf_steps  # type: ignore[method-assign]
    NetEvaluator.prepare = _legacy_prepare  # type: ignore[method-assign]
    try:
        yield
    finally:
        MCTSAgent.act_steps = act_steps  # type: ignore[method-assign]
        NetEvaluator.prepare = prepare  # type: ignore[method-assign]


@contextmanager
def _nothing() -> Iterator[None]:
    yield


def _specs(args: argparse.Namespace, precision: str, device: str = "cpu") -> tuple[str, str]:
    net = f"device={device}" if precision == "fp32" else f"device={device},precision={precision}"
    spec = AGENT.format(sims=args.sims, net=net)
    return spec, spec.replace("choice=visits", "choice=visits,backup=softmax")


def _game(agents: list[Any], size: int, opening: list[int], moves: int) -> Steps[int]:
    """``moves`` moves of one game from ``opening``, the agents taking turns; its moves."""
    state = GoState(Rules(size=size))
    for move in opening:
        state.play(move)
    for agent in agents:
        agent.reset()
    for turn in range(moves):
        if state.is_over:
            break
        move = yield from move_steps(agents[turn % 2], state, None)
        state.play(move)
    return turn + 1


def _arm(args: argparse.Namespace, path: str, k: int, precision: str, trial: int) -> dict:
    """Play ``k`` games at once on one leaf path; the timings."""
    specs = _specs(args, precision, args.device if path == "rounds" else "cpu")
    configs = [agent_config(spec) for spec in specs]
    seeds = np.random.SeedSequence([args.seed, trial]).generate_state(2 * k)
    rng = np.random.default_rng([args.seed, trial])
    points = args.size * args.size
    games = []
    for g in range(k):
        agents = [
            dataclasses.replace(c, seed=int(seeds[2 * g + i])).build()
            for i, c in enumerate(configs)
        ]
        opening = [int(m) for m in rng.choice(points, size=2, replace=False)]
        games.append((agents, opening))
    shared = SharedEvaluation()
    clock = [0.0]
    gc.collect()  # the garbage of the arm before is not this arm's to collect
    with forward_cpu(clock), leaf_path() if path == "leaves" else _nothing():
        wall, cpu = time.perf_counter(), time.process_time()
        played = round_robin(
            (
                (g, lambda g=g: _game(games[g][0], args.size, games[g][1], args.moves))
                for g in range(k)
            ),
            k,
            shared=shared,
        )
        moves = sum(count for _, count in played)
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    sims = max(moves * args.sims, 1)
    forward = clock[0]
    return {
        "path": path,
        "k": k,
        "precision": precision,
        "trial": trial,
        "games": k,
        "moves": moves,
        "simulations": sims,
        "wall": wall,
        "cpu": cpu,
        "forward": forward,
        "forward_wall": shared.stats.forward_seconds,
        "calls": shared.stats.calls,
        "rows": shared.stats.rows,
        "sims_per_s": sims / wall,
        "sims_per_cpu_s": sims / cpu,
        "net_us": forward / sims * 1e6,
        "outside_us": max(cpu - forward, 0.0) / sims * 1e6,
        "mean_batch": shared.stats.rows / shared.stats.calls if shared.stats.calls else 0.0,
        "cpu_per_wall": cpu / wall,
    }


def _warm(args: argparse.Namespace) -> None:
    """Compile the kernels and load the network on both paths (not timed)."""
    small = argparse.Namespace(**{**vars(args), "sims": 4, "moves": 2})
    for path in ("leaves", "rounds"):
        for precision in {"fp32", args.precision}:
            if path == "leaves" and precision != "fp32":
                continue
            _arm(small, path, 2, precision, 0)


def main(argv: list[str] | None = None) -> int:
    """Run the arms (module docstring); 0 when every arm ran."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ks", type=int, nargs="+", default=[32, 64, 128], help="K, rounds")
    parser.add_argument("--baseline-k", type=int, default=32, help="K of the leaves arm")
    parser.add_argument("--sims", type=int, default=200, help="simulations per move (N)")
    parser.add_argument("--size", type=int, default=9)
    parser.add_argument("--moves", type=int, default=10, help="moves searched per game")
    parser.add_argument("--trials", type=int, default=2, help="trials of all arms")
    parser.add_argument("--threads", type=int, default=1, help="torch CPU threads (0: as is)")
    parser.add_argument(
        "--precision",
        default="fp32",
        help="the rounds arms' network precision, given to the evaluator as net:precision=...",
    )
    parser.add_argument(
        "--device",
        default="cpu",
        help="the rounds arms' network device (cpu, cuda, cuda:N); the leaves arm stays on the CPU",
    )
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--json", type=Path, default=None, help="record (and resume) here")
    args = parser.parse_args(argv)
    if min(args.ks) < 1 or args.baseline_k < 1 or args.sims < 1 or args.trials < 1:
        parser.error("--ks, --baseline-k, --sims and --trials must be >= 1")
    if args.moves < 1 or args.threads < 0:
        parser.error("--moves must be >= 1 and --threads >= 0")
    for spec in _specs(args, args.precision, args.device):
        try:
            agent_config(spec)
        except ValueError as exc:  # e.g. a precision this version's net evaluator lacks
            parser.error(f"--precision {args.precision}: {exc}")
    import torch

    if args.device.startswith("cuda") and not torch.cuda.is_available():
        parser.error(f"--device {args.device}: CUDA is not available on this machine")

    if args.threads:
        torch.set_num_threads(args.threads)
    key = {k: v for k, v in vars(args).items() if k != "json"}
    runs: list[dict[str, Any]] = []
    if args.json is not None and args.json.exists():
        record = json.loads(args.json.read_text())
        if record.get("args") != key:
            parser.error(f"{args.json} holds a run with other arguments; give another --json")
        runs = record["runs"]
        print(f"resuming: {len(runs)} arms already in {args.json}")
    info = machine_info()
    print(machine_line(info))
    print(f"{_flags()}\ntorch threads {torch.get_num_threads()}")
    print("agents: " + " vs ".join(_specs(args, args.precision, args.device)))
    arms = [("leaves", args.baseline_k, "fp32")] + [("rounds", k, args.precision) for k in args.ks]
    _warm(args)
    for trial in range(args.trials):
        shift = trial % len(arms)
        for path, k, precision in arms[shift:] + arms[:shift]:
            if any(
                (r["path"], r["k"], r["precision"], r["trial"]) == (path, k, precision, trial)
                for r in runs
            ):
                continue
            run = _arm(args, path, k, precision, trial)
            runs.append(run)
            print(
                f"trial {trial} {path} K={k} {precision}: {run['simulations']:,} simulations "
                f"in {run['wall']:.1f} s ({run['sims_per_cpu_s']:,.0f} per CPU-s)",
                flush=True,
            )
            if args.json is not None:
                args.json.write_text(json.dumps({"args": key, "machine": info, "runs": runs}))
    _report(runs, arms, args)
    return 0


def _flags() -> str:
    """The CPU's vector and matrix flags that a network's precision depends on."""
    try:
        text = Path("/proc/cpuinfo").read_text()
    except OSError:
        return "CPU flags: unknown"
    flags: set[str] = set()
    for line in text.splitlines():
        if line.startswith("flags"):
            flags = set(line.split(":", 1)[1].split())
            break
    wanted = sorted(f for f in flags if f.startswith(("avx", "amx", "fma", "f16c", "vnni")))
    return "CPU flags: " + " ".join(wanted)


def _report(runs: list[dict[str, Any]], arms: list[tuple[str, int, str]], args: Any) -> None:
    print()
    print(
        "| path | K | precision | simulations | sims/s (wall) | sims per CPU-s "
        "| network us/sim (CPU) | outside us/sim (CPU) | mean batch | CPU/wall |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|")
    med = statistics.median
    for path, k, precision in arms:
        mine = [r for r in runs if (r["path"], r["k"], r["precision"]) == (path, k, precision)]
        if not mine:
            continue
        print(
            f"| {path} | {k} | {precision} | {sum(r['simulations'] for r in mine):,} | "
            f"{med(r['sims_per_s'] for r in mine):,.0f} | "
            f"{med(r['sims_per_cpu_s'] for r in mine):,.0f} | "
            f"{med(r['net_us'] for r in mine):.1f} | {med(r['outside_us'] for r in mine):.1f} | "
            f"{med(r['mean_batch'] for r in mine):.1f} | "
            f"{med(r['cpu_per_wall'] for r in mine):.2f} |"
        )
    print()
    base = {r["trial"]: r for r in runs if r["path"] == "leaves"}
    for path, k, precision in arms[1:]:
        pairs = [
            (r, base[r["trial"]])
            for r in runs
            if (r["path"], r["k"], r["precision"]) == (path, k, precision) and r["trial"] in base
        ]
        if not pairs:
            continue
        cpu = med(r["sims_per_cpu_s"] / b["sims_per_cpu_s"] for r, b in pairs)
        wall = med(r["sims_per_s"] / b["sims_per_s"] for r, b in pairs)
        outside = med(r["outside_us"] / max(b["outside_us"], 1e-9) for r, b in pairs)
        verdict = "PASS" if cpu >= TARGET else "FAIL"
        print(
            f"{verdict} rounds K={k} {precision} over leaves K={args.baseline_k} fp32: "
            f"{cpu:.2f}x per CPU-s (target >= {TARGET}x), {wall:.2f}x per wall-s; "
            f"outside the network {outside:.2f} of it "
            f"({'PASS' if outside <= OUTSIDE_TARGET else 'FAIL'}, target <= 1/3)"
        )


if __name__ == "__main__":
    sys.exit(main())

"""A real two-node Ray cluster on 127.0.0.1, a match on it, and a node killed mid-match.

Run by tests/agents_tests/matches/test_ray_cluster.py as
``unshare ... python tests/ray_cluster_scenario.py OUT`` inside fresh network and PID
namespaces: in the network namespace the only interface is the loopback, so Ray's nodes
really talk over 127.0.0.1 (outside, Ray binds to the machine's address); in the PID
namespace this script is process 1, so every Ray process it started dies
with it, whatever happens. It writes a JSON report to OUT, which the test checks.

Steps: start a head node and a second node (``ray start --block``, one CPU each); check the
RayPool's own behaviour (initializer once per worker process, an exception keeps its type,
queued calls can be cancelled); play a match with ``iter_games(..., ray=ADDRESS)``; once two
games are recorded and the second node is playing one, kill that node's raylet; finish the
match; then resume it from a results file cut to its first games.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

PORT = 6399
ADDRESS = f"127.0.0.1:{PORT}"
TIMING = ("time_black", "time_white", "duration")

# The match of the test (tests/agents_tests/matches/test_ray_cluster.py plays it locally too).
MATCH = {
    "agent_a": "mcts:sims=400",
    "agent_b": "mcts:sims=200",
    "games": 10,
    "seed": 11,
    "size": 5,
}


def match_config():
    from agents.matches.arena import MatchConfig
    from go_env.rules import Rules

    m = MATCH
    return MatchConfig(
        agent_a=m["agent_a"],
        agent_b=m["agent_b"],
        games=m["games"],
        seed=m["seed"],
        rules=Rules(size=m["size"]),
    )


def study_config(out: Path, ray: str | None, jobs: int = 2):
    """A tiny study: ``jobs`` tuning drivers on one storage, three trials of four games."""
    from study_support import tiny_study

    return tiny_study(
        out,
        trials=3,
        startup_trials=5,
        jobs=jobs,
        workers=None if ray else 1,
        verify_games=0,
        verify_workers=None,
        ray=ray,
    )


def study_record(config) -> dict:
    """COMPLETE trials (number -> params, value, games) and the others (number -> state and
    whether the trial was pruned as surplus: two drivers can both start the last trial)."""
    from optuna.trial import TrialState

    from tuning.studies.study import load_study

    trials = load_study(config).trials
    done = {
        str(t.number): [t.params, t.value, t.user_attrs.get("games")]
        for t in trials
        if t.state == TrialState.COMPLETE
    }
    others = {
        str(t.number): [t.state.name, bool(t.user_attrs.get("surplus"))]
        for t in trials
        if t.state != TrialState.COMPLETE
    }
    return {"trials": done, "others": others}


def game_record(game) -> dict:
    """A game as the results file holds it, without the timing fields."""
    import dataclasses

    out = dataclasses.asdict(game)
    for name in TIMING:
        out.pop(name)
    return json.loads(json.dumps(out))


def children(pid: int) -> list[tuple[int, str]]:
    """``(pid, command line)`` of every descendant of ``pid`` (from /proc)."""
    parents: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            parents[int(entry.name)] = int(stat.rsplit(")", 1)[1].split()[1])
    found, frontier = [], [pid]
    while frontier:
        parent = frontier.pop()
        for child, ppid in parents.items():
            if ppid == parent:
                try:
                    cmd = (Path("/proc") / str(child) / "cmdline").read_bytes()
                except OSError:
                    continue
                found.append((child, cmd.replace(b"\0", b" ").decode(errors="replace")))
                frontier.append(child)
    return found


def log_tails(folder: Path, chars: int = 1500) -> dict[str, str]:
    """The end of each log of the cluster (the nodes' consoles, GCS, raylets, drivers)."""
    tails = {}
    for path in sorted(folder.rglob("*")):
        if path.is_file() and path.suffix in (".log", ".out", ".err") and path.stat().st_size:
            if path.name.startswith(("worker-", "python-core-worker", "runtime_env")):
                continue
            text = path.read_text(errors="replace")
            tails[str(path.relative_to(folder))] = text[-chars:]
    return tails


def wait_for(condition, timeout: float, what: str) -> None:
    end = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > end:
            raise TimeoutError(f"timed out after {timeout:g} s waiting for {what}")
        time.sleep(0.1)


def port_open() -> bool:
    with socket.socket() as s:
        return s.connect_ex(("127.0.0.1", PORT)) == 0


# --- RayPool checks (functions of this module travel by value to the workers) -----------


def count_init() -> None:
    """Count the initialisations of this worker process (in its environment: these functions
    travel by value, so a module global would not be one per process)."""
    os.environ["SCENARIO_INITS"] = str(int(os.environ.get("SCENARIO_INITS", "0")) + 1)


def worker_state(x: int) -> tuple[int, int, int]:
    time.sleep(0.05)
    return os.getpid(), int(os.environ.get("SCENARIO_INITS", "0")), x * x


def fail(x: int) -> None:
    raise KeyError(f"no such thing: {x}")


def sleep_then(x: int, seconds: float) -> int:
    time.sleep(seconds)
    return x


def pool_checks(report: dict) -> None:
    from agents.matches.ray_pool import RayPool

    with RayPool(ADDRESS, initializer=count_init) as pool:
        report["pool_slots"] = pool.slots
        futures = [pool.submit(worker_state, x) for x in range(12)]
        results = [f.result(timeout=60) for f in futures]
        report["squares"] = [r[2] for r in results]
        report["init_counts"] = sorted({r[1] for r in results})
        error = pool.submit(fail, 3).exception(timeout=60)
        report["error_type"] = type(error).__name__
        report["error_text"] = str(error)
    with RayPool(ADDRESS, slots=1) as pool:
        first = pool.submit(sleep_then, 1, 1.0)
        queued = [pool.submit(sleep_then, x, 1.0) for x in range(2, 5)]
        time.sleep(0.3)
        report["cancelled"] = [f.cancel() for f in queued]
        report["first"] = first.result(timeout=60)


# --- the match -------------------------------------------------------------------------


def main(out: Path) -> int:
    subprocess.run(["ip", "link", "set", "lo", "up"], check=True)
    os.environ["RAY_USAGE_STATS_ENABLED"] = "0"
    # A throwaway cluster on the loopback of a private network namespace: no token (a token
    # file left in ~/.ray by a `ray.init()` elsewhere would otherwise switch it on for some
    # processes and not others).
    os.environ["RAY_AUTH_MODE"] = "disabled"
    temp = tempfile.mkdtemp(prefix="ray", dir="/tmp")  # sockets need a short path
    ray_bin = str(Path(sys.executable).with_name("ray"))
    common = ["--node-ip-address", "127.0.0.1", "--num-cpus", "1", "--block"]
    logs = Path(temp)
    report: dict = {"started": time.time()}
    with open(logs / "head.log", "w") as log:
        head = subprocess.Popen(
            [ray_bin, "start", "--head", "--port", str(PORT), "--include-dashboard", "false",
             "--disable-usage-stats", "--temp-dir", temp, *common],
            stdout=log, stderr=subprocess.STDOUT,
        )  # fmt: skip
    node = None
    try:
        wait_for(port_open, 60, "the head node")
        with open(logs / "node.log", "w") as log:
            node = subprocess.Popen(
                [ray_bin, "start", "--address", ADDRESS, *common],
                stdout=log, stderr=subprocess.STDOUT,
            )  # fmt: skip
        from agents.matches.ray_pool import connect

        ray = connect(ADDRESS)
        wait_for(lambda: ray.cluster_resources().get("CPU", 0) >= 2, 60, "the second node")
        report["cluster_up_s"] = time.time() - report["started"]
        pool_checks(report)
        report["pool_checks_s"] = time.time() - report["started"]

        from agents.matches.arena import iter_games

        config = match_config()
        results = Path(temp) / "results.jsonl"
        games = []
        killed = None
        start = time.time()
        for game in iter_games(config, results=results, ray=ADDRESS):
            games.append(game_record(game))
            if killed is None and len(games) >= 2:
                raylets = [(p, c) for p, c in children(node.pid) if "raylet/raylet" in c]

                def busy() -> bool:
                    return any("ray::_run_call" in c for _, c in children(node.pid))

                wait_for(busy, 30, "a game on the second node")
                os.kill(raylets[0][0], signal.SIGKILL)
                killed = {"after_games": len(games), "at_s": time.time() - start}
        report["match_s"] = time.time() - start
        report["killed"] = killed
        report["games"] = games
        lines = results.read_text().splitlines()
        report["file_indices"] = [json.loads(line)["index"] for line in lines[1:]]
        report["file_header"] = json.loads(lines[0])

        # Resume: keep the header and the first four games, play the rest again.
        results.write_text("\n".join(lines[:5]) + "\n")
        resumed = [game_record(g) for g in iter_games(config, results=results, ray=ADDRESS)]
        report["resumed"] = resumed
        again = results.read_text().splitlines()
        report["resumed_file_indices"] = [json.loads(line)["index"] for line in again[1:]]
        # A study on the cluster: two tuning drivers, trials and verification on Ray.
        from tuning.studies.study import run_study

        study = study_config(Path(temp) / "study", ADDRESS)
        start = time.time()
        run_study(study, progress=None, outputs=False)
        report["study_s"] = time.time() - start
        report["study"] = study_record(study)
        report["nodes_alive_after"] = sum(1 for n in ray.nodes() if n["Alive"])
        report["total_s"] = time.time() - report["started"]
        ray.shutdown()
    finally:
        if "total_s" not in report:  # it stopped early: keep the cluster's last words
            report["logs"] = log_tails(logs)
        out.write_text(json.dumps(report, indent=1))
        for proc in (node, head):
            if proc is not None and proc.poll() is None:
                proc.send_signal(signal.SIGTERM)
        for proc in (node, head):
            if proc is not None:
                try:
                    proc.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    proc.kill()
        shutil.rmtree(temp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1])))

"""Timing helpers shared by the benchmark scripts.

A benchmark compares *cases* (our code and a peer) measured in the same run. Each trial runs
every case once, in an order that rotates from trial to trial, so that a burst of load from
other processes on a small, shared machine hits the cases alike. A case reports how much work
it did and how long it took (setup excluded, see :class:`Stopwatch`); the script reports the
median rate over the trials with its spread (min-max), and ratios between cases as the median
of the per-trial ratios (each trial pairs the two cases under similar load).

Every sample also records the process CPU time beside the wall time: a CPU/wall ratio well
below 1 means the process waited for a core, i.e. other processes were competing for it.
"""

from __future__ import annotations

import argparse
import datetime as dt
import importlib.metadata
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = [
    "SERIES_HEADER",
    "Case",
    "Ratio",
    "Report",
    "Sample",
    "Series",
    "Stopwatch",
    "Verdict",
    "base_parser",
    "cpu_ratio_cell",
    "finish_args",
    "format_rate",
    "machine_info",
    "machine_line",
    "optional_import",
    "positive_float",
    "positive_int",
    "print_table",
    "ratio_cell",
    "run_trials",
    "series_row",
]


class Stopwatch:
    """Accumulates wall and process CPU time over the ``with`` blocks it times."""

    def __init__(self) -> None:
        self.wall = 0.0
        self.cpu = 0.0
        self._wall0 = 0.0
        self._cpu0 = 0.0

    def __enter__(self) -> Stopwatch:
        self._cpu0 = time.process_time()
        self._wall0 = time.perf_counter()
        return self

    def __exit__(self, *exc: object) -> None:
        self.wall += time.perf_counter() - self._wall0
        self.cpu += time.process_time() - self._cpu0

    def sample(self, units: float, **extra: float) -> Sample:
        """A :class:`Sample` of ``units`` of work done in the time accumulated so far."""
        return Sample(units=units, wall=self.wall, cpu=self.cpu, extra=dict(extra))


@dataclass(frozen=True)
class Sample:
    """One trial of one case: ``units`` of work in ``wall`` seconds (``cpu`` of them on a core).

    ``extra`` holds other per-trial counts (e.g. games finished, moves played).
    """

    units: float
    wall: float
    cpu: float
    extra: dict[str, float] = field(default_factory=dict)

    @property
    def rate(self) -> float:
        """Units per wall-clock second."""
        if self.wall <= 0:
            raise ValueError(f"a sample needs a positive duration, got {self.wall!r} s")
        return self.units / self.wall


@dataclass(frozen=True)
class Case:
    """A named thing to measure: ``run()`` does one trial and returns its :class:`Sample`."""

    name: str
    unit: str
    run: Callable[[], Sample]


@dataclass
class Series:
    """The samples of one case over the trials."""

    name: str
    unit: str
    samples: list[Sample] = field(default_factory=list)

    @property
    def rates(self) -> list[float]:
        """Rate of each trial, in trial order."""
        return [s.rate for s in self.samples]

    @property
    def median(self) -> float:
        """Median rate over the trials."""
        return statistics.median(self.rates)

    @property
    def low(self) -> float:
        """Lowest rate."""
        return min(self.rates)

    @property
    def high(self) -> float:
        """Highest rate."""
        return max(self.rates)

    @property
    def spread(self) -> float:
        """``(high - low) / median``: the relative range of the rates."""
        return (self.high - self.low) / self.median if self.median > 0 else float("nan")

    @property
    def cpu_rates(self) -> list[float]:
        """Rate per second of process CPU time of each trial (less sensitive to other load)."""
        return [s.units / s.cpu if s.cpu > 0 else float("nan") for s in self.samples]

    @property
    def cpu_median(self) -> float:
        """Median rate per second of process CPU time."""
        return statistics.median(self.cpu_rates)

    @property
    def cpu_share(self) -> float:
        """Median CPU/wall ratio of the trials (1.0: the process had a core all the time)."""
        return statistics.median(s.cpu / s.wall for s in self.samples)

    def units_total(self) -> float:
        """Sum of the units of work over the trials."""
        return sum(s.units for s in self.samples)

    def extra_rates(self, key: str) -> list[float]:
        """``extra[key]`` per wall-clock second, for each trial."""
        return [s.extra[key] / s.wall for s in self.samples]

    def extra_cpu_rates(self, key: str) -> list[float]:
        """``extra[key]`` per second of process CPU time, for each trial."""
        return [s.extra[key] / s.cpu if s.cpu > 0 else float("nan") for s in self.samples]

    def extra_total(self, key: str) -> float:
        """Sum of ``extra[key]`` over the trials."""
        return sum(s.extra[key] for s in self.samples)

    def ratio_to(self, other: Series) -> Ratio:
        """Per-trial ratios of this case's rate to ``other``'s (trials paired by index)."""
        if len(self.samples) != len(other.samples):
            raise ValueError(
                f"{self.name!r} has {len(self.samples)} trials, "
                f"{other.name!r} has {len(other.samples)}: cannot pair them"
            )
        return Ratio(
            self.name,
            other.name,
            [a / b for a, b in zip(self.rates, other.rates, strict=True)],
            [a / b for a, b in zip(self.cpu_rates, other.cpu_rates, strict=True)],
        )

    def to_json(self) -> dict[str, Any]:
        """The series as plain data."""
        return {
            "name": self.name,
            "unit": self.unit,
            "median": self.median,
            "min": self.low,
            "max": self.high,
            "spread": self.spread,
            "cpu_share": self.cpu_share,
            "median_per_cpu_second": self.cpu_median,
            "samples": [
                {"units": s.units, "wall_s": s.wall, "cpu_s": s.cpu, "rate": s.rate, **s.extra}
                for s in self.samples
            ],
        }


@dataclass(frozen=True)
class Ratio:
    """Ratios of the rate of ``numerator`` to the rate of ``denominator``, one per trial.

    ``values`` compare wall-clock rates; ``cpu_values`` (when known) compare the rates per
    second of process CPU time.
    """

    numerator: str
    denominator: str
    values: list[float]
    cpu_values: list[float] = field(default_factory=list)

    @property
    def cpu_median(self) -> float:
        """Median of the per-trial ratios of the CPU-time rates (NaN when unknown)."""
        return statistics.median(self.cpu_values) if self.cpu_values else float("nan")

    @property
    def median(self) -> float:
        """Median of the per-trial ratios."""
        return statistics.median(self.values)

    @property
    def low(self) -> float:
        """Lowest per-trial ratio."""
        return min(self.values)

    @property
    def high(self) -> float:
        """Highest per-trial ratio."""
        return max(self.values)


@dataclass(frozen=True)
class Verdict:
    """A target ``value >= threshold`` (``strict``: ``>``), judged on a measured median."""

    target: str
    value: float
    threshold: float
    unit: str = "x"
    strict: bool = False
    detail: str = ""

    @property
    def passed(self) -> bool:
        """Whether the target is met."""
        return self.value > self.threshold if self.strict else self.value >= self.threshold

    def line(self) -> str:
        """``PASS <target>: <value> (target >= <threshold>)``."""
        op = ">" if self.strict else ">="
        value = f"{self.value:.2f}{self.unit}" if self.unit == "x" else format_rate(self.value)
        threshold = (
            f"{self.threshold:g}{self.unit}" if self.unit == "x" else format_rate(self.threshold)
        )
        unit = "" if self.unit == "x" else f" {self.unit}"
        detail = f"; {self.detail}" if self.detail else ""
        return (
            f"{'PASS' if self.passed else 'FAIL'} {self.target}: {value}{unit} "
            f"(target {op} {threshold}{unit}{detail})"
        )

    def to_json(self) -> dict[str, Any]:
        """The verdict as plain data."""
        return {
            "target": self.target,
            "value": self.value,
            "threshold": self.threshold,
            "unit": self.unit,
            "strict": self.strict,
            "passed": self.passed,
            "line": self.line(),
        }


def run_trials(cases: Sequence[Case], trials: int, *, log: bool = True) -> dict[str, Series]:
    """Run every case once per trial, rotating the order of the cases from trial to trial.

    Args:
        cases: The cases (distinct names).
        trials: Number of trials (>= 1).
        log: Print a progress line to stderr after each case.

    Returns:
        The series of each case, by name, in the order of ``cases``.
    """
    if trials < 1:
        raise ValueError(f"trials must be >= 1, got {trials}")
    names = [c.name for c in cases]
    if len(set(names)) != len(names):
        raise ValueError(f"case names must be distinct, got {names}")
    series = {c.name: Series(c.name, c.unit) for c in cases}
    for trial in range(trials):
        shift = trial % len(cases)
        for case in [*cases[shift:], *cases[:shift]]:
            sample = case.run()
            series[case.name].samples.append(sample)
            if log:
                print(
                    f"  trial {trial + 1}/{trials} {case.name}: {format_rate(sample.rate)} "
                    f"{case.unit} (cpu/wall {sample.cpu / sample.wall:.2f})",
                    file=sys.stderr,
                    flush=True,
                )
    return series


def format_rate(value: float) -> str:
    """A rate with thousands separators and at most three significant decimals."""
    if value >= 100:
        return f"{value:,.0f}"
    if value >= 10:
        return f"{value:.1f}"
    return f"{value:.3g}"


def print_table(title: str, header: Sequence[str], rows: Sequence[Sequence[str]]) -> None:
    """Print a Markdown table (pastes into ``docs/performance.md`` as is)."""
    widths = [max(len(str(r[i])) for r in [header, *rows]) for i in range(len(header))]
    print(f"\n### {title}\n")
    print("| " + " | ".join(str(h).ljust(w) for h, w in zip(header, widths, strict=True)) + " |")
    print("|" + "|".join("-" * (w + 2) for w in widths) + "|")
    for row in rows:
        print("| " + " | ".join(str(c).ljust(w) for c, w in zip(row, widths, strict=True)) + " |")
    print(flush=True)


def series_row(series: Series, *cells: str) -> list[str]:
    """Standard table cells: name, median, min-max, spread, CPU share, per CPU-s, ``cells``."""
    return [
        series.name,
        format_rate(series.median),
        f"{format_rate(series.low)}-{format_rate(series.high)}",
        f"{series.spread:.0%}",
        f"{series.cpu_share:.2f}",
        format_rate(series.cpu_median),
        *cells,
    ]


SERIES_HEADER = ("case", "median", "min-max", "spread", "cpu/wall", "per CPU-s")
"""Header cells of :func:`series_row`: the wall-clock rate (median, range, relative range),
the median CPU/wall share and the median rate per second of process CPU time."""


def ratio_cell(ratio: Ratio) -> str:
    """``12.3x (11.0-13.1)``: the median per-trial ratio and its range."""
    return f"{ratio.median:.2f}x ({ratio.low:.2f}-{ratio.high:.2f})"


def cpu_ratio_cell(ratio: Ratio) -> str:
    """``12.3x``: the median per-trial ratio of the rates per CPU-second."""
    return f"{ratio.cpu_median:.2f}x"


def optional_import(module: str) -> Any | None:
    """The module, or ``None`` when it (or one of its dependencies) is not installed."""
    try:
        return __import__(module, fromlist=["_"])
    except ImportError:
        return None


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def _version(dist: str) -> str | None:
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return None


def _git_state() -> str | None:
    """``<commit>`` plus ``+local changes in <dirs>`` when the measured code was not committed."""
    root = Path(__file__).resolve().parents[1]
    try:
        commit = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"],
            cwd=root,
            text=True,
            capture_output=True,
            check=True,
            timeout=10,
        ).stdout.strip()
        changed = subprocess.run(
            ["git", "status", "--porcelain", "--", "go_env", "agents"],
            cwd=root,
            text=True,
            capture_output=True,
            check=True,
            timeout=10,
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return None
    return f"{commit} + local changes in go_env/agents" if changed else commit


def machine_info() -> dict[str, Any]:
    """The machine and software a measurement was taken on (with the current load average)."""
    affinity = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else None
    return {
        "date": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
        "code": _git_state(),
        "cpu_model": _cpu_model(),
        "cpu_count": os.cpu_count(),
        "usable_cpus": affinity,
        "load_average": list(os.getloadavg()) if hasattr(os, "getloadavg") else None,
        "python": platform.python_version(),
        "platform": platform.platform(),
        "packages": {
            name: _version(name)
            for name in ("numpy", "numba", "pettingzoo", "gymnasium", "open-spiel", "gomcts")
        },
    }


def machine_line(info: dict[str, Any]) -> str:
    """One line describing the machine for the printed report."""
    load = info["load_average"]
    load_text = " ".join(f"{x:.2f}" for x in load) if load else "n/a"
    return (
        f"{info['date']} | {info['cpu_model']} | {info['usable_cpus']} usable of "
        f"{info['cpu_count']} CPUs | load average {load_text} | Python {info['python']}"
    )


class Report:
    """Collects a benchmark's tables and verdicts, prints them and writes the JSON file."""

    def __init__(self, name: str, args: argparse.Namespace) -> None:
        self.name = name
        self.args = args
        self.start = machine_info()
        self.sections: list[dict[str, Any]] = []
        self.verdicts: list[Verdict] = []
        print(f"# {name}{' (quick mode: a smoke test, not a measurement)' if args.quick else ''}")
        print(f"machine at start: {machine_line(self.start)}")
        print(f"code: {self.start['code'] or 'unknown (not a git checkout)'}", flush=True)

    def add_section(
        self, title: str, series: dict[str, Series], ratios: Sequence[Ratio] = (), **extra: Any
    ) -> None:
        """Record a table's data for the JSON output."""
        self.sections.append(
            {
                "title": title,
                "series": [s.to_json() for s in series.values()],
                "ratios": [
                    {
                        "numerator": r.numerator,
                        "denominator": r.denominator,
                        "median": r.median,
                        "min": r.low,
                        "max": r.high,
                        "values": r.values,
                        "cpu_median": r.cpu_median,
                        "cpu_values": r.cpu_values,
                    }
                    for r in ratios
                ],
                **extra,
            }
        )

    def verdict(self, verdict: Verdict) -> None:
        """Record a verdict (printed by :meth:`finish`)."""
        self.verdicts.append(verdict)

    def finish(self) -> int:
        """Print the verdicts and the end-of-run load, write JSON when asked; exit status 0."""
        end = machine_info()
        print(f"machine at end: {machine_line(end)}")
        print("verdicts:" + (" (quick mode: not meaningful)" if self.args.quick else ""))
        for v in self.verdicts:
            print(v.line())
        if self.args.json:
            payload = {
                "benchmark": self.name,
                "command": [Path(sys.executable).name, *sys.argv],
                "quick": bool(self.args.quick),
                "trials": self.args.trials,
                "machine_start": self.start,
                "machine_end": end,
                "sections": self.sections,
                "verdicts": [v.to_json() for v in self.verdicts],
            }
            path = Path(self.args.json)
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(json.dumps(payload, indent=2) + "\n")
            print(f"wrote {path}")
        sys.stdout.flush()
        return 0


def base_parser(description: str, *, trials: int, quick_trials: int = 1) -> argparse.ArgumentParser:
    """The options every benchmark has: ``--quick``, ``--trials``, ``--json``.

    ``--trials`` defaults to ``trials``, or to ``quick_trials`` with ``--quick``.
    """
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument(
        "--quick",
        action="store_true",
        help="smoke-test sizes (seconds); the numbers are not meaningful",
    )
    parser.add_argument(
        "--trials",
        type=positive_int,
        default=None,
        help=f"trials per case (default {trials}; {quick_trials} with --quick)",
    )
    parser.add_argument(
        "--json",
        metavar="PATH",
        default=None,
        help="also write the results, machine and verdicts as JSON to PATH",
    )
    parser.set_defaults(_default_trials=(trials, quick_trials))
    return parser


def finish_args(args: argparse.Namespace) -> argparse.Namespace:
    """Fill in the defaults that depend on ``--quick``."""
    if args.trials is None:
        full, quick = args._default_trials
        args.trials = quick if args.quick else full
    return args


def positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {value}")
    return value


def positive_float(text: str) -> float:
    """argparse type: a number > 0."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive number, got {text!r}") from None
    if not value > 0:
        raise argparse.ArgumentTypeError(f"expected a positive number, got {value}")
    return value

"""The progress bar of ``gomcts tune``: COMPLETE trials of the study, like the arena's bar.

The bar (``tqdm``, on stderr) counts the study's COMPLETE trials out of the target and shows
the best winrate so far. It reads them from the study's storage every ``poll`` seconds in a
background thread, so it counts the trials of every worker: the job processes of
``--jobs N`` and other machines on a shared storage alike. Progress lines go through
:meth:`TrialBar.write` (``tqdm.write``), which clears the bar, prints the line on stdout and
draws the bar again, so lines and bar never share a terminal line.
"""

from __future__ import annotations

import contextlib
import sys
import threading
from typing import Any

from optuna.trial import TrialState

__all__ = ["TrialBar"]


class TrialBar:
    """A live bar of a study's COMPLETE trials.

    Args:
        config: The study (:class:`tuning.studies.study.StudyConfig`).
        poll: Seconds between two reads of the storage.
        file: Where the bar is drawn (default stderr).
    """

    def __init__(self, config: Any, *, poll: float = 2.0, file: Any = None) -> None:
        from tqdm import tqdm

        self._config = config
        self._poll = poll
        self._bar = tqdm(
            total=config.trials,
            unit="trial",
            desc=f"study {config.name}",
            file=file if file is not None else sys.stderr,
            dynamic_ncols=True,
        )
        self._study: Any = None
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="trial-bar", daemon=True)
        self._thread.start()

    def write(self, line: str) -> None:
        """Print a progress line on stdout above the bar (``tqdm.write``)."""
        self._bar.write(line, file=sys.stdout)

    def _open(self) -> Any:
        import optuna

        from tuning.studies.storage import open_storage

        if self._study is None:
            storage = open_storage(
                self._config.storage, default_dir=self._config.out_dir, heartbeat_interval=None
            )
            try:
                self._study = optuna.load_study(study_name=self._config.name, storage=storage)
            except KeyError:  # not created yet
                return None
        return self._study

    def refresh(self) -> None:
        """Read the COMPLETE trials and the best value now."""
        study = self._open()
        if study is None:
            return
        done = study.get_trials(deepcopy=False, states=(TrialState.COMPLETE,))
        if done:
            best = max(float(t.value) for t in done if t.value is not None)
            self._bar.set_postfix_str(f"best winrate {best:.3f}", refresh=False)
        self._bar.n = min(len(done), self._bar.total)
        self._bar.refresh()

    def _run(self) -> None:
        while True:
            with contextlib.suppress(Exception):  # a busy storage: the next poll tries again
                self.refresh()
            if self._stop.wait(self._poll):
                return

    def close(self) -> None:
        """Stop polling, show the final count and close the bar."""
        self._stop.set()
        self._thread.join(timeout=10)
        with contextlib.suppress(Exception):  # the bar closes even when the storage is gone
            self.refresh()
        self._bar.close()

"""Training the policy/value networks: data, supervised learning, self-play and its gate.

Inference (the model, the leaf evaluator, checkpoints, the ``net`` agent) stays in
:mod:`agents.nets`; this package makes the networks:

* :mod:`agents.nets.training.step`: the training step and reproducible generator state shared
  by both loops;
* :mod:`agents.nets.training.gnugo_games`, :mod:`agents.nets.training.data`: GNU Go games as
  SGF files and the examples learnt from them;
* :mod:`agents.nets.training.supervised`: supervised learning on those examples;
* self-play: :mod:`~agents.nets.training.selfplay` (the resumable loop of generations),
  :mod:`~agents.nets.training.selfplay_config` (its settings),
  :mod:`~agents.nets.training.generation` (K games per process sharing network calls),
  :mod:`~agents.nets.training.records` (game records and their append-only files),
  :mod:`~agents.nets.training.window` and :mod:`~agents.nets.training.replay` (training
  examples from recent generations), :mod:`~agents.nets.training.manifest` (the run's state
  and cost), :mod:`~agents.nets.training.gating` (the SPRT gate, an arena match of
  :mod:`agents.matches`), :mod:`~agents.nets.training.ladder` (Elo against fixed anchors),
  :mod:`~agents.nets.training.ladder_anchors` (extra anchors between those),
  :mod:`~agents.nets.training.report` (a run's compact record and summary),
  :mod:`~agents.nets.training.pilot` (choosing the defaults at equal compute);
* :mod:`agents.nets.training.plots`: loss, gate and Elo plots;
* :mod:`agents.nets.training.cli`: the ``gomcts train`` command.

The names of :mod:`agents.nets.training.step` (this package was that module before) are
re-exported, loaded lazily so that importing a data module does not import torch.
"""

from __future__ import annotations

from agents.lazy_exports import lazy_exports

__all__ = [
    "append_metrics",
    "evaluate_loss",
    "generator_state",
    "restart_metrics",
    "restore_generators",
    "seed_everything",
    "train_step",
]


__getattr__, __dir__ = lazy_exports(__name__, dict.fromkeys(__all__, "agents.nets.training.step"))

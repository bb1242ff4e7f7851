"""Policy/value networks (PyTorch): model presets, evaluation in the search, agent, training.

The only package of gomcts that imports torch (install the ``nets`` extra). Names are loaded
lazily, so that ``import agents.nets`` and the spec validation of ``mcts:evaluator=net:...``
do not import torch before a network is used.

Inference lives here; making networks (data, supervised learning, self-play, the ``gomcts
train`` command) is the subpackage :mod:`agents.nets.training`.

* :class:`NetConfig`, :data:`PRESETS` (:mod:`agents.nets.net_config`), :class:`PolicyValueNet`
  (:mod:`agents.nets.model`);
* :class:`NetEvaluator` (:mod:`agents.nets.evaluator`), the MCTS leaf evaluator;
* :class:`NetAgentConfig`, :class:`NetAgent` (:mod:`agents.nets.agent`), the ``net`` agent;
* checkpoints (:mod:`agents.nets.checkpoint`), input features (:mod:`agents.nets.features`),
  board symmetries (:mod:`agents.nets.symmetry`).

See ``docs/nets.md``.
"""

from __future__ import annotations

from agents.lazy_exports import lazy_exports

__all__ = [
    "PRESETS",
    "Checkpoint",
    "NetAgent",
    "NetAgentConfig",
    "NetConfig",
    "NetEvaluator",
    "NetEvaluatorConfig",
    "PolicyValueNet",
    "load_checkpoint",
    "load_net",
    "save_checkpoint",
    "shipped_model_path",
]

_WHERE = {
    "PRESETS": "agents.nets.net_config",
    "NetConfig": "agents.nets.net_config",
    "PolicyValueNet": "agents.nets.model",
    "NetEvaluator": "agents.nets.evaluator",
    "NetEvaluatorConfig": "agents.nets.evaluator_spec",
    "NetAgent": "agents.nets.agent",
    "NetAgentConfig": "agents.nets.agent",
    "Checkpoint": "agents.nets.checkpoint",
    "load_checkpoint": "agents.nets.checkpoint",
    "load_net": "agents.nets.checkpoint",
    "save_checkpoint": "agents.nets.checkpoint",
    "shipped_model_path": "agents.shipped_networks",
}


__getattr__, __dir__ = lazy_exports(__name__, _WHERE)

"""Backup strategies from spec strings (``"softmax:g=[-6,-6,-5]"``) and back."""

from __future__ import annotations

from typing import Any

from agents.mcts.backups.base import BackupStrategy, check_backup_class
from agents.spec import config_from_params, format_spec, parse_spec

__all__ = ["backup_spec", "make_backup"]


def make_backup(spec: str | BackupStrategy) -> Any:
    """The backup strategy named by ``spec``; a strategy instance passes through unchanged.

    Args:
        spec: ``name`` or ``name:key=value,...`` with ``name`` an entry point of the group
            ``gomcts.backups`` (``mean``, ``softmax``, ``solver:inner=softmax``...).

    Raises:
        agents.spec.SpecError: For a malformed spec or a bad parameter (naming the key and
            what is allowed).
        agents.plugins.PluginError: For an unknown or broken backup plugin.
    """
    from agents.mcts.backups import BACKUPS

    if not isinstance(spec, str):
        check_backup_class(type(spec))
        return spec
    name, params = parse_spec(spec)
    return config_from_params(BACKUPS.get(name), params, what=f"backup {name!r}")


def backup_spec(strategy: Any) -> str:
    """The spec string of a strategy: its registered name plus its non-default parameters."""
    from agents.mcts.backups import BACKUPS

    cls = type(strategy)
    target = f"{cls.__module__}:{cls.__qualname__}"
    for info in BACKUPS.infos():
        if info.value == target:
            return format_spec(info.name, strategy)
    raise ValueError(
        f"{cls.__qualname__} is not registered in the group 'gomcts.backups'; "
        "register it under an entry point to give it a spec"
    )

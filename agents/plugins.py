"""Entry-point plugin registries: discovery, lazy loading and isolation of broken plugins.

One mechanism serves every pluggable kind of object in gomcts (agents in the group
``gomcts.agents``, MCTS backup strategies in ``gomcts.backups``). Our own built-ins are declared
in our ``pyproject.toml`` under the same groups, so a researcher's ``pip install`` adds entries
through the very path our built-ins use.

Properties:

* Listing reads distribution metadata only; no plugin code is imported.
* An entry is imported the first time it is asked for by name (lazy loading).
* An unknown name raises :class:`PluginNotFoundError` with "did you mean" suggestions.
* A plugin that fails to import, or whose object fails the registry's check, raises
  :class:`PluginLoadError` naming its distribution when asked for, and never affects the others.
* The same name in two distributions is refused (:class:`DuplicatePluginError` names both).
"""

from __future__ import annotations

import difflib
from collections.abc import Callable
from dataclasses import dataclass
from importlib.metadata import EntryPoint, entry_points
from typing import Any, Generic, TypeVar

__all__ = [
    "DuplicatePluginError",
    "PluginError",
    "PluginInfo",
    "PluginLoadError",
    "PluginNotFoundError",
    "Registry",
]

T = TypeVar("T")


class PluginError(Exception):
    """Root of the plugin errors."""


class PluginNotFoundError(PluginError, KeyError):
    """No plugin of that name is installed."""

    def __str__(self) -> str:  # KeyError would quote the message
        return str(self.args[0])


class PluginLoadError(PluginError):
    """A plugin is installed but could not be imported or is not a valid plugin."""


class DuplicatePluginError(PluginError):
    """Two distributions register the same name in one group."""


@dataclass(frozen=True)
class PluginInfo:
    """What the metadata says of one plugin, read without importing it.

    Attributes:
        name: The name users type (``mcts``, ``softmax``...).
        value: The entry point's target, ``module:attribute``.
        distribution: The distribution that registers it, with its version.
    """

    name: str
    value: str
    distribution: str


def _distribution(ep: EntryPoint) -> str:
    dist = getattr(ep, "dist", None)
    if dist is None:
        return "<unknown distribution>"
    return f"{dist.metadata['Name']} {dist.version}"


class Registry(Generic[T]):
    """The plugins of one entry-point group.

    Args:
        group: Entry-point group name, e.g. ``"gomcts.backups"``.
        kind: What a plugin is, for messages ("agent", "backup strategy").
        check: Validates a loaded object; returns it (possibly wrapped) or raises ``TypeError``
            / ``ValueError`` with the reason it is not a valid plugin.
    """

    def __init__(self, group: str, kind: str, check: Callable[[Any], T]) -> None:
        self.group = group
        self.kind = kind
        self._check = check
        self._entries: dict[str, list[EntryPoint]] | None = None
        self._loaded: dict[str, T] = {}
        self._extra: dict[str, T] = {}

    # ---------------------------------------------------------------- discovery
    def _scan(self) -> dict[str, list[EntryPoint]]:
        if self._entries is None:
            found: dict[str, list[EntryPoint]] = {}
            seen: set[tuple[str, str, str]] = set()
            for ep in entry_points(group=self.group):
                key = (ep.name, ep.value, _distribution(ep))
                if key in seen:  # the same distribution seen twice on sys.path
                    continue
                seen.add(key)
                found.setdefault(ep.name, []).append(ep)
            self._entries = found
        return self._entries

    def refresh(self) -> None:
        """Forget what was discovered (after installing a distribution in this process)."""
        self._entries = None
        self._loaded.clear()

    def register(self, name: str, obj: Any) -> None:
        """Register an object in this process only (for tests and notebooks).

        Raises:
            DuplicatePluginError: When an installed plugin already has this name.
        """
        if name in self._scan() or name in self._extra:
            raise DuplicatePluginError(f"{self.kind} {name!r} is already registered")
        self._extra[name] = self._check(obj)

    def unregister(self, name: str) -> None:
        """Remove an object registered with :meth:`register`."""
        self._extra.pop(name, None)

    def names(self) -> list[str]:
        """Sorted names of the installed plugins (no plugin code is imported)."""
        return sorted({*self._scan(), *self._extra})

    def infos(self) -> list[PluginInfo]:
        """Metadata of every installed plugin, duplicates included (nothing is imported)."""
        out = [
            PluginInfo(name, ep.value, _distribution(ep))
            for name, eps in self._scan().items()
            for ep in eps
        ]
        out += [
            PluginInfo(name, repr(obj), "<registered in this process>")
            for name, obj in self._extra.items()
        ]
        return sorted(out, key=lambda info: (info.name, info.distribution))

    # ------------------------------------------------------------------ loading
    def get(self, name: str) -> T:
        """The plugin registered under ``name``, imported on first use.

        Raises:
            PluginNotFoundError: No such name; the message suggests close names.
            DuplicatePluginError: Two distributions register the name.
            PluginLoadError: The plugin failed to import or is not valid.
        """
        if name in self._extra:
            return self._extra[name]
        if name in self._loaded:
            return self._loaded[name]
        eps = self._scan().get(name)
        if not eps:
            raise PluginNotFoundError(self._not_found(name))
        if len(eps) > 1:
            where = " and ".join(f"{_distribution(ep)} ({ep.value})" for ep in eps)
            raise DuplicatePluginError(
                f"{self.kind} {name!r} is registered twice in group {self.group!r}: by {where}; "
                "uninstall one of them"
            )
        ep = eps[0]
        try:
            obj = ep.load()
        except Exception as exc:  # a broken plugin must not break anything else
            raise PluginLoadError(
                f"{self.kind} {name!r} from {_distribution(ep)} ({ep.value}) failed to import: "
                f"{type(exc).__name__}: {exc}"
            ) from exc
        try:
            checked = self._check(obj)
        except (TypeError, ValueError) as exc:
            raise PluginLoadError(
                f"{self.kind} {name!r} from {_distribution(ep)} ({ep.value}) is not a valid "
                f"{self.kind}: {exc}"
            ) from exc
        self._loaded[name] = checked
        return checked

    def _not_found(self, name: str) -> str:
        names = self.names()
        close = difflib.get_close_matches(name, names, n=3, cutoff=0.5)
        hint = f" Did you mean {' or '.join(repr(c) for c in close)}?" if close else ""
        listed = ", ".join(names) if names else "none"
        return f"unknown {self.kind} {name!r}.{hint} Installed: {listed}."

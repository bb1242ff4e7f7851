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

A plugin is a frozen config dataclass (its parameters) registered by its class. Two operations
turn specs into plugins and back: :meth:`Registry.build` parses a spec such as
``"softmax:g=[-6,-5]"`` once into an instance, and :meth:`Registry.spec_of` gives the spec of an
instance back, so ``build(spec_of(x)) == x``. A config field that holds another plugin (the
backup of the ``mcts`` agent, the wrapped backup of ``solver``) is declared with
:func:`plugin_field`: a spec gives it as a string, the config holds the built instance
(:func:`resolve_plugin_fields`), and :func:`agents.spec.format_spec` writes its spec back.
What a plugin can do (for example ``proves_values`` of a backup) is a class attribute of the
plugin, read with :func:`capability`, never guessed from its name.
"""

from __future__ import annotations

import dataclasses
import difflib
from collections.abc import Callable
from dataclasses import dataclass
from importlib.metadata import EntryPoint, entry_points
from typing import Any, Generic, TypeVar

from agents.spec import PLUGIN_FIELD, config_from_params, format_spec, parse_spec

__all__ = [
    "DuplicatePluginError",
    "PluginError",
    "PluginInfo",
    "PluginLoadError",
    "PluginNotFoundError",
    "Registry",
    "capability",
    "plugin_field",
    "resolve_plugin_fields",
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
        label: Short name of a plugin in messages about its parameters ("backup 'mean' has no
            parameter 'a'"); default ``kind``.
    """

    def __init__(
        self, group: str, kind: str, check: Callable[[Any], T], *, label: str | None = None
    ) -> None:
        self.group = group
        self.kind = kind
        self.label = label or kind
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

    # ------------------------------------------------------------ specs <-> objects
    def build(self, spec: str | Any) -> Any:
        """The plugin instance a spec describes, parsed once; an instance passes through.

        ``spec`` is ``name`` or ``name:key=value,...`` with ``name`` a plugin of this group;
        the values are converted by the types of the plugin class's fields
        (:func:`agents.spec.config_from_params`), and fields declared with
        :func:`plugin_field` are built in turn by their own registry.

        Raises:
            agents.spec.SpecError: For a malformed spec or a bad parameter (naming the key and
                listing what is allowed).
            PluginError: For an unknown or broken plugin.
            TypeError: For an object that is not an instance of a plugin class of this kind.
        """
        if not isinstance(spec, str):
            self._check(type(spec))
            return spec
        name, params = parse_spec(spec)
        return config_from_params(self._class(name), params, what=f"{self.label} {name!r}")

    def _class(self, name: str) -> type:
        cls = self.get(name)
        if not isinstance(cls, type):
            raise TypeError(f"{self.kind} {name!r} is {cls!r}, not a config class to build")
        return cls

    def name_of(self, cls: type) -> str | None:
        """The name ``cls`` is registered under, ``None`` when it is not (nothing is imported)."""
        for name, obj in self._extra.items():
            if obj is cls:
                return name
        target = f"{cls.__module__}:{cls.__qualname__}"
        for name, eps in self._scan().items():
            if any(f"{ep.module}:{ep.attr}" == target for ep in eps):
                return name
        for name, obj in self._loaded.items():
            if obj is cls:
                return name
        return None

    def spec_of(self, obj: Any) -> str:
        """The spec of a plugin instance: its registered name and non-default parameters.

        ``build(spec_of(obj))`` is equal to ``obj``.

        Raises:
            ValueError: When the object's class is not registered in this group.
        """
        name = self.name_of(type(obj))
        if name is None:
            cls = type(obj)
            raise ValueError(
                f"{cls.__qualname__} is not registered in the group {self.group!r}; "
                "register it under an entry point to give it a spec"
            )
        return format_spec(name, obj)


def plugin_field(registry: Registry[Any], default: str) -> Any:
    """A dataclass field holding a plugin of ``registry``, built from the spec ``default``.

    A spec gives the field as a string (``backup=softmax``); the dataclass's
    ``__post_init__`` calls :func:`resolve_plugin_fields`, which builds it once, so the config
    holds the instance. The default is built on each construction that does not give one.
    """
    return dataclasses.field(
        default_factory=lambda: registry.build(default),
        metadata={PLUGIN_FIELD: registry, "default_spec": default},
    )


def resolve_plugin_fields(config: Any) -> None:
    """Build every :func:`plugin_field` of a frozen ``config`` given as a spec string.

    Call it from ``__post_init__``. An instance of a registered class is kept as it is.

    Raises:
        ValueError: For an empty spec or an object of the wrong kind (naming the field).
        agents.spec.SpecError, PluginError: From :meth:`Registry.build`.
    """
    for field in dataclasses.fields(config):
        registry = field.metadata.get(PLUGIN_FIELD)
        if registry is None:
            continue
        value = getattr(config, field.name)
        if isinstance(value, str) and not value.strip():
            raise ValueError(
                f"{field.name} must be a {registry.label} spec string such as "
                f"{field.metadata['default_spec']!r}, got {value!r}"
            )
        try:
            built = registry.build(value)
        except TypeError as exc:
            raise ValueError(
                f"{field.name} must be a {registry.label} spec string such as "
                f"{field.metadata['default_spec']!r} or a {registry.kind} object, "
                f"got {value!r}: {exc}"
            ) from None
        object.__setattr__(config, field.name, built)


def capability(plugin: Any, name: str, default: bool = False) -> bool:
    """Whether a plugin (instance or class) declares the capability ``name``.

    Capabilities are class attributes of the plugin (``proves_values = True`` on MCTS-Solver's
    backup); a plugin that does not mention one lacks it.
    """
    return bool(getattr(plugin, name, default))

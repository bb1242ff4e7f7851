"""Spec strings: ``name:key=value,key=value`` turned into validated dataclass configs.

A spec names a plugin and sets fields of its frozen config dataclass, e.g.
``mcts:sims=800,c=1.0,backup=softmax``. A config may accept its first value without a key
(``monotone:params.json``) by naming the field in ``__spec_positional__``. Values are
converted with the field's type annotation (int, float, bool, str, enums, ``Literal``,
optional and tuple fields). A value that itself contains commas is quoted or
parenthesised: ``backup="coulom:a=2,b=16"``, ``cmd='gnugo --mode gtp'``.

A field that holds another plugin (marked with :data:`PLUGIN_FIELD` in its metadata, see
:func:`agents.plugins.plugin_field`) takes its value as a nested spec string, which the
config's registry builds; :func:`format_spec` writes such a field with the registry's
``spec_of``.
"""

from __future__ import annotations

import dataclasses
import enum
import types
import typing
from typing import Any, Literal, Union

__all__ = [
    "PLUGIN_FIELD",
    "POSITIONAL",
    "SpecError",
    "config_from_params",
    "format_spec",
    "parse_spec",
]

PLUGIN_FIELD = "gomcts.plugin"
"""Metadata key of a dataclass field holding a plugin; its value is the plugin's registry."""

_SPECIAL = ",:=\"' "

POSITIONAL = ""
"""Key of a value given without ``key=`` as the first part of a spec (``monotone:FILE``).

It sets the field that the config class names in its ``__spec_positional__`` attribute.
"""

_OPEN = {"(": ")", "[": "]", "{": "}"}


class SpecError(ValueError):
    """A spec string or a spec value is malformed or not allowed."""


def _split_top_level(text: str, sep: str) -> list[str]:
    """Split on ``sep`` outside quotes and brackets."""
    parts: list[str] = []
    depth: list[str] = []
    quote = ""
    current: list[str] = []
    for ch in text:
        if quote:
            if ch == quote:
                quote = ""
        elif ch in "\"'":
            quote = ch
        elif ch in _OPEN:
            depth.append(_OPEN[ch])
        elif depth and ch == depth[-1]:
            depth.pop()
        elif ch == sep and not depth:
            parts.append("".join(current))
            current = []
            continue
        current.append(ch)
    if quote or depth:
        raise SpecError(f"unbalanced {'quote' if quote else 'bracket'} in {text!r}")
    parts.append("".join(current))
    return parts


def _unquote(value: str) -> str:
    value = value.strip()
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
        return value[1:-1]
    if len(value) >= 2 and value[0] == "(" and value[-1] == ")":
        return value[1:-1]
    return value


def parse_spec(spec: str) -> tuple[str, dict[str, str]]:
    """Split a spec into its plugin name and raw ``key -> value`` strings.

    Raises:
        SpecError: For an empty name, a part without ``=``, or a key given twice.
    """
    text = spec.strip()
    name, _, rest = text.partition(":")
    name = name.strip()
    if not name:
        raise SpecError(f"spec {spec!r} has no name; expected 'name' or 'name:key=value,...'")
    params: dict[str, str] = {}
    if rest.strip():
        for index, part in enumerate(_split_top_level(rest, ",")):
            key, eq, value = part.partition("=")
            key = key.strip()
            if not eq and index == 0 and key:  # a positional value: "monotone:params.json"
                params[POSITIONAL] = _unquote(key)
                continue
            if not eq or not key:
                raise SpecError(f"in spec {spec!r}: {part.strip()!r} is not of the form key=value")
            if key in params:
                raise SpecError(f"in spec {spec!r}: key {key!r} is given twice")
            params[key] = _unquote(value)
    return name, params


def _default(field: dataclasses.Field[Any]) -> Any:
    if field.default is not dataclasses.MISSING:
        return field.default
    if field.default_factory is not dataclasses.MISSING:
        return field.default_factory()
    return dataclasses.MISSING


def _value_text(field: dataclasses.Field[Any], value: Any) -> str:
    registry = field.metadata.get(PLUGIN_FIELD)
    if registry is not None and not isinstance(value, str):
        return str(registry.spec_of(value))
    if isinstance(value, enum.Enum):
        return str(value.value)
    if isinstance(value, tuple):
        return "[" + ",".join(str(v) for v in value) + "]"
    return str(value)


def _needs_quotes(value: Any, text: str) -> bool:
    if isinstance(value, tuple):  # brackets protect the commas (see _split_top_level)
        return any(ch in str(v) for v in value for ch in _SPECIAL + "[]()")
    return any(ch in text for ch in _SPECIAL)


def format_spec(name: str, config: Any) -> str:
    """The spec string of a config: only fields that differ from their defaults.

    A field named by the class's ``__spec_positional__`` comes first without its key when its
    text allows it. Fields named in an instance's ``__spec_implied__`` (values that follow from
    another field, such as the heights read from a parameter file) are left out.
    """
    implied = getattr(config, "__spec_implied__", ())
    positional = getattr(type(config), "__spec_positional__", None)
    parts: list[str] = []
    for field in dataclasses.fields(config):
        if not field.init or field.name in implied:
            continue
        value = getattr(config, field.name)
        default = _default(field)
        text = _value_text(field, value)
        if default is not dataclasses.MISSING and (
            value == default or text == _value_text(field, default)
        ):
            continue
        quote = _needs_quotes(value, text)
        if field.name == positional and not parts and not any(ch in text for ch in _SPECIAL):
            parts.append(text)
            continue
        if quote:
            text = '"' + text.replace('"', "'") + '"'
        parts.append(f"{field.name}={text}")
    return name + (":" + ",".join(parts) if parts else "")


def _type_name(tp: Any) -> str:
    if isinstance(tp, type):
        return tp.__name__
    return str(tp).replace("typing.", "")


def _convert(text: str, tp: Any, where: str) -> Any:
    """Convert the string ``text`` to the annotated type ``tp``."""
    origin = typing.get_origin(tp)
    args = typing.get_args(tp)
    if origin in (Union, types.UnionType):
        if type(None) in args and text.strip().lower() in ("none", "null", ""):
            return None
        errors = []
        for arg in args:
            if arg is type(None):
                continue
            try:
                return _convert(text, arg, where)
            except SpecError as exc:
                errors.append(str(exc))
        raise SpecError(f"{where}: {text!r} is not a valid {_type_name(tp)}")
    if origin is Literal:
        for arg in args:
            if str(arg) == text:
                return arg
        raise SpecError(f"{where}: {text!r} is not allowed; allowed: {', '.join(map(str, args))}")
    if origin is tuple:
        body = text.strip()
        if body[:1] in "[(" and body[-1:] in "])":
            body = body[1:-1]
        items = [s for s in (x.strip() for x in _split_top_level(body, ",")) if s] if body else []
        item_type = args[0] if args else str
        return tuple(_convert(item, item_type, where) for item in items)
    if tp is bool:
        low = text.strip().lower()
        if low in ("1", "true", "yes", "on"):
            return True
        if low in ("0", "false", "no", "off"):
            return False
        raise SpecError(f"{where}: {text!r} is not a boolean; use true/false")
    if tp is int:
        try:
            return int(text)
        except ValueError:
            raise SpecError(f"{where}: {text!r} is not an integer") from None
    if tp is float:
        try:
            return float(text)
        except ValueError:
            raise SpecError(f"{where}: {text!r} is not a number") from None
    if isinstance(tp, type) and issubclass(tp, enum.Enum):
        for member in tp:
            if text in (member.name, member.name.lower(), str(member.value)):
                return member
        allowed = ", ".join(str(m.value) for m in tp)
        raise SpecError(f"{where}: {text!r} is not allowed; allowed: {allowed}")
    if tp is str or tp is Any:
        return text
    raise SpecError(f"{where}: fields of type {_type_name(tp)} cannot be set from a spec")


def config_from_params(config_cls: type, params: dict[str, str], *, what: str) -> Any:
    """Build ``config_cls`` from raw spec values, converting each with its field's type.

    Args:
        config_cls: A dataclass type.
        params: Raw values from :func:`parse_spec`.
        what: How to name the owner in messages, e.g. ``"agent 'mcts'"``.

    Raises:
        SpecError: For an unknown key (the allowed keys are listed), a value of the wrong type,
            or a value the config's own validation refuses.
    """
    hints = typing.get_type_hints(config_cls)
    fields = {f.name: f for f in dataclasses.fields(config_cls) if f.init}
    kwargs = {}
    if POSITIONAL in params:
        target = getattr(config_cls, "__spec_positional__", None)
        if target is None:
            raise SpecError(
                f"{what} takes no positional value ({params[POSITIONAL]!r}); write key=value"
            )
        if target in params:
            raise SpecError(f"{what}: {target!r} is given twice (positionally and by name)")
        params = {target: params[POSITIONAL], **{k: v for k, v in params.items() if k}}
    for key, raw in params.items():
        if key not in fields:
            allowed = ", ".join(sorted(fields)) or "none"
            raise SpecError(f"{what} has no parameter {key!r}; allowed: {allowed}")
        if PLUGIN_FIELD in fields[key].metadata:
            kwargs[key] = raw  # a nested spec, built by the config (resolve_plugin_fields)
            continue
        kwargs[key] = _convert(raw, hints[key], f"{what}, parameter {key!r}")
    try:
        return config_cls(**kwargs)
    except (TypeError, ValueError) as exc:
        raise SpecError(f"{what}: {exc}") from exc

"""Backup parameter files: the JSON a tuning study writes and a strategy loads.

A file names the strategy it is for and gives values of its parameters::

    {
      "format": "gomcts-backup-params",
      "version": 1,
      "backup": "softmax",
      "params": {"g": [-7.1, -6.3, -6.0, -5.2, -4.9, -4.4]},
      "meta": {"n_simulations": 5000, "board_size": 9, "study": "softmax-9x9", "trial": 57}
    }

``params`` holds parameters of the named strategy (for Monotone and Softmax, the knot heights
``g``); ``meta`` is free-form provenance (budget, board, study, trial, objective...) that loading
ignores. Strategies that take a ``file`` parameter (``monotone:params.json``,
``softmax:file=params.json``) read their values with :func:`apply_params_file`.
"""

from __future__ import annotations

import dataclasses
import json
import math
import typing
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from go_env.validation import check_float, check_int

__all__ = [
    "FORMAT",
    "VERSION",
    "BackupParams",
    "ParamsFileError",
    "apply_params_file",
    "read_params",
    "write_params",
]

FORMAT = "gomcts-backup-params"
VERSION = 1


class ParamsFileError(ValueError):
    """A parameter file is unreadable, malformed or meant for another strategy."""


@dataclass(frozen=True)
class BackupParams:
    """The content of a parameter file.

    Attributes:
        backup: Entry-point name of the strategy (``"monotone"``, ``"softmax"``...).
        params: Parameter values, JSON types (knot heights as a list of numbers).
        meta: Free-form provenance.
    """

    backup: str
    params: dict[str, Any]
    meta: dict[str, Any] = field(default_factory=dict)


def _jsonable(value: Any) -> Any:
    if isinstance(value, tuple):
        return [_jsonable(v) for v in value]
    if isinstance(value, float) and math.isinf(value):
        return "-inf" if value < 0 else "inf"
    return value


def write_params(
    path: str | Path,
    backup: str,
    params: Mapping[str, Any],
    *,
    meta: Mapping[str, Any] | None = None,
) -> Path:
    """Write a parameter file (creating its directory); return its path.

    Args:
        path: Where to write.
        backup: Entry-point name of the strategy the values are for.
        params: Parameter values; tuples become lists, infinities the strings ``"-inf"`` /
            ``"inf"`` (JSON has no infinities).
        meta: Provenance to keep beside the values.
    """
    out = Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    doc = {
        "format": FORMAT,
        "version": VERSION,
        "backup": backup,
        "params": {k: _jsonable(v) for k, v in params.items()},
        "meta": dict(meta or {}),
    }
    out.write_text(json.dumps(doc, indent=2, allow_nan=False) + "\n", encoding="utf-8")
    return out


def read_params(path: str | Path, *, backup: str | None = None) -> BackupParams:
    """Read and check a parameter file.

    Args:
        path: The file.
        backup: When given, the strategy the file must be for.

    Raises:
        ParamsFileError: The file is missing, not JSON, not in this format, or for another
            strategy.
    """
    where = Path(path)
    try:
        doc = json.loads(where.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ParamsFileError(f"cannot read backup parameter file {str(where)!r}: {exc}") from exc
    except RecursionError:
        raise ParamsFileError(
            f"backup parameter file {str(where)!r} is nested too deeply to be a parameter file "
            "(a parameter file is an object holding numbers and lists of numbers)"
        ) from None
    except ValueError as exc:  # JSONDecodeError, or an integer of more than 4300 digits
        raise ParamsFileError(f"backup parameter file {str(where)!r} is not JSON: {exc}") from exc
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        raise ParamsFileError(
            f'{str(where)!r} is not a backup parameter file (expected "format": "{FORMAT}")'
        )
    if doc.get("version") != VERSION:
        raise ParamsFileError(
            f"{str(where)!r} has format version {doc.get('version')!r}; "
            f"this gomcts reads version {VERSION}"
        )
    name = doc.get("backup")
    params = doc.get("params")
    meta = doc.get("meta", {})
    if not isinstance(name, str) or not isinstance(params, dict) or not isinstance(meta, dict):
        raise ParamsFileError(
            f'{str(where)!r} needs "backup" (a name), "params" and optionally "meta" (objects)'
        )
    if backup is not None and name != backup:
        raise ParamsFileError(
            f"{str(where)!r} holds parameters for backup {name!r}, not {backup!r}"
        )
    return BackupParams(name, params, meta)


def _number(value: Any, where: str) -> float:
    if isinstance(value, str) and value in ("-inf", "inf"):
        return float(value)
    try:
        return check_float(where, value, finite=False)
    except ValueError:
        if isinstance(value, int) and not isinstance(value, bool):  # beyond the floats
            raise ParamsFileError(
                f"{where}: {value} is too large; a number must lie within a float's range (1.8e308)"
            ) from None
        raise ParamsFileError(f"{where}: {value!r} is not a number") from None


def _from_json(value: Any, hint: Any, where: str) -> Any:
    """Convert a JSON value to the type of a dataclass field."""
    origin = typing.get_origin(hint)
    if origin is tuple:
        if not isinstance(value, list):
            raise ParamsFileError(f"{where}: expected a list, got {value!r}")
        return tuple(_number(v, where) for v in value)
    if origin is Literal:
        if value not in typing.get_args(hint):
            allowed = ", ".join(map(repr, typing.get_args(hint)))
            raise ParamsFileError(f"{where}: {value!r} is not allowed; allowed: {allowed}")
        return value
    if hint is bool:
        if not isinstance(value, bool):
            raise ParamsFileError(f"{where}: expected true or false, got {value!r}")
        return value
    if hint is float:
        return _number(value, where)
    if hint is int:
        try:
            return check_int(where, value)
        except ValueError:
            raise ParamsFileError(f"{where}: expected an integer, got {value!r}") from None
    return value


def apply_params_file(strategy: Any, backup: str, path: str | Path) -> None:
    """Set a frozen strategy's fields from a parameter file (call from ``__post_init__``).

    A value given explicitly that differs both from its default and from the file is an
    error, so ``monotone:params.json`` never silently mixes two sources. The fields set from the
    file are recorded in ``__spec_implied__``: the strategy's spec names the file, not them
    (``monotone:params.json`` stays ``monotone:params.json``).

    Raises:
        ParamsFileError: For a bad file, a parameter the strategy does not have, or a conflict.
    """
    loaded = read_params(path, backup=backup)
    cls = type(strategy)
    hints = typing.get_type_hints(cls)
    fields = {f.name: f for f in dataclasses.fields(cls) if f.init and f.name != "file"}
    for key, raw in loaded.params.items():
        if key not in fields:
            allowed = ", ".join(sorted(fields))
            raise ParamsFileError(
                f"{str(path)!r}: backup {backup!r} has no parameter {key!r}; allowed: {allowed}"
            )
        value = _from_json(raw, hints[key], f"{str(path)!r}, parameter {key!r}")
        current = getattr(strategy, key)
        default = fields[key].default
        if current != default and current != value:
            raise ParamsFileError(
                f"{backup}: parameter {key!r} is given as {current!r} and as "
                f"{value!r} by the file {str(path)!r}; give one of them"
            )
        object.__setattr__(strategy, key, value)
    object.__setattr__(strategy, "__spec_implied__", frozenset(loaded.params))

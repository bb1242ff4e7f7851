"""Command-line options generated from a frozen dataclass's fields.

A field that a command exposes carries its option in its metadata (:func:`option`): the help
text, the type, the choices, the flag when it is not ``--field-name``, and the option group.
:func:`add_options` adds those options to a parser in field order, group by group, and
:func:`option_values` reads them back as the dataclass's keyword arguments, so that a setting
is described once, beside its field, for the Python API and the command alike.

Fields whose option is not one value for one field (a search space built from several
options, rules, a ``--no-prune`` flag) are left to the command's own code.
"""

from __future__ import annotations

import argparse
import dataclasses
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

__all__ = ["Option", "add_options", "bounded_int", "option", "option_values", "options_of"]

_UNSET: Any = object()


@dataclass(frozen=True)
class Option:
    """How a dataclass field appears on the command line.

    Attributes:
        help: The option's help text (it says the default where the default needs words).
        group: Title of the argument group the option belongs to.
        type: Converts the command-line string (``None``: kept as a string).
        choices: The allowed values (``--help`` lists them).
        flag: The option's flag; default ``--`` and the field name with dashes.
        metavar: The value's name in ``--help``.
        nargs: As argparse's (``"?"`` with ``const``: the flag alone gives ``const``).
        const: The value of the flag given alone.
        default: The option's default when it is not the field's (e.g. ``None`` for "not
            given", resolved by the command).
    """

    help: str
    group: str
    type: Callable[[str], Any] | None = None
    choices: Sequence[Any] | None = None
    flag: str | None = None
    metavar: str | None = None
    nargs: str | None = None
    const: Any = None
    default: Any = _UNSET


def bounded_int(low: int, high: int, what: str) -> Callable[[str], int]:
    """An option type: an int from ``low`` to ``high``; the error says what is allowed."""

    def parse(text: str) -> int:
        try:
            value: int | None = int(text)
        except ValueError:
            value = None
        if value is None or not low <= value <= high:
            raise argparse.ArgumentTypeError(
                f"must be an int from {low} to {high} ({what}), got {text!r}"
            )
        return value

    return parse


def option(help: str, *, group: str, **settings: Any) -> dict[str, Option]:
    """Field metadata that exposes the field as an option (see :class:`Option`)."""
    return {"option": Option(help=help, group=group, **settings)}


def options_of(cls: type) -> Iterator[tuple[dataclasses.Field[Any], Option]]:
    """The fields of dataclass ``cls`` that have an option, in field order."""
    for f in dataclasses.fields(cls):
        opt = f.metadata.get("option")
        if isinstance(opt, Option):
            yield f, opt


def _default(f: dataclasses.Field[Any], opt: Option) -> Any:
    if opt.default is not _UNSET:
        return opt.default
    if f.default is not dataclasses.MISSING:
        return f.default
    if f.default_factory is not dataclasses.MISSING:
        return f.default_factory()
    return None


def add_options(
    parser: argparse.ArgumentParser,
    cls: type,
    groups: Mapping[str, argparse._ArgumentGroup] | None = None,
    *,
    only: str | None = None,
) -> dict[str, argparse._ArgumentGroup]:
    """Add the options of ``cls``'s fields to ``parser``.

    Args:
        parser: The parser.
        cls: A dataclass whose fields carry :func:`option` metadata.
        groups: Argument groups already made, by title (others are made and returned).
        only: Add only the options of this group.

    Returns:
        The argument groups by title (those given and those made).
    """
    made = dict(groups or {})
    for f, opt in options_of(cls):
        if only is not None and opt.group != only:
            continue
        group = made.get(opt.group)
        if group is None:
            group = made[opt.group] = parser.add_argument_group(opt.group)
        kwargs: dict[str, Any] = {"default": _default(f, opt), "help": opt.help, "dest": f.name}
        for name in ("type", "choices", "metavar", "nargs"):
            value = getattr(opt, name)
            if value is not None:
                kwargs[name] = value
        if opt.nargs == "?":
            kwargs["const"] = opt.const
        group.add_argument(opt.flag or "--" + f.name.replace("_", "-"), **kwargs)
    return made


def option_values(args: argparse.Namespace, cls: type) -> dict[str, Any]:
    """The values of ``cls``'s options in ``args``, by field name."""
    return {f.name: getattr(args, f.name) for f, _ in options_of(cls)}

"""SGF (FF[4]) game records: a tolerant reader and a plain writer.

Only the main line of the first game tree is read (variations are parsed, then ignored).
Points are action indices (``row * N + col``, ``N * N`` = pass), as everywhere in :mod:`go_env`.
The rules for what is read, what is written and what is tolerated are in ``docs/sgf.md``.
"""

from __future__ import annotations

import codecs
import functools
import gc
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from os import PathLike
from pathlib import Path

import numpy as np

from go_env.coords import from_sgf, to_sgf
from go_env.errors import GoError, IllegalMoveError
from go_env.handicap import fixed_handicap_points
from go_env.rules import MAX_SIZE, KoRule, Rules
from go_env.state import Color, GoState

__all__ = [
    "GameRecord",
    "SgfError",
    "dump_sgf",
    "load_sgf",
    "parse_sgf",
    "parse_sgf_bytes",
    "record_from_state",
    "rules_from_name",
    "rules_name",
    "save_sgf",
    "state_from_record",
]


class SgfError(GoError, ValueError):
    """An SGF text that cannot be read, or a record that cannot be replayed.

    Attributes:
        offset: Character offset in the text where the problem was found, when known.
    """

    def __init__(self, message: str, offset: int | None = None) -> None:
        self.offset = offset
        super().__init__(message if offset is None else f"{message} (at offset {offset})")


@dataclass
class GameRecord:
    """One game: its game information, setup stones and main-line moves.

    Attributes:
        size: Board size N (SZ); 19 when the file has no SZ, as the SGF specification says.
        komi: Komi (KM); 0 when the file has none.
        rules: The rule set's name as written (RU), e.g. ``"Chinese"``, or ``None``.
        handicap: Number of handicap stones (HA); 0 when absent.
        black: Black's name (PB).
        white: White's name (PW).
        result: The result (RE) as written, e.g. ``"B+3.5"``, ``"W+R"``, ``"0"``.
        game_comment: The game comment (GC).
        comment: The root node's comment (C).
        setup_black: Action indices of Black's setup stones (AB), in file order.
        setup_white: Action indices of White's setup stones (AW), in file order.
        to_play: The colour to move first (PL), when the file says.
        moves: ``(colour, move)`` for each main-line move; pass is ``N * N``.
        move_comments: Comment (C) of the node of a move, keyed by the move's index in ``moves``.
        properties: Other root properties (DT, GN, AP, ...), identifier -> values, in file order.
        move_properties: Other properties of move nodes, keyed by the move's index in ``moves``.
    """

    size: int = 19
    komi: float = 0.0
    rules: str | None = None
    handicap: int = 0
    black: str | None = None
    white: str | None = None
    result: str | None = None
    game_comment: str | None = None
    comment: str | None = None
    setup_black: list[int] = field(default_factory=list)
    setup_white: list[int] = field(default_factory=list)
    to_play: Color | None = None
    moves: list[tuple[Color, int]] = field(default_factory=list)
    move_comments: dict[int, str] = field(default_factory=dict)
    properties: dict[str, list[str]] = field(default_factory=dict)
    move_properties: dict[int, dict[str, list[str]]] = field(default_factory=dict)


# --------------------------------------------------------------------------- reading the text

_SETUP = ("AB", "AW", "AE")
_CONSUMED = ("GM", "FF", "CA")  # checked while reading, not kept: the writer always sets them
_ROOT_FIELDS = ("SZ", "KM", "RU", "HA", "PB", "PW", "RE", "GC", "C", "PL")
_SIMPLE_TEXT = ("RU", "PB", "PW", "RE")
_LINEBREAK = re.compile(r"\r\n|\n\r|\r")
_NODE_START = re.compile(r"\s*;")
_TREE_START = re.compile(r"\(\s*;")
_EMPTY_NODES = re.compile(r"(?:\s*;)*")
_IDENT_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")
# The common node ';B[cd]' (one move, a plain value, nothing else in the node: the next
# character opens another node or tree or closes one) is read by this one match; any other node
# takes the general path. Most of a long game record is such nodes.
_PLAIN_MOVE_NODE = re.compile(r";\s*([BW])\s*\[([a-z]{0,2})\]\s*(?=[;()])")


@dataclass
class _Prop:
    ident: str
    values: list[str]
    offset: int


_Node = dict[str, _Prop]


# One value: '[' then any characters but ']' and '\', or '\' and any character, then ']'.
# The unrolled form ([^...]*(?:\\.[^...]*)*) matches in linear time without backtracking.
_VALUE = re.compile(r"\[([^\]\\]*(?:\\.[^\]\\]*)*)\]\s*", re.DOTALL)
_IDENT = re.compile(r"[A-Za-z]+")
_SPACES = re.compile(r"\s*")
_ESCAPE = re.compile(r"\\(\r\n|\n\r|\r|\n|.)", re.DOTALL)


def _end_of(pattern: re.Pattern[str], text: str, pos: int) -> int:
    """The end of ``pattern``'s match at ``pos``; the pattern matches the empty string."""
    match = pattern.match(text, pos)
    assert match is not None
    return match.end()


def _unescape(match: re.Match[str]) -> str:
    char = match.group(1)
    return "" if char in ("\r\n", "\n\r", "\r", "\n") else char  # soft line break: removed


def _read_property(text: str, pos: int, node: _Node) -> int:
    """Read ``IDENT[value]...`` at ``pos`` into ``node``; returns the position after it.

    Each value is matched by one regular expression, so a property reads in time linear in
    its length (a 50 MB comment included).
    """
    start = pos
    ident_match = _IDENT.match(text, pos)
    assert ident_match is not None  # the caller saw a letter at pos
    raw = ident_match.group()
    ident = raw if raw.isupper() else "".join(c for c in raw if c.isupper())
    if not ident:  # FF[3] lowercase letters are ignored
        raise SgfError(f"property identifier {raw!r} has no uppercase letter", start)
    pos = _end_of(_SPACES, text, ident_match.end())
    values: list[str] = []
    while pos < len(text) and text[pos] == "[":
        match = _VALUE.match(text, pos)
        if match is None:
            raise SgfError("unterminated property value: no closing ']'", pos)
        value = match.group(1)
        if "\\" in value:
            value = _ESCAPE.sub(_unescape, value)
        if "\r" in value:
            value = _LINEBREAK.sub("\n", value)
        values.append(value)
        pos = match.end()
    if not values:
        raise SgfError(f"property {raw!r} has no value: expected '[' after it", pos)
    if ident in node:  # repeated in one node: tolerated by merging the values
        node[ident].values.extend(values)
    else:
        node[ident] = _Prop(ident, values, start)
    return pos


def _main_line(text: str) -> list[_Node]:
    """Parse the first game tree of a collection and return the nodes of its main line."""
    start = _TREE_START.search(text)
    if start is None:
        raise SgfError("no game tree found: an SGF file starts with '(;'", 0)
    pos = start.start()
    main: list[_Node] = []
    # One entry per open '(': [is on the main line, number of child trees seen so far].
    stack: list[list[int]] = []
    node: _Node | None = None
    n = len(text)
    while pos < n:
        ch = text[pos]
        if ch.isspace():
            pos += 1
        elif ch == "(":
            parent_main = stack[-1][0] if stack else 1
            first_child = stack[-1][1] == 0 if stack else True
            if stack:
                stack[-1][1] += 1
            stack.append([int(parent_main and first_child), 0])
            node = None
            pos += 1
            if not _NODE_START.match(text, pos):
                raise SgfError("a game tree must start with a node ';'", pos)
        elif ch == ")":
            if not stack:
                raise SgfError("unbalanced ')'", pos)
            stack.pop()
            node = None
            pos += 1
            if not stack:
                return main  # end of the first game tree; the rest of the collection is not read
        elif ch == ";":
            if not stack:
                raise SgfError("node ';' outside a game tree", pos)
            if stack[-1][1]:
                raise SgfError("node ';' after the variations of a game tree", pos)
            plain = _PLAIN_MOVE_NODE.match(text, pos)
            if plain is not None:
                ident = plain.group(1)
                node = {ident: _Prop(ident, [plain.group(2)], plain.start(1))}
                if stack[-1][0]:
                    main.append(node)
                pos = plain.end()
                continue
            node = {}
            if stack[-1][0]:
                main.append(node)
            # A run of empty nodes (';;;') reads as one node: an empty node changes nothing.
            pos = _end_of(_EMPTY_NODES, text, pos + 1)
        elif ch in _IDENT_CHARS:
            if node is None:
                raise SgfError(f"property {ch!r}... outside a node: expected ';' first", pos)
            pos = _read_property(text, pos, node)
        else:
            raise SgfError(f"unexpected character {ch!r}", pos)
    raise SgfError("the game tree is not closed: missing ')'", n)


# ------------------------------------------------------------------- interpreting the main line


_SPACE = re.compile(r"\s")
_SPACE_NOT_NEWLINE = re.compile(r"[^\S\n]")


def _simple_text(value: str) -> str:
    # SimpleText: every whitespace character, line breaks included, becomes a space.
    return _SPACE.sub(" ", value)


def _text(value: str) -> str:
    # Text: whitespace other than line breaks becomes a space.
    return _SPACE_NOT_NEWLINE.sub(" ", value)


def _single(prop: _Prop) -> str:
    if len(prop.values) != 1:
        raise SgfError(f"{prop.ident} takes one value, got {len(prop.values)}", prop.offset)
    return prop.values[0]


_MAX_NUMBER_CHARS = 64  # a longer number is refused before converting it
_INTEGER = re.compile(r"[+-]?[0-9]+")
_REAL = re.compile(r"[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?")


def _number(prop: _Prop, kind: type[int] | type[float]) -> float:
    raw = _single(prop).strip().replace(",", ".")
    if raw == "":
        return kind(0)
    if len(raw) > _MAX_NUMBER_CHARS:
        raise SgfError(
            f"{prop.ident}[{raw[:20]}...] has {len(raw)} characters; a number has at most "
            f"{_MAX_NUMBER_CHARS}",
            prop.offset,
        )
    pattern = (
        r"[+-]?[0-9]+" if kind is int else r"[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?"
    )
    if not re.fullmatch(pattern, raw, flags=re.ASCII):
        raise SgfError(f"{prop.ident}[{raw}] is not a valid {kind.__name__}", prop.offset)
    value = kind(raw)
    if not math.isfinite(value):
        raise SgfError(f"{prop.ident}[{raw}] is not a finite number", prop.offset)
    return value


def _size(root: _Node) -> int:
    prop = root.get("SZ")
    if prop is None:
        return 19
    raw = _single(prop).strip()
    if ":" in raw:
        cols, _, rows = raw.partition(":")
        if cols.strip() != rows.strip():
            raise SgfError(f"SZ[{raw}]: rectangular boards are not supported", prop.offset)
        raw = cols.strip()
    # ASCII digits only ('²'.isdigit() is true), and short enough for int().
    if not re.fullmatch(r"[0-9]{1,3}", raw) or not 2 <= int(raw) <= MAX_SIZE:
        raise SgfError(f"SZ[{raw}]: the board size must be an integer 2..{MAX_SIZE}", prop.offset)
    return int(raw)


@functools.cache
def _point_table(size: int) -> dict[str, int]:
    """Every valid SGF point of a ``size`` board and its action (pass: ``""``, ``"tt"``)."""
    table = {to_sgf(move, size): move for move in range(size * size)}
    table[""] = size * size
    if size <= 19:
        table["tt"] = size * size
    return table


def _point(prop: _Prop, value: str, size: int, *, allow_pass: bool) -> int:
    move = _point_table(size).get(value)
    if move is not None and (allow_pass or move != size * size):
        return move
    raw = value.strip()
    if raw and not raw.islower():
        raise SgfError(f"{prop.ident}[{raw}] is off a {size}x{size} board", prop.offset)
    try:
        move = from_sgf(raw, size)
    except ValueError as exc:
        raise SgfError(f"{prop.ident}[{raw}]: {exc}", prop.offset) from None
    if move == size * size and not allow_pass:
        raise SgfError(f"{prop.ident}[{raw}] is not a point of the board", prop.offset)
    return move


def _add_points(prop: _Prop, size: int, mask: np.ndarray, out: list[int]) -> None:
    """Append the points of a setup property not yet in ``mask`` (``aa:cc`` rectangles expanded).

    ``mask`` (``size x size`` booleans) marks the points already in ``out``, so that each point
    is added once, in file order, and a repeated value or a rectangle whose points are all in
    costs constant time: the work is linear in the file, not in values times points.
    """
    seen: set[str] = set()
    for value in prop.values:
        if value in seen:
            continue
        seen.add(value)
        first, sep, second = value.partition(":")
        a = _point(prop, first, size, allow_pass=False)
        if not sep:
            if not mask.flat[a]:
                mask.flat[a] = True
                out.append(a)
            continue
        b = _point(prop, second, size, allow_pass=False)
        (r1, c1), (r2, c2) = divmod(a, size), divmod(b, size)
        top, left = min(r1, r2), min(c1, c2)
        block = mask[top : max(r1, r2) + 1, left : max(c1, c2) + 1]
        if block.all():
            continue
        rows, cols = np.nonzero(~block)
        out.extend(((rows + top) * size + cols + left).tolist())
        block[...] = True


def _points(prop: _Prop, size: int) -> list[int]:
    """The points of a setup property, with ``aa:cc`` rectangles expanded (each point once)."""
    out: list[int] = []
    _add_points(prop, size, np.zeros((size, size), dtype=bool), out)
    return out


def _merge_setup(record: GameRecord, node: _Node, size: int) -> None:
    for ident, target in (("AB", record.setup_black), ("AW", record.setup_white)):
        if ident in node:
            mask = np.zeros((size, size), dtype=bool)
            mask.flat[target] = True
            _add_points(node[ident], size, mask, target)
    if "AE" in node:
        cleared = set(_points(node["AE"], size))
        record.setup_black[:] = [p for p in record.setup_black if p not in cleared]
        record.setup_white[:] = [p for p in record.setup_white if p not in cleared]
    both = set(record.setup_black) & set(record.setup_white)
    if both:
        where = min(node[i].offset for i in ("AB", "AW") if i in node)
        raise SgfError(f"setup points {sorted(both)} are given to both colours", where)


def _read_root(record: GameRecord, root: _Node) -> None:
    gm = root.get("GM")
    if gm is not None and _single(gm).strip() not in ("", "1"):
        raise SgfError(f"GM[{_single(gm)}] is not a game of Go (GM[1])", gm.offset)
    if "KM" in root:
        record.komi = float(_number(root["KM"], float))
    if "HA" in root:
        handicap = int(_number(root["HA"], int))
        if not 0 <= handicap <= MAX_SIZE * MAX_SIZE:
            raise SgfError(
                f"HA[{handicap}]: the handicap must be 0..{MAX_SIZE * MAX_SIZE}", root["HA"].offset
            )
        record.handicap = handicap
    for ident, name in (("RU", "rules"), ("PB", "black"), ("PW", "white"), ("RE", "result")):
        if ident in root:
            setattr(record, name, _simple_text(" ".join(root[ident].values)))
    if "GC" in root:
        record.game_comment = _text("\n".join(root["GC"].values))
    if "C" in root:
        record.comment = _text("\n".join(root["C"].values))
    if "PL" in root:
        pl = _single(root["PL"]).strip().upper()
        if pl not in ("B", "W", "BLACK", "WHITE", "1", "2"):
            raise SgfError(f"PL[{pl}] must be B or W", root["PL"].offset)
        record.to_play = Color.BLACK if pl in ("B", "BLACK", "1") else Color.WHITE
    skip = {*_CONSUMED, *_ROOT_FIELDS, *_SETUP, "B", "W"}
    for ident, prop in root.items():
        if ident not in skip:
            record.properties[ident] = list(prop.values)


def _merge_into_root(root: _Node, node: _Node) -> None:
    for ident, prop in node.items():
        if ident in root:
            root[ident].values.extend(prop.values)
        else:
            root[ident] = _Prop(ident, list(prop.values), prop.offset)


# Properties that belong to the root (game information, board size, setup handled there):
# in a move node they are refused when read, rather than kept and refused when written.
_ROOT_ONLY = frozenset({*_CONSUMED, *_ROOT_FIELDS, *_SETUP} - {"C"})


def _check_move_node(node: _Node, index: int) -> None:
    for ident, prop in node.items():
        if ident in _SETUP:
            raise SgfError(
                f"setup property {ident} after move {index} is not supported", prop.offset
            )
        if ident in _ROOT_ONLY:
            raise SgfError(
                f"{ident} is a root property (game information); it cannot appear in a node "
                f"after the root (here after move {index})",
                prop.offset,
            )


def _read_move(record: GameRecord, node: _Node, size: int, comments: dict[int, list[str]]) -> bool:
    """Append the node's move (if any) with its comment and other properties."""
    props = [node[c] for c in ("B", "W") if c in node]
    if len(props) > 1:
        raise SgfError("a node has both a B and a W move", props[1].offset)
    if not props or len(props[0].values) != 1:
        if props:
            raise SgfError(f"{props[0].ident} takes one point", props[0].offset)
        return False
    prop = props[0]
    colour = Color.BLACK if prop.ident == "B" else Color.WHITE
    index = len(record.moves)
    record.moves.append((colour, _point(prop, prop.values[0], size, allow_pass=True)))
    if "C" in node:
        comments[index] = [_text("\n".join(node["C"].values))]
    extra = {i: list(p.values) for i, p in node.items() if i not in ("B", "W", "C")}
    if extra:
        record.move_properties[index] = extra
    return True


def _annotate_last(record: GameRecord, node: _Node, comments: dict[int, list[str]]) -> None:
    """A node without a move after the first move: its comment and properties join the last."""
    index = len(record.moves) - 1
    if "C" in node:
        comments.setdefault(index, []).append(_text("\n".join(node["C"].values)))
    if any(ident != "C" for ident in node):
        extra = record.move_properties.setdefault(index, {})
        for ident, prop in node.items():
            if ident != "C":
                extra.setdefault(ident, []).extend(prop.values)


def parse_sgf(text: str) -> GameRecord:
    """Read the main line of the first game tree of an SGF text.

    Runs in time linear in the length of the text.

    Args:
        text: The SGF text (a collection of one or more game trees).

    Returns:
        The game record.

    Raises:
        SgfError: When the text is not SGF, or a property value is invalid; the message names
            the property and the offset in ``text``.
    """
    # The parse allocates a few containers per node and no reference cycles; the cyclic
    # garbage collector's passes over the growing node list were half the time of a long record.
    collecting = gc.isenabled()
    gc.disable()
    try:
        return _parse(text)
    finally:
        if collecting:
            gc.enable()


def _parse(text: str) -> GameRecord:
    nodes = _main_line(text.lstrip("\ufeff"))
    root: _Node = {i: _Prop(i, list(p.values), p.offset) for i, p in nodes[0].items()}
    # Nodes before the first move (setup or game information split over several nodes) are
    # read as part of the root.
    first = 1
    if "B" not in root and "W" not in root:
        while first < len(nodes) and "B" not in nodes[first] and "W" not in nodes[first]:
            _merge_into_root(root, nodes[first])
            first += 1
    size = _size(root)
    record = GameRecord(size=size)
    _read_root(record, root)
    _merge_setup(record, root, size)
    comments: dict[int, list[str]] = {}
    if any(c in root for c in ("B", "W")):  # a move in the root node
        _read_move(record, {i: p for i, p in root.items() if i in ("B", "W")}, size, comments)
    for node in nodes[first:]:
        _check_move_node(node, len(record.moves))
        if not _read_move(record, node, size, comments):
            _annotate_last(record, node, comments)
    record.move_comments = {i: "\n".join(parts) for i, parts in comments.items()}
    return record


def _charset(data: bytes) -> str | None:
    # The value is bounded ({0,64}): an unbounded [^\]]* rescans the rest of the file at each
    # 'CA[' without a ']', quadratic time on a hostile file.
    match = re.search(rb"(?<![A-Z])C[a-z]*A[a-z]*\s*\[([^\]]{0,64})\]", data)
    return match.group(1).decode("ascii", "replace").strip() if match else None


def _decode(data: bytes) -> str:
    """Decode SGF bytes with the CA charset, else UTF-8, else ISO-8859-1.

    The CA charset is used only when it names a usable text codec; ISO-8859-1 decodes any bytes.
    """
    declared = _charset(data)
    for charset in (declared, "utf-8"):
        if charset is None:
            continue
        try:
            if not codecs.lookup(charset)._is_text_encoding:  # e.g. CA[zlib], CA[rot13]
                continue
            return data.decode(charset)
        except (LookupError, UnicodeError, ValueError, TypeError):
            continue  # unknown name, undecodable bytes, or a codec that fails (CA[idna])
    return data.decode("iso-8859-1")


def parse_sgf_bytes(data: bytes) -> GameRecord:
    """Read SGF bytes (decoded as :func:`load_sgf` says), then :func:`parse_sgf`.

    Raises:
        SgfError: When the text is not valid SGF.
    """
    return parse_sgf(_decode(data))


def load_sgf(path: str | PathLike[str]) -> GameRecord:
    """Read an SGF file (see :func:`parse_sgf`).

    The bytes are decoded with the charset of the CA property; without CA, or when that charset
    is unknown, not a text codec or fails, as UTF-8, and failing that as ISO-8859-1.

    Raises:
        SgfError: When the file is not valid SGF.
        OSError: When the file cannot be read.
    """
    data = Path(path).read_bytes()
    try:
        return parse_sgf_bytes(data)
    except SgfError as exc:
        error = SgfError(f"{path}: {exc}")
        error.offset = exc.offset
        raise error from exc


# ---------------------------------------------------------------------------------- writing


def _escape(value: str) -> str:
    return value.replace("\\", "\\\\").replace("]", "\\]")


def _format_komi(komi: float) -> str:
    """``KM``'s text, read back by :func:`_number` as exactly ``komi``.

    A plain decimal (SGF's Real) when one of at most :data:`_MAX_NUMBER_CHARS` characters holds
    the value; otherwise (e.g. ``1e+300``) the exponent form, which the reader also accepts.
    """
    value = float(komi)
    if value == 0:
        return "0"
    shortest = repr(value)
    if value.is_integer():
        plain = str(int(value))
    elif "e" in shortest:
        plain = format(Decimal(shortest), "f")
    else:
        plain = shortest
    return plain if len(plain) <= _MAX_NUMBER_CHARS else shortest


def _check_record(record: GameRecord) -> None:
    if not 2 <= record.size <= MAX_SIZE:
        raise ValueError(f"record size must be 2..{MAX_SIZE}, got {record.size}")
    points = record.size * record.size
    for name in ("setup_black", "setup_white"):
        bad = [p for p in getattr(record, name) if not 0 <= p < points]
        if bad:
            raise ValueError(f"{name} has points off a {record.size}x{record.size} board: {bad}")
    for i, (colour, move) in enumerate(record.moves):
        if colour not in (Color.BLACK, Color.WHITE) or not 0 <= move <= points:
            raise ValueError(f"move {i} ({colour!r}, {move}) is not a move on this board")
    for name in ("move_comments", "move_properties"):
        bad = [i for i in getattr(record, name) if not 0 <= i < len(record.moves)]
        if bad:
            raise ValueError(f"{name} keyed by {bad}, but the record has {len(record.moves)} moves")
    reserved = {*_CONSUMED, *_ROOT_FIELDS, *_SETUP, "B", "W"}
    for ident in [*record.properties, *(i for p in record.move_properties.values() for i in p)]:
        if not ident.isalpha() or not ident.isupper() or ident in reserved:
            raise ValueError(
                f"extra property {ident!r} must be uppercase letters and not one of "
                f"{sorted(reserved)}"
            )


def _prop(ident: str, values: list[str]) -> str:
    if not values:
        raise ValueError(f"property {ident} has no value")
    return ident + "".join(f"[{_escape(v)}]" for v in values)


def dump_sgf(record: GameRecord) -> str:
    """Write a record as an SGF FF[4] text (UTF-8 charset, passes written as ``B[]``).

    Raises:
        ValueError: When the record holds a point off its board or a malformed property.
    """
    _check_record(record)
    size = record.size
    root = ["GM[1]", "FF[4]", "CA[UTF-8]", f"SZ[{size}]", f"KM[{_format_komi(record.komi)}]"]
    if record.handicap:
        root.append(f"HA[{record.handicap}]")
    for ident, value in (
        ("RU", record.rules),
        ("PB", record.black),
        ("PW", record.white),
        ("RE", record.result),
        ("GC", record.game_comment),
        ("C", record.comment),
    ):
        if value is not None:
            root.append(_prop(ident, [value]))
    root.extend(_prop(ident, values) for ident, values in record.properties.items())
    if record.to_play is not None:
        root.append("PL[B]" if record.to_play == Color.BLACK else "PL[W]")
    for ident, stones in (("AB", record.setup_black), ("AW", record.setup_white)):
        if stones:
            root.append(_prop(ident, [to_sgf(p, size) for p in stones]))
    lines = ["(;" + "".join(root)]
    line: list[str] = []
    for i, (colour, move) in enumerate(record.moves):
        node = ";" + ("B" if colour == Color.BLACK else "W") + f"[{to_sgf(move, size)}]"
        node += "".join(_prop(k, v) for k, v in record.move_properties.get(i, {}).items())
        if i in record.move_comments:
            node += _prop("C", [record.move_comments[i]])
        line.append(node)
        if len(line) == 10 or "\n" in node:
            lines.append("".join(line))
            line = []
    if line:
        lines.append("".join(line))
    return "\n".join(lines) + ")\n"


def save_sgf(record: GameRecord, path: str | PathLike[str]) -> None:
    """Write a record to a file as UTF-8 SGF (see :func:`dump_sgf`)."""
    Path(path).write_text(dump_sgf(record), encoding="utf-8")


# ------------------------------------------------------------------------- records and states

_RULE_NAMES: dict[tuple[KoRule, bool], str] = {
    (KoRule.POSITIONAL, False): "Chinese",
    (KoRule.POSITIONAL, True): "Tromp-Taylor",
    (KoRule.SITUATIONAL, False): "AGA",
    (KoRule.SITUATIONAL, True): "NZ",
    (KoRule.SIMPLE, False): "Japanese",
    (KoRule.SIMPLE, True): "simple-ko-suicide",
}
_RULE_ALIASES: dict[str, tuple[KoRule, bool]] = {
    "chinese": (KoRule.POSITIONAL, False),
    "cn": (KoRule.POSITIONAL, False),
    "tromp-taylor": (KoRule.POSITIONAL, True),
    "tromp taylor": (KoRule.POSITIONAL, True),
    "tt": (KoRule.POSITIONAL, True),
    "aga": (KoRule.SITUATIONAL, False),
    "nz": (KoRule.SITUATIONAL, True),
    "new zealand": (KoRule.SITUATIONAL, True),
    "japanese": (KoRule.SIMPLE, False),
    "jp": (KoRule.SIMPLE, False),
    "korean": (KoRule.SIMPLE, False),
    "simple-ko-suicide": (KoRule.SIMPLE, True),
}


def rules_name(rules: Rules) -> str:
    """The RU name written for a rule set's ko and suicide rules (see ``docs/sgf.md``)."""
    return _RULE_NAMES[(rules.ko, rules.suicide)]


def rules_from_name(name: str | None) -> tuple[KoRule, bool]:
    """(ko rule, suicide allowed) for an RU name; unknown names get the defaults of Rules."""
    default = Rules()
    if name is None:
        return default.ko, default.suicide
    return _RULE_ALIASES.get(name.strip().lower(), (default.ko, default.suicide))


def _rules_for(record: GameRecord) -> Rules:
    """Rules implied by a record: its size, komi, RU ko/suicide and fixed handicap."""
    ko, suicide = rules_from_name(record.rules)
    handicap = 0
    if record.handicap >= 2 and not record.setup_white:
        try:
            fixed = fixed_handicap_points(record.size, record.handicap)
        except ValueError:
            fixed = []
        if fixed and sorted(fixed) == sorted(record.setup_black):
            handicap = record.handicap
    cap = 2 * record.size * record.size
    return Rules(
        size=record.size,
        komi=record.komi,
        ko=ko,
        suicide=suicide,
        handicap=handicap,
        max_moves=len(record.moves) if len(record.moves) > cap else None,
    )


def _first_player(record: GameRecord) -> Color:
    if record.moves:
        return record.moves[0][0]
    if record.to_play is not None:
        return record.to_play
    return Color.WHITE if record.handicap > 0 else Color.BLACK


def _initial_state(record: GameRecord, rules: Rules) -> GoState:
    first = _first_player(record)
    if rules.handicap:
        fixed = fixed_handicap_points(rules.size, rules.handicap)
        if sorted(fixed) != sorted(record.setup_black) or record.setup_white:
            raise SgfError(
                f"rules.handicap={rules.handicap} needs exactly the fixed handicap "
                f"stones as AB and no AW; the record has AB {record.setup_black} "
                f"and AW {record.setup_white}"
            )
        if first != Color.WHITE:
            raise SgfError(
                f"with rules.handicap={rules.handicap} White moves first, but the "
                f"record starts with {first.name}"
            )
        return GoState(rules)
    if not record.setup_black and not record.setup_white and first == Color.BLACK:
        return GoState(rules)
    n = rules.size
    cells = ["."] * (n * n)
    for p in record.setup_black:
        cells[p] = "X"
    for p in record.setup_white:
        cells[p] = "O"
    text = "\n".join(" ".join(cells[r * n : (r + 1) * n]) for r in range(n))
    try:
        return GoState.from_ascii(text, rules, to_play=first)
    except ValueError as exc:
        raise SgfError(f"the setup stones are not a legal position: {exc}") from exc


def state_from_record(record: GameRecord, rules: Rules | None = None) -> GoState:
    """Replay a record: setup stones, then every move, each checked against the rules.

    Args:
        record: The game record.
        rules: The rules to replay under; by default, the record's size and komi, the ko and
            suicide rules named by its RU (see :func:`rules_from_name`), its fixed handicap
            when AB holds exactly the fixed handicap points (free placement is set up as
            stones), and a move cap large enough for the record. ``rules.size`` must equal the
            record's size; ``rules.komi`` is used as given.

    Returns:
        The state after the last move.

    Raises:
        SgfError: When the sizes differ, the setup is not a legal position, the moves do not
            alternate, or a move is illegal (the message names the move number and the rule).
    """
    _check_record(record)
    if rules is None:
        rules = _rules_for(record)
    elif rules.size != record.size:
        raise SgfError(f"rules.size is {rules.size} but the record is {record.size}x{record.size}")
    state = _initial_state(record, rules)
    for i, (colour, move) in enumerate(record.moves):
        where = (
            f"move {i + 1} ({'B' if colour == Color.BLACK else 'W'}[{to_sgf(move, rules.size)}])"
        )
        if colour != state.to_play:
            raise SgfError(f"{where}: {state.to_play.name} is to play; moves must alternate")
        try:
            state.play(move)
        except IllegalMoveError as exc:
            raise SgfError(f"{where} is illegal: {exc.reason.value}") from exc
    return state


def record_from_state(
    state: GoState,
    *,
    black: str | None = None,
    white: str | None = None,
    result: str | None = None,
    comments: Mapping[int, str] | None = None,
    game_comment: str | None = None,
) -> GameRecord:
    """A record of a game: its rules, its starting position and every move played.

    Args:
        state: The game (any point of it).
        black: Black's name (PB).
        white: White's name (PW).
        result: The result (RE); by default ``state.result()`` once the game is over, else none.
        comments: Comments of moves, keyed by the move's index in ``state.history``.
        game_comment: The game comment (GC).

    Returns:
        The record; :func:`state_from_record` replays it to an equal position.

    Raises:
        ValueError: When a comment is keyed by an index that is not a move of the game.
    """
    rules = state.rules
    n = rules.size
    start = state.recent_boards(state.move_number + 1)[-1].ravel()
    setup_black = [int(p) for p in np.flatnonzero(start == Color.BLACK)]
    setup_white = [int(p) for p in np.flatnonzero(start == Color.WHITE)]
    handicap = 0
    if rules.handicap:
        fixed = fixed_handicap_points(n, rules.handicap)
        if sorted(fixed) == setup_black and not setup_white:
            handicap, setup_black = rules.handicap, fixed
    moves = list(state.history)
    comments = dict(comments or {})
    bad = [i for i in comments if not 0 <= i < len(moves)]
    if bad:
        raise ValueError(f"comments keyed by {bad}, but the game has moves 0..{len(moves) - 1}")
    record = GameRecord(
        size=n,
        komi=float(rules.komi),
        rules=rules_name(rules),
        handicap=handicap,
        black=black,
        white=white,
        game_comment=game_comment,
        result=result if result is not None else (state.result() if state.is_over else None),
        setup_black=setup_black,
        setup_white=setup_white,
        moves=moves,
        move_comments=comments,
    )
    if not moves and state.to_play != _first_player(record):
        record.to_play = state.to_play
    return record

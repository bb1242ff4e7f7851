"""The documentation's links hold: every relative link resolves, every recorded run is linked.

Recorded runs live in one tree, ``docs/results/<topic>/<run>/`` (docs/decisions/
012-package-layout.md); the guides read them. This checks, over README.md, CHANGELOG.md and
every ``.md`` under docs/ (outside docs/results):

* every relative markdown link ``[text](target)`` or image resolves to a file or folder, and
  its ``#anchor``, when it has one, to a heading of the target page (GitHub's slugs);
* every repository path written in code quotes that starts with ``docs/`` exists;
* every ``docs/...`` path and decision record (``docs/decisions/NNN``, ``decisions/NNN-...``)
  cited in the code (go_env, agents, tuning, scripts, benchmarks, tests, examples,
  experiments) or in a page exists, and its ``#anchor``, when it has one, is an anchor of that
  page; no file cites a document outside the repository (the design documents' spec);
* every run folder under docs/results is the target of (or holds the target of) a markdown
  link from some page, so that no recorded run is left without the page that reads it.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
RESULTS = DOCS / "results"

LINK = re.compile(r"!?\[(?:[^\]\\]|\\.)*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
CODE_PATH = re.compile(r"`(docs/[^`\s]+)`")
FENCE = re.compile(r"^(```|~~~).*?^\1", re.S | re.M)


def pages() -> list[Path]:
    found = [ROOT / "README.md", ROOT / "CHANGELOG.md"]
    found += [p for p in sorted(DOCS.rglob("*.md")) if RESULTS not in p.parents]
    return [p for p in found if p.exists()]


def prose(page: Path) -> str:
    """The page without its fenced code blocks (commands there are not links)."""
    return FENCE.sub("", page.read_text(encoding="utf-8"))


EXPLICIT_ANCHOR = re.compile(r"""<a\s+(?:id|name)=["']([^"']+)["']""")


def slugs(page: Path) -> set[str]:
    """GitHub's anchors of the headings of ``page``, and its explicit ``<a id="...">``."""
    out = set(EXPLICIT_ANCHOR.findall(prose(page)))
    for line in prose(page).splitlines():
        match = re.match(r"#{1,6}\s+(.*)", line)
        if match:
            text = re.sub(r"[`*_]|\[([^\]]*)\]\([^)]*\)", r"\1", match.group(1)).strip().lower()
            out.add(re.sub(r"[^\w\- ]", "", text).replace(" ", "-"))
    return out


def links(page: Path) -> list[str]:
    return [m.group(1) for m in LINK.finditer(prose(page))]


def is_external(target: str) -> bool:
    return re.match(r"[a-z][a-z0-9+.-]*:", target) is not None


def resolve(page: Path, target: str) -> tuple[Path, str]:
    path, _, anchor = target.partition("#")
    return ((page.parent / path).resolve() if path else page), anchor


@pytest.mark.parametrize("page", pages(), ids=lambda p: str(p.relative_to(ROOT)))
def test_relative_links_resolve(page: Path) -> None:
    bad = []
    for target in links(page):
        if is_external(target):
            continue
        path, anchor = resolve(page, target)
        if not path.exists():
            bad.append(f"{target}: no such file or folder")
        elif anchor and path.suffix == ".md" and anchor not in slugs(path):
            bad.append(f"{target}: {path.name} has no heading with anchor #{anchor}")
    assert not bad, f"{page.relative_to(ROOT)}:\n" + "\n".join(bad)


@pytest.mark.parametrize("page", pages(), ids=lambda p: str(p.relative_to(ROOT)))
def test_quoted_docs_paths_exist(page: Path) -> None:
    missing = [
        path
        for path in CODE_PATH.findall(prose(page))
        if not re.search(r"[*<>{}]|\.\.\.", path)
        and cited_target(path.partition("#")[0].rstrip("/")) is None
    ]
    assert not missing, f"{page.relative_to(ROOT)} names paths that do not exist: {missing}"


def run_folders() -> list[Path]:
    return sorted(p for topic in RESULTS.iterdir() if topic.is_dir() for p in topic.iterdir())


def test_results_hold_only_run_folders() -> None:
    """docs/results/<topic>/<run>/: nothing loose at the first two levels."""
    assert RESULTS.is_dir()
    loose = [p for p in RESULTS.iterdir() if not p.is_dir()]
    loose += [p for p in run_folders() if not p.is_dir()]
    assert not loose, f"files outside a run folder: {loose}"
    assert run_folders(), "no recorded runs"


def test_every_run_folder_is_linked_from_a_page() -> None:
    targets = set()
    for page in pages():
        for target in links(page):
            if not is_external(target):
                targets.add(resolve(page, target)[0])
    unlinked = [
        str(run.relative_to(ROOT))
        for run in run_folders()
        if not any(t == run or run in t.parents for t in targets)
    ]
    assert not unlinked, f"run folders no page links to: {unlinked}"


def test_the_checks_catch_a_broken_link(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text(
        "# A page\n\n## Fair scoring\n\n[ok](#fair-scoring) [bad](#nowhere) [gone](gone.md)\n"
        "![img](pic.png) [web](https://example.org/x)\n```\n[in code](not-a-link.md)\n```\n",
        encoding="utf-8",
    )
    assert links(page) == [
        "#fair-scoring",
        "#nowhere",
        "gone.md",
        "pic.png",
        "https://example.org/x",
    ]
    assert slugs(page) == {"a-page", "fair-scoring"}
    page.write_text('<a id="short"></a>\n\n## Long heading\n', encoding="utf-8")
    assert slugs(page) == {"short", "long-heading"}
    assert resolve(page, "#nowhere") == (page, "nowhere")
    assert not resolve(page, "gone.md")[0].exists()


CODE_DIRS = (
    "go_env",
    "agents",
    "tuning",
    "scripts",
    "benchmarks",
    "tests",
    "examples",
    "experiments",
)
CODE_SUFFIXES = {".py", ".toml", ".md", ".sh", ".txt", ".cfg"}
CITED = re.compile(r"(?<![\w/.:-])((?:docs/)?decisions/\d{3}[\w.-]*|docs/[\w./-]+)(#[\w-]+)?")
"""A cited document: ``docs/PATH`` or ``[docs/]decisions/NNN[-name.md]``, with its anchor
(``COMMIT:docs/PATH``, git's name for a file of an older commit, is not one: docs/records.md,
"Records kept in git only")."""
PLACEHOLDER = re.compile(r"[*<>{}]|\.\.\.|/$")


def cited_files() -> list[Path]:
    files = [ROOT / "README.md", ROOT / "CHANGELOG.md", ROOT / "Makefile", ROOT / "pyproject.toml"]
    for folder in CODE_DIRS:
        files += [
            p
            for p in sorted((ROOT / folder).rglob("*"))
            if p.is_file() and p.suffix in CODE_SUFFIXES
        ]
    files += pages()
    here = Path(__file__).resolve()  # its own examples are broken on purpose
    return [p for p in files if p.exists() and "__pycache__" not in p.parts and p != here]


def cited_target(citation: str) -> Path | None:
    """The file a citation names (``None``: it names none)."""
    path = citation if citation.startswith("docs/") else f"docs/{citation}"
    path = path.rstrip(".")
    decision = re.fullmatch(r"docs/decisions/(\d{3})(?:-[\w.-]*)?", path)
    if decision and not path.endswith(".md"):  # docs/decisions/019: the record numbered 019
        found = sorted((DOCS / "decisions").glob(f"{decision.group(1)}-*.md"))
        return found[0] if len(found) == 1 else None
    target = ROOT / path
    if target.exists():
        return target
    plain = target.with_name(target.name + ".gz")  # a results file recorded compressed
    if target.suffix == ".jsonl" and plain.exists():
        return plain
    return None


def citations(file: Path) -> list[tuple[str, str]]:
    """The citations of a file; a page's fenced code blocks (commands) are not citations."""
    text = prose(file) if file.suffix == ".md" else file.read_text(encoding="utf-8")
    return [(m.group(1), (m.group(2) or "")[1:]) for m in CITED.finditer(text)]


@pytest.mark.parametrize("file", cited_files(), ids=lambda p: str(p.relative_to(ROOT)))
def test_every_cited_document_exists(file: Path) -> None:
    bad = []
    for citation, anchor in citations(file):
        if PLACEHOLDER.search(citation):
            continue
        target = cited_target(citation)
        if target is None:
            bad.append(f"{citation}: no such file")
        elif anchor and target.suffix == ".md" and anchor not in slugs(target):
            bad.append(f"{citation}#{anchor}: {target.name} has no anchor #{anchor}")
    assert not bad, f"{file.relative_to(ROOT)} cites:\n" + "\n".join(bad)


def test_nothing_cites_the_design_documents_spec() -> None:
    """The maths is in docs/ (backups.md, protocol.md, traps.md): nothing points outside."""
    citing = [
        str(file.relative_to(ROOT))
        for file in cited_files()
        if "backups-spec" in file.read_text(encoding="utf-8")
    ]
    assert not citing, f"files that cite a document outside the repository: {citing}"


def test_the_citation_check_catches_what_is_missing(tmp_path: Path) -> None:
    source = tmp_path / "module.py"
    source.write_text(
        '"""See ``docs/backups.md#softmax``, ``docs/decisions/019``,\n'
        "decisions/004-secure-child.md, docs/nowhere.md, docs/backups.md#no-such-section\n"
        "and docs/decisions/999.\n"
        "Recorded: docs/results/strength/net1-800/results.jsonl. Kept in git only:\n"
        'b5acd7c:docs/results/nets/gone/results.jsonl.gz."""\n',
        encoding="utf-8",
    )
    found = citations(source)
    assert [c for c, _ in found] == [
        "docs/backups.md",
        "docs/decisions/019",
        "decisions/004-secure-child.md",
        "docs/nowhere.md",
        "docs/backups.md",
        "docs/decisions/999.",
        "docs/results/strength/net1-800/results.jsonl.",
    ]
    resolved = [cited_target(c) for c, _ in found]
    assert resolved[1] == DOCS / "decisions" / "019-shared-evaluator.md"
    assert resolved[2] == DOCS / "decisions" / "004-secure-child.md"
    assert resolved[3] is None and resolved[5] is None
    assert resolved[6] is not None and resolved[6].name == "results.jsonl.gz"
    assert "softmax" in slugs(DOCS / "backups.md")
    assert "no-such-section" not in slugs(DOCS / "backups.md")

"""The documentation's links hold: every relative link resolves, every recorded run is linked.

Recorded runs live in one tree, ``docs/results/<topic>/<run>/`` (docs/decisions/
012-package-layout.md); the guides read them. This checks, over README.md, CHANGELOG.md and
every ``.md`` under docs/ (outside docs/results):

* every relative markdown link ``[text](target)`` or image resolves to a file or folder, and
  its ``#anchor``, when it has one, to a heading of the target page (GitHub's slugs);
* every repository path written in code quotes that starts with ``docs/`` exists;
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


def slugs(page: Path) -> set[str]:
    """GitHub's anchors of the headings of ``page``."""
    out = set()
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
        if not re.search(r"[*<>{}]|\.\.\.", path) and not (ROOT / path.rstrip("/")).exists()
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
    assert resolve(page, "#nowhere") == (page, "nowhere")
    assert not resolve(page, "gone.md")[0].exists()

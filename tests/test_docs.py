"""The README stays a short front page whose links lead somewhere; docs/ keeps its word."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
FENCE = re.compile(r"^(```|~~~).*?^\1\s*$", re.MULTILINE | re.DOTALL)
LINK = re.compile(r"\[[^\]]*\]\(([^()\s]+)\)")
HEADING = re.compile(r"^#{1,6}\s+(.+?)\s*#*\s*$", re.MULTILINE)


def prose(path: Path) -> str:
    """The text of a Markdown file without its fenced code blocks."""
    return FENCE.sub("", path.read_text(encoding="utf-8"))


def github_anchor(heading: str) -> str:
    """The anchor GitHub gives a heading: lower case, punctuation dropped, spaces to hyphens."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def anchors(path: Path) -> set[str]:
    """Every heading anchor of a Markdown file, with GitHub's ``-1``, ``-2`` for repeats."""
    found: set[str] = set()
    seen: dict[str, int] = {}
    for heading in HEADING.findall(prose(path)):
        anchor = github_anchor(heading)
        count = seen.get(anchor, 0)
        seen[anchor] = count + 1
        found.add(anchor if count == 0 else f"{anchor}-{count}")
    return found


def relative_links(path: Path) -> list[str]:
    """The links of a Markdown file that point into the repository (no scheme)."""
    return [
        target
        for target in LINK.findall(prose(path))
        if not re.match(r"^[a-z][a-z0-9+.-]*:", target, re.IGNORECASE)
    ]


def test_the_readme_is_under_300_lines():
    """Everything past the quick starts lives in docs/."""
    lines = README.read_text(encoding="utf-8").splitlines()
    assert len(lines) < 300, f"README.md has {len(lines)} lines: move the detail into docs/"


def test_the_readme_starts_with_the_two_commands():
    """`make run` and `make test` come first, and do what the Makefile has them do."""
    first_block = re.search(r"```sh\n(.*?)```", README.read_text(encoding="utf-8"), re.DOTALL)
    assert first_block is not None
    commands = [line.split("#")[0].strip() for line in first_block.group(1).splitlines()]
    assert commands == ["make run", "make test"]
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    assert re.search(r"^run: .*\n\t@?\$\(BIN\)/runctx status$", makefile, re.MULTILINE)
    assert re.search(r"^test: .*\n\t\$\(BIN\)/python -m pytest", makefile, re.MULTILINE)


def test_every_relative_link_of_the_readme_leads_to_a_file_and_heading():
    """A link to a file names one in the repository; its #anchor names one of its headings."""
    links = relative_links(README)
    assert any(link.startswith("docs/") for link in links)
    for link in links:
        target, _, anchor = link.partition("#")
        file = (README.parent / target).resolve() if target else README
        assert file.is_file(), f"README.md links to {link}: no such file"
        assert file.is_relative_to(ROOT), link
        if anchor:
            assert anchor in anchors(file), f"README.md links to {link}: no such heading"


def test_the_anchor_rule_is_githubs():
    """The anchors checked are the ones GitHub renders for these headings."""
    assert github_anchor("`runctx status --watch`: a pane to keep open") == (
        "runctx-status---watch-a-pane-to-keep-open"
    )
    assert github_anchor("git: `pre-push` and the pre-commit framework") == (
        "git-pre-push-and-the-pre-commit-framework"
    )


def test_every_test_a_promise_names_exists():
    """docs/promises.md names each promise's tests: every file and test function is there."""
    text = (ROOT / "docs" / "promises.md").read_text(encoding="utf-8")
    named = re.findall(r"`(tests/[\w/]+\.py)(?:::(\w+))?", text)
    assert len(named) > 50
    for file, function in named:
        path = ROOT / file
        assert path.is_file(), file
        if function:
            assert re.search(rf"^\s*(?:async )?def {function}\(", path.read_text(), re.MULTILINE), (
                f"{file}::{function}"
            )

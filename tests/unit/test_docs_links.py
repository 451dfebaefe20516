"""The README and the manual (docs/): every relative link resolves to a
file of the checkout, and every `#anchor` to a heading of its page; the
README stays a page a newcomer reads in minutes."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from project_paths import PROJECT

PAGES = [PROJECT / "README.md", *sorted((PROJECT / "docs").glob("*.md"))]
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")


def _anchors(page: Path) -> set[str]:
    """The anchors GitHub makes of a page's headings."""
    found = set()
    for line in page.read_text(encoding="utf-8").splitlines():
        if line.startswith("#"):
            title = line.lstrip("#").strip().lower()
            found.add(re.sub(r"[^\w\- ]", "", title).replace(" ", "-"))
    return found


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_every_link_resolves(page: Path) -> None:
    links = LINK.findall(page.read_text(encoding="utf-8"))
    assert links or page.name != "README.md"
    for link in links:
        if re.match(r"^[a-z]+://", link):
            continue
        path, _, anchor = link.partition("#")
        target = (page.parent / path).resolve() if path else page
        assert target.exists(), f"{page.name}: {link}"
        if anchor:
            assert anchor in _anchors(target), f"{page.name}: {link}"


def test_the_readme_is_short_and_names_every_manual_page() -> None:
    readme = (PROJECT / "README.md").read_text(encoding="utf-8")
    assert len(readme.splitlines()) <= 200
    index = (PROJECT / "docs" / "README.md").read_text(encoding="utf-8")
    for page in PAGES[1:]:
        if page.name != "README.md":
            assert f"({page.name})" in index, page.name
    assert "```mermaid" in readme

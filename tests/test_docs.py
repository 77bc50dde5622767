"""The guide in docs/ builds without a warning, and the README's links lead somewhere.

The site is built with ``mkdocs build --strict`` into a temporary folder: ``strict`` turns
every warning into an error (a broken internal link or anchor, a page missing from the nav,
a mkdocstrings error in the API reference), as set in ``mkdocs.yml``.  The README is not
part of the site, so its relative links are checked here: each points to an existing file
and, where an anchor is given, to a heading of that Markdown file (slugs as MkDocs makes
them).  The README stays short: at most 400 lines.
"""
from __future__ import annotations

import html
import os
import re
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
README = os.path.join(ROOT, "README.md")
MAX_README_LINES = 400
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")
HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")


def slugify(title: str) -> str:
    """The anchor MkDocs (Python-Markdown's toc) gives a heading."""
    from markdown.extensions.toc import slugify as toc_slugify

    text = re.sub(r"`([^`]*)`", r"\1", title)           # inline code keeps its text
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)  # a link keeps its label
    text = re.sub(r"[*_]{1,2}([^*_]+)[*_]{1,2}", r"\1", text)
    return toc_slugify(text, "-")


def anchors(path: str) -> set[str]:
    """The anchors of the headings of a Markdown file (fenced code left out)."""
    found, fenced = set(), False
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            if line.lstrip().startswith("```"):
                fenced = not fenced
                continue
            m = None if fenced else HEADING.match(line.rstrip("\n"))
            if m:
                slug, k = slugify(m.group(2)), 1
                base = slug
                while slug in found:  # duplicates get _1, _2 ... as in toc
                    slug = f"{base}_{k}"
                    k += 1
                found.add(slug)
    return found


def readme_links() -> list[str]:
    with open(README, encoding="utf-8") as fh:
        text = re.sub(r"```.*?```", "", fh.read(), flags=re.DOTALL)
    return [u for u in LINK.findall(text) if not re.match(r"[a-z][a-z0-9+.-]*:", u)]


def test_site_builds_without_warnings(tmp_path):
    site = tmp_path / "site"
    p = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir",
                        str(site), "--config-file", os.path.join(ROOT, "mkdocs.yml")],
                       cwd=tmp_path, capture_output=True, text=True, timeout=120,
                       env=dict(os.environ, PYTHONDONTWRITEBYTECODE="1"))
    log = p.stdout + p.stderr
    assert p.returncode == 0, log[-4000:]
    assert "WARNING" not in log, log[-4000:]
    # every page of docs/ is in the site, and the API reference rendered the packages
    pages = [f[:-3] for f in os.listdir(os.path.join(ROOT, "docs")) if f.endswith(".md")]
    for page in pages:
        out = site / ("index.html" if page == "index" else os.path.join(page, "index.html"))
        assert out.is_file(), page
    api = (site / "api" / "index.html").read_text(encoding="utf-8")
    import accountant
    import mechanisms

    for pkg in (accountant, mechanisms):
        first = pkg.__doc__.strip().split("\n")[0].strip()
        assert html.escape(first, quote=False) in api, pkg.__name__
        for name in getattr(pkg, "__all__", ()):
            assert f'id="{pkg.__name__}.{name}"' in api, f"{pkg.__name__}.{name}"


def test_readme_is_short():
    with open(README, encoding="utf-8") as fh:
        n = sum(1 for _ in fh)
    assert n <= MAX_README_LINES, f"README.md has {n} lines (at most {MAX_README_LINES})"


def test_readme_has_links_into_docs():
    assert sum(u.startswith("docs/") for u in readme_links()) >= 10


@pytest.mark.parametrize("url", sorted(set(readme_links())))
def test_readme_link_target_exists(url):
    path, _, anchor = url.partition("#")
    target = os.path.normpath(os.path.join(ROOT, path)) if path else README
    assert os.path.exists(target), f"README.md links to a missing file: {url}"
    if anchor:
        assert target.endswith(".md"), f"anchor into a non-Markdown file: {url}"
        assert anchor in anchors(target), f"{url}: no heading with anchor #{anchor}"


def test_slugs_match_mkdocs():
    assert slugify("Findings: what is proved and what is not (read before citing a number)") == \
        "findings-what-is-proved-and-what-is-not-read-before-citing-a-number"
    assert slugify("Exact privacy blanket (`blanket`) and certified lower bound (`lower`)") == \
        "exact-privacy-blanket-blanket-and-certified-lower-bound-lower"
    assert "how-the-number-is-computed" in anchors(os.path.join(ROOT, "docs", "accountant.md"))
    assert "nope" not in anchors(os.path.join(ROOT, "docs", "accountant.md"))

"""The guide in docs/ builds without a warning, and the README's links lead somewhere.

The site is built with ``mkdocs build --strict`` into a temporary folder: ``strict`` turns
every warning into an error (a broken internal link or anchor, a page missing from the nav,
a mkdocstrings error in the API reference), as set in ``mkdocs.yml``.  The README is not
part of the site, so its relative links are checked here: each points to an existing file
and, where an anchor is given, to a heading of that Markdown file (slugs as MkDocs makes
them).  The README stays short: at most 120 lines.  The set-up commands of the README and of
the tutorials, which a test cannot run (they install), are checked instead: each is one of the
known forms, with a script that exists and extras that pyproject.toml declares.  The guide's
"Layout" names the packages as they are.
"""
from __future__ import annotations

import glob
import html
import os
import re
import shlex
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
README = os.path.join(ROOT, "README.md")
MAX_README_LINES = 120
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
    docs = os.path.join(ROOT, "docs")
    pages = [os.path.relpath(os.path.join(d, f), docs)[:-3] for d, _, fs in os.walk(docs)
             for f in fs if f.endswith(".md")]
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


# --- set-up commands (not run: they install) ------------------------------------------------

SETUP_PAGES = ["README.md", "docs/install.md"] + sorted(
    os.path.relpath(p, ROOT) for p in glob.glob(os.path.join(ROOT, "docs", "tutorial", "*.md")))


def bash_commands(path: str) -> list[str]:
    """The commands of the ``bash`` blocks of a Markdown file (``&&`` splits a line)."""
    with open(path, encoding="utf-8") as fh:
        blocks = re.findall(r"```bash\n(.*?)\n```", fh.read(), re.DOTALL)
    lines = [line for b in blocks for line in b.splitlines()]
    return [c.strip() for line in lines for c in line.split("&&") if c.strip()]


def _extras() -> set[str]:
    import tomllib

    with open(os.path.join(ROOT, "pyproject.toml"), "rb") as fh:
        return set(tomllib.load(fh)["project"]["optional-dependencies"])


def check_setup_command(cmd: str, venvs: set) -> str:
    """Why ``cmd`` is not a known set-up command ('' when it is); ``venvs`` collects the
    environments made so far on the page."""
    argv = shlex.split(cmd)
    if len(argv) == 2 and argv[0] == "bash":
        return "" if os.path.isfile(os.path.join(ROOT, argv[1])) else f"no script {argv[1]}"
    if argv[:3] == ["python3", "-m", "venv"] and len(argv) == 4:
        venvs.add(argv[3])
        return ""
    if len(argv) == 2 and argv[0] in ("source", "."):
        env = argv[1].removesuffix("/bin/activate")
        made = env in venvs and argv[1].endswith("/bin/activate")
        return "" if made else f"no venv made for {cmd}"
    if len(argv) == 4 and argv[0].endswith("/bin/pip") and argv[1:3] == ["install", "-e"]:
        if argv[0].removesuffix("/bin/pip") not in venvs:
            return f"pip of an environment the page does not make: {cmd}"
        m = re.fullmatch(r"\.(?:\[([a-z,]+)\])?", argv[3])
        if m is None:
            return f"not an install of this checkout: {cmd}"
        unknown = set((m.group(1) or "").split(",")) - {""} - _extras()
        return f"unknown extras {sorted(unknown)}" if unknown else ""
    return f"not a known set-up command: {cmd}"


@pytest.mark.parametrize("page", SETUP_PAGES)
def test_setup_commands_are_known(page):
    venvs: set = set()
    commands = bash_commands(os.path.join(ROOT, page))
    assert commands, f"{page} shows no set-up command"
    for cmd in commands:
        why = check_setup_command(cmd, venvs)
        assert not why, f"{page}: {why}"


def test_setup_check_refuses():
    venvs: set = set()
    assert check_setup_command("python3 -m venv ~/v", venvs) == ""
    assert check_setup_command("~/v/bin/pip install -e '.[docs,test]'", venvs) == ""
    assert check_setup_command("source ~/v/bin/activate", venvs) == ""
    why = check_setup_command("~/v/bin/pip install -e '.[nope]'", venvs)
    assert why.startswith("unknown extras")
    assert check_setup_command("~/w/bin/pip install -e .", venvs).startswith("pip of an")
    assert check_setup_command("bash scripts/missing.sh", venvs).startswith("no script")
    assert check_setup_command("curl x | sh", venvs).startswith("not a known")


# --- the guide's layout -----------------------------------------------------------------------

def test_layout_names_the_packages():
    """Every sub-package of accountant/ and mechanisms/ is named in docs/index.md's Layout, and
    every `name/` (a package) or `name` (a module or package) the Layout names under a package
    exists there."""
    with open(os.path.join(ROOT, "docs", "index.md"), encoding="utf-8") as fh:
        layout = fh.read().split("## Layout", 1)[1].split("\n## ", 1)[0]
    for pkg in ("accountant", "mechanisms"):
        subs = sorted(d for d in os.listdir(os.path.join(ROOT, pkg))
                      if os.path.isfile(os.path.join(ROOT, pkg, d, "__init__.py")))
        item = next(line for line in layout.split("\n* ")
                    if line.lstrip("* ").startswith(f"`{pkg}/`"))
        for sub in subs:
            assert f"`{sub}/`" in item, f"docs/index.md Layout does not name {pkg}/{sub}/"
        dirs, modules = set(), set()
        for d, _, files in os.walk(os.path.join(ROOT, pkg)):
            if "__init__.py" in files:
                dirs.add(os.path.basename(d))
            modules.update(f[:-3] for f in files if f.endswith(".py"))
        for name, slash in re.findall(r"`([a-z_]+)(/?)`", item):
            if name == pkg:
                continue
            ok = name in dirs if slash else (name in modules or name in dirs)
            assert ok, f"docs/index.md Layout names {name}{slash}, which is not in {pkg}/"


# --- code and pages state what is, not what was ------------------------------------------------

PACKAGE_DIRS = ("accountant", "mechanisms", "app", "scripts")
DATE = re.compile(r"\b(?:19|20)\d\d-[01]\d-[0-3]\d\b")
TIME_OF_DAY = re.compile(r"\b[0-2]\d:[0-5]\d(?:-[0-2]\d:[0-5]\d)? UTC\b")
ISSUE = re.compile(r"\b[Ii]ssues? \d+|(?<![\w&])#\d+\b")
HASH_LIKE = re.compile(r"(?<![.\w])(?=[0-9a-f]*[a-f])(?=[0-9a-f]*\d)(?![0-9]+e\b)"
                       r"[0-9a-f]{7,40}\b(?![-+])")
MEASURED = re.compile(r"\bmeasured\b[^.;]{0,60}?\d")


def _package_texts():
    """(place, kind, text) of every comment, docstring and other string of the package code."""
    import ast
    import io
    import tokenize

    for pkg in PACKAGE_DIRS:
        for path in sorted(glob.glob(os.path.join(ROOT, pkg, "**", "*.py"), recursive=True)):
            with open(path, encoding="utf-8") as fh:
                src = fh.read()
            rel = os.path.relpath(path, ROOT)
            docstrings = {n.body[0].value.lineno for n in ast.walk(ast.parse(src))
                          if isinstance(n, (ast.Module, ast.ClassDef, ast.FunctionDef,
                                            ast.AsyncFunctionDef))
                          and n.body and isinstance(n.body[0], ast.Expr)
                          and isinstance(n.body[0].value, ast.Constant)
                          and isinstance(n.body[0].value.value, str)}
            for tok in tokenize.generate_tokens(io.StringIO(src).readline):
                if tok.type == tokenize.COMMENT:
                    yield f"{rel}:{tok.start[0]}", "comment", tok.string.lstrip("#")
                elif tok.type == tokenize.STRING:
                    kind = "docstring" if tok.start[0] in docstrings else "string"
                    yield f"{rel}:{tok.start[0]}", kind, tok.string


def _history_marks(kind: str, text: str) -> list[str]:
    found = DATE.findall(text)
    if kind in ("comment", "docstring"):
        found += ISSUE.findall(text) + MEASURED.findall(text)
    if kind == "comment":
        found += HASH_LIKE.findall(text)
    return found


def test_package_code_states_what_is():
    """No date, issue number or "measured" figure in the package's comments and docstrings (no
    date in any of its strings), and no commit-hash-like token in a comment: the code states
    what holds; measurements are results data (benchmarks/results/, docs/BENCHMARKS.md)."""
    bad = [f"{place}: {marks}" for place, kind, text in _package_texts()
           if (marks := _history_marks(kind, text))]
    assert not bad, "\n".join(bad)


def test_history_check_sees_them():
    assert _history_marks("comment", "# fixed in issue 43, see #41 and 9bf556e (2026-11-27)") == \
        ["2026-11-27", "issue 43", "#41", "9bf556e"]
    assert _history_marks("docstring", '"""measured: 0.9 s at n = 1e8"""') == ["measured: 0"]
    assert _history_marks("string", "'color:#444; measured 3 s'") == []
    assert _history_marks("comment", "# 2.5e-8 at n = 1e10, 4.24276e-5, ratio 1234567e") == []


def test_pages_carry_no_date_or_time_of_day():
    """README.md and docs/ carry no date or time of day; measurements with their dates are the
    results data that docs/BENCHMARKS.md is generated from."""
    pages = [README] + sorted(glob.glob(os.path.join(ROOT, "docs", "**", "*.md"), recursive=True))
    generated = {os.path.join(ROOT, "docs", "BENCHMARKS.md")}
    bad = []
    for page in pages:
        if page in generated:
            continue
        with open(page, encoding="utf-8") as fh:
            for i, line in enumerate(fh, 1):
                if DATE.search(line) or TIME_OF_DAY.search(line):
                    bad.append(f"{os.path.relpath(page, ROOT)}:{i}: {line.strip()[:100]}")
    assert not bad, "\n".join(bad)


def test_docs_examples_outputs_are_ignored_by_git():
    """A reader who runs the docs' command examples from the checkout gets no untracked files:
    every ``--out NAME`` of a ``console`` block (and its sidecar: NAME.csv.json, NAME.bib) is
    in .gitignore."""
    pages = [README] + sorted(glob.glob(os.path.join(ROOT, "docs", "**", "*.md"), recursive=True))
    names = set()
    for page in pages:
        with open(page, encoding="utf-8") as fh:
            for block in re.findall(r"```console\n(.*?)```", fh.read(), re.DOTALL):
                names.update(re.findall(r"--out\s+([^\s\\]+)", block))
    assert names, "the docs' examples write no file: the check looks at nothing"
    paths = set(names)
    paths |= {n + ".json" for n in names if n.endswith(".csv")}
    paths |= {n[:-4] + ".bib" for n in names if n.endswith(".tex")}
    out = subprocess.run(["git", "check-ignore", "--no-index", "--verbose", "--non-matching",
                          *sorted(paths)], cwd=ROOT, capture_output=True, text=True)
    missing = [ln.split("\t", 1)[1] for ln in out.stdout.splitlines() if ln.startswith("::")]
    assert not missing, f"not in .gitignore: {missing}"

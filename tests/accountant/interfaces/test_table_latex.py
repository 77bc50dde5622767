"""The LaTeX table at the default columns compiles in one column of a two-column article.

pdflatex + bibtex + pdflatex x2 in tmp_path on the real command's output (Collision, CoCo
and k-RR grids); the test fails on a LaTeX error, an overfull \\hbox (the table is wider
than the column) or an undefined citation (the .bib beside the table lacks an entry).
"""
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from tests.paths import REPO_ROOT

ROOT = Path(REPO_ROOT)
TEXLIVE = "texlive-latex-base texlive-latex-recommended texlive-latex-extra"

GRIDS = {
    "collision": ["--mechanism", "collision", "--s", "4"],
    "coco": ["--mechanism", "coco", "--s", "4"],
    "coco-two-s": ["--mechanism", "coco", "--s", "4,16"],  # s (and t) vary: two more columns
    "krr": ["--mechanism", "krr", "--k", "8"],
    "oue": ["--mechanism", "oue", "--k", "100"],
    "olh-two-k": ["--mechanism", "olh", "--k", "100,1000"],  # k varies: one more column
}

DOCUMENT = r"""\documentclass[twocolumn]{article}
%(packages)s
\begin{document}
A two-column article: Table~\ref{%(label)s} must fit this column.
\input{%(stem)s}
\bibliographystyle{plain}
\bibliography{%(stem)s}
\end{document}
"""


def _tool(name: str) -> str:
    path = shutil.which(name)
    if path is None:
        pytest.fail(f"{name} is missing: install Debian's {TEXLIVE} (scripts/test.sh does)")
    return path


def _run(cmd, cwd):
    return subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=300)


@pytest.mark.parametrize("mechanism", sorted(GRIDS))
def test_default_table_compiles_in_one_column(tmp_path, mechanism):
    pdflatex, bibtex = _tool("pdflatex"), _tool("bibtex")
    out = tmp_path / "t.tex"
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    r = subprocess.run([sys.executable, "-m", "accountant", "table", "--n", "10000,100000",
                        "--eps0", "0.5,1,2", "--delta", "1e-6", *GRIDS[mechanism], "--workers", "1",
                        "--out", str(out)], capture_output=True, text=True, cwd=tmp_path, env=env,
                       timeout=600)
    assert r.returncode == 0, r.stderr
    tex = out.read_text()
    bib = (tmp_path / "t.bib").read_text()
    # the packages the table needs are listed on top as comment lines
    packages = re.search(r"^% Requires: (.*)$", tex, re.M).group(1)
    assert r"\usepackage{booktabs}" in packages
    label = re.search(r"\\label\{([^}]*)\}", tex).group(1)
    for rule in (r"\toprule", r"\midrule", r"\bottomrule", r"\caption{"):
        assert rule in tex
    cited = set(k for group in re.findall(r"\\cite\{([^}]*)\}", tex) for k in group.split(","))
    assert "wang2023numerical" in cited and len(cited) >= 2
    for key in cited:
        assert re.search(r"@\w+\{" + key + ",", bib), key
    (tmp_path / "doc.tex").write_text(DOCUMENT % {"packages": packages.replace(", ", "\n"),
                                                  "label": label, "stem": "t"})
    latex = [pdflatex, "-interaction=nonstopmode", "-halt-on-error", "doc.tex"]
    first = _run(latex, tmp_path)
    assert first.returncode == 0, first.stdout[-3000:]
    b = _run([bibtex, "doc"], tmp_path)
    assert b.returncode == 0, b.stdout + (tmp_path / "doc.blg").read_text()
    for _ in range(2):
        last = _run(latex, tmp_path)
        assert last.returncode == 0, last.stdout[-3000:]
    log = (tmp_path / "doc.log").read_text(errors="replace")
    assert "Overfull \\hbox" not in log, re.findall(r"Overfull \\hbox.*", log)
    assert not re.search(r"Citation `[^']*' .*undefined", log), re.findall(r"Citation .*undefined.*", log)
    assert "There were undefined references" not in log
    assert "Warning--I didn't find a database entry" not in (tmp_path / "doc.blg").read_text()
    assert (tmp_path / "doc.pdf").stat().st_size > 0

"""The LaTeX and BibTeX renderings of a table: escaped cells, math-mode numbers, a caption and
label from the rows, citations of the bounds shown.  A module because the TeX rules (escaping,
headers, captions) are their own concern, apart from the plain-text formats.
"""
from __future__ import annotations
import math
from typing import Optional, Sequence

from accountant.core.params import MECHANISM_SPECS
from accountant.core.numfmt import fmt
from accountant.interfaces.tables.columns import FIELDS, bound_registry, wide_columns
from accountant.interfaces.tables.provenance import meta_lines
from accountant.interfaces.tables.formats import DEFAULT_DIGITS, INPUT_DIGITS, cell_text, check_digits


_TEX_ESCAPE = {"_": r"\_", "%": r"\%", "&": r"\&", "#": r"\#", "[": "{[}", "]": "{]}", "$": r"\$",
               "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}",
               "\\": r"\textbackslash{}"}


def _tex(s: str) -> str:
    return "".join(_TEX_ESCAPE.get(ch, ch) for ch in str(s))


def _cite(bound: Optional[str]) -> str:
    reg = bound_registry()
    if bound is None or bound not in reg or not reg[bound].cite:
        return _tex(bound) if bound else "n/a"
    return r"\cite{" + ",".join(reg[bound].cite) + "}"


def _tex_head(col: str) -> str:
    reg = bound_registry()
    if col in FIELDS:
        return FIELDS[col][0]
    if col in reg:
        return r"\texttt{" + _tex(col) + "}" + (r"~" + _cite(col) if reg[col].cite else "")
    if col.startswith("log2_ratio[") and col[11:-1] in reg:
        return r"$\log_2(\varepsilon_0/\varepsilon_c)$ \texttt{" + _tex(col[11:-1]) + "}"
    return _tex(col)


_TEXT_COLUMNS = ("mechanism", "best_proved", "best_literature", "bound", "kind", "proved")


def _tex_number(text: str) -> str:
    """A printed number in math notation: 1.5e-6 -> 1.5\\times10^{-6}, 1e-6 -> 10^{-6},
    100,000 -> 10^{5} (the exact powers of ten of n), 12,345 -> 12\\,345."""
    if "e" in text:
        mant, exp = text.split("e")
        if mant == "1":
            return f"10^{{{int(exp)}}}"
        return f"{mant}\\times10^{{{int(exp)}}}"
    digits = text.replace(",", "")
    if digits.isdigit() and len(digits) > 3 and digits.strip("0") == "1":
        return f"10^{{{len(digits) - 1}}}"
    if "," in text:
        return text.replace(",", r"\,")
    return text


def _math(text: str) -> str:
    return f"${text}$" if ("\\" in text or "^" in text) else text


def _tex_cell(row: dict, col: str, digits: int) -> str:
    v = row.get(col)
    if col in ("best_proved", "best_literature", "bound"):
        return _cite(v) if col != "bound" else r"\texttt{" + _tex(v) + "}"
    if col in _TEXT_COLUMNS or isinstance(v, str):
        return _tex("n/a" if v is None else v)
    if v is None or (isinstance(v, float) and not math.isfinite(v)):
        return "n/a" if v is None or math.isnan(v) else _tex(fmt(v))
    if col == "delta" and isinstance(v, float):
        return _math(_tex_number(fmt(v, INPUT_DIGITS["text"])))
    return _math(_tex_number(cell_text(row, col, digits, thousands=True)))


def _tex_value(v) -> str:
    if isinstance(v, float):
        return "$" + _tex_number(fmt(v, INPUT_DIGITS["text"])) + "$"
    if isinstance(v, int) and not isinstance(v, bool):
        return "$" + _tex_number(fmt(v)) + "$"
    return _tex(v)


MECH_NAMES = {name: spec.tex for name, spec in MECHANISM_SPECS.items() if spec.tex}


def _caption(rows: Sequence[dict], cols: Sequence[str], meta: Optional[dict]) -> str:
    fixed = []
    if rows:
        for k, name in (("n", "n"), ("s", "s"), ("t", "t"), ("k", "k"), ("eps0", r"\varepsilon_0"),
                        ("delta", r"\delta")):
            vals = {r.get(k) for r in rows}
            if len(vals) == 1 and None not in vals:
                fixed.append(f"${name} = {_tex_value(next(iter(vals))).strip('$')}$")
    mech = MECH_NAMES.get(rows[0]["mechanism"], _tex(rows[0]["mechanism"])) if rows else ""
    text = f"Central $\\varepsilon_c$ of shuffled {mech}" + (f" ({', '.join(fixed)})" if fixed else "") + ". "
    if "t" not in cols and any(r.get("t") is not None for r in rows) and not any(
            f.startswith("$t ") for f in fixed):
        text += r"$t$ by the mechanism's default rule. "
    notes = []
    if "proved_epsilon" in cols:
        notes.append(r"$\varepsilon_c$: smallest proved upper bound (rounded up)")
    if "lower_epsilon" in cols:
        notes.append(r"lower: certified lower bound on the mechanism's $\varepsilon_c$ (rounded down)")
    if "paper_epsilon" in cols:
        notes.append(r"$^{*}$Theorem~5 of~\cite{wang2023numerical}, not a proved bound")
    if "literature_epsilon" in cols or "best_literature" in cols:
        notes.append(r"prior: best previously published proved bound (rounded up)")
    if "saving_percent" in cols:
        notes.append(r"saved: $100\,(\mathrm{prior}-\varepsilon_c)/\mathrm{prior}$ in percent (rounded down)")
    if notes:
        text += "; ".join(notes) + "."
    if any(r.get("hash_model") == "random" for r in rows):
        text += (" Proved under the assumption that each report's hash is a uniformly random "
                 "function (hash model \\texttt{random}); not proved for a fixed hash family.")
    return text


def _label(rows: Sequence[dict]) -> str:
    mech = rows[0]["mechanism"] if rows else "bounds"
    return f"tab:shuffle-{mech}"


def cited_keys(rows: Sequence[dict], columns: Sequence[str]) -> list[str]:
    """BibTeX keys a LaTeX table with these columns cites (heads, cells, caption)."""
    reg = bound_registry()
    keys: list[str] = []
    for c in columns:
        if c in reg:
            keys += reg[c].cite
        if c == "paper_epsilon":
            keys += reg["paper"].cite
        if c in ("best_literature", "best_proved"):
            for r in rows:
                if r.get(c) in reg:
                    keys += reg[r[c]].cite
    return list(dict.fromkeys(keys))


def to_latex(rows: Sequence[dict], columns: Optional[Sequence[str]] = None, digits: int = DEFAULT_DIGITS,
             meta: Optional[dict] = None, wide: Optional[bool] = None, bib_stem: Optional[str] = None) -> str:
    """A booktabs table: provenance and required packages as ``%`` lines on top, a caption
    stating the fixed parameters, a label, math heads, numbers right-aligned with the same
    significant digits, each bound's head citing its paper (the best published bound's
    column head when one bound is the best on every row, else each row's ``ref.`` cell).  ``wide`` (default: more than 12 columns)
    sets it as a landscape longtable."""
    check_digits(digits)
    cols = list(columns) if columns is not None else wide_columns(rows)
    wide = len(cols) > 12 if wide is None else wide
    packages = ["booktabs"] + (["longtable", "pdflscape"] if wide else [])
    lines = ["% " + line.replace("\n", " ") for line in meta_lines(meta)]
    lines += ["% Requires: " + ", ".join(r"\usepackage{%s}" % p for p in packages)]
    if bib_stem:
        lines.append(f"% Citations: BibTeX entries in {bib_stem}.bib (\\bibliography{{{bib_stem}}})")
    heads = {c: _tex_head(c) for c in cols}
    prior = {r.get("best_literature") for r in rows}
    if "best_literature" in cols and "literature_epsilon" in cols and len(prior) == 1:
        # one prior bound for every row: cite it in the head of its column, not in each row
        heads["literature_epsilon"] += "~" + _cite(next(iter(prior)))
        cols = [c for c in cols if c != "best_literature"]
    spec = "".join("l" if c in _TEXT_COLUMNS else "r" for c in cols)
    head = " & ".join(heads[c] for c in cols) + r" \\"
    body = [" & ".join(_tex_cell(r, c, digits) for c in cols) + r" \\" for r in rows]
    caption = r"\caption{" + _caption(rows, cols, meta) + "}"
    label = r"\label{" + _label(rows) + "}"
    if wide:
        lines += [r"\begin{landscape}", r"\scriptsize", r"\setlength{\tabcolsep}{2pt}",
                  r"\begin{longtable}{" + spec + "}", caption + label + r" \\", r"\toprule", head,
                  r"\midrule", r"\endhead", r"\bottomrule", r"\endfoot", *body,
                  r"\end{longtable}", r"\end{landscape}"]
    else:
        lines += [r"\begin{table}[tbp]", r"\centering", r"\footnotesize", r"\setlength{\tabcolsep}{2pt}",
                  caption, label, r"\begin{tabular}{@{}" + spec + "@{}}", r"\toprule", head, r"\midrule",
                  *body, r"\bottomrule", r"\end{tabular}", r"\end{table}"]
    return "\n".join(lines) + "\n"


def to_bibtex(rows: Sequence[dict], columns: Sequence[str], meta: Optional[dict] = None) -> str:
    """The BibTeX entries the table cites (registry keys, :mod:`accountant.bounds.references`)."""
    from accountant.bounds.references import bibtex

    head = "".join(f"% {line}\n" for line in meta_lines(meta))
    return head + "\n" + bibtex(cited_keys(rows, columns))

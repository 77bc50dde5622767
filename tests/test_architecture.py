"""The architecture as a test: imports point down the layers, no import circle, small modules.

Every ``import`` / ``from ... import`` in ``accountant``, ``mechanisms`` and ``app`` (also the
ones inside functions) is an edge of a graph. Each module belongs to the layer of its
sub-package (``LAYERS``); an edge may stay in its layer or go to a lower one, never up, and
the graph has no cycle. A module over ``MAX_LINES`` lines is a sign that a concept wants a
module of its own. A module's docstring says what it holds, not where it came from (no
"(was ...)"), and a name another module imports is public: at most ``MAX_PRIVATE_IMPORTS``
``from x import _name`` across modules remain, each with a comment on its line. No function
is over ``MAX_FUNCTION_LINES`` lines (a reader holds a step on a screen or two), but those in
``LONG_FUNCTIONS``, each with its reason.
"""
from __future__ import annotations

import ast
import os

import pytest

from tests.paths import REPO_ROOT

MAX_LINES = 600
MAX_PRIVATE_IMPORTS = 10  # issue 40: 137 before, 0 after
MAX_FUNCTION_LINES = 120  # issue 40: plan() had 245 lines, build_parser 134, local_epsilon 132
# functions allowed over MAX_FUNCTION_LINES: "module:function" -> why
LONG_FUNCTIONS: dict = {}

# sub-package -> layer; a module takes the layer of the longest matching prefix
LAYERS = {
    "accountant.core": 0,
    "accountant.engines": 1,
    "accountant.bounds": 2,
    "accountant.protocols": 2,
    "accountant.composition": 3,
    "accountant.accounting": 3,
    "accountant": 4,  # the package itself: the public API re-exports the layers above
    "mechanisms.core": 5,
    "mechanisms.analysis": 5,
    "mechanisms.randomizers": 6,
    "mechanisms.baselines": 6,
    "mechanisms.frequency": 6,
    "mechanisms.evaluation": 7,
    "mechanisms.planning": 7,
    "mechanisms": 8,  # public API
    "accountant.interfaces": 9,
    "mechanisms.interfaces": 9,
    "accountant.__main__": 10,
    "mechanisms.__main__": 10,
    "app": 11,
}
ROOTS = ("accountant", "mechanisms", "app")


def _modules() -> dict:
    mods = {}
    for root in ROOTS:
        for dp, dn, fs in os.walk(os.path.join(REPO_ROOT, root)):
            dn[:] = [d for d in dn if d != "__pycache__"]
            for f in fs:
                if f.endswith(".py"):
                    path = os.path.join(dp, f)
                    rel = os.path.relpath(path, REPO_ROOT)[:-3].replace(os.sep, ".")
                    name = rel[: -len(".__init__")] if rel.endswith(".__init__") else rel
                    mods[name] = path
    return mods


MODULES = _modules()


def _base(name: str, path: str, node: ast.ImportFrom) -> str:
    """The absolute module a ``from ... import`` reads from (relative imports resolved)."""
    pkg = name if path.endswith("__init__.py") else name.rsplit(".", 1)[0]
    base = node.module or ""
    if node.level:
        parts = pkg.split(".")
        base = ".".join(parts[: len(parts) - node.level + 1] + ([base] if base else []))
    return base


def _imports(name: str, path: str) -> set:
    tree = ast.parse(open(path, encoding="utf-8").read())
    out = set()
    for n in ast.walk(tree):
        if isinstance(n, ast.ImportFrom):
            base = _base(name, path, n)
            for a in n.names:
                full = f"{base}.{a.name}"
                out.add(full if full in MODULES else base)
        elif isinstance(n, ast.Import):
            out.update(a.name for a in n.names)
    # pages put app/ on sys.path and import its modules by their bare names
    if name.startswith("app."):
        out = {f"app.{m}" if f"app.{m}" in MODULES else m for m in out}
    return {m for m in out if m in MODULES and m != name}


GRAPH = {m: _imports(m, p) for m, p in MODULES.items()}


def layer(mod: str) -> int:
    best = None
    for prefix, lv in LAYERS.items():
        if mod == prefix or mod.startswith(prefix + "."):
            if best is None or len(prefix) > len(best[0]):
                best = (prefix, lv)
    assert best is not None, f"{mod} belongs to no layer: add its sub-package to LAYERS"
    return best[1]


def test_every_module_has_a_layer():
    for m in MODULES:
        layer(m)


def test_imports_point_down_the_layers():
    bad = [f"{m} (layer {layer(m)}) imports {d} (layer {layer(d)})"
           for m, ds in GRAPH.items() for d in ds if layer(d) > layer(m)]
    assert not bad, "upward imports:\n" + "\n".join(sorted(bad))


def cycles_of(graph: dict) -> list:
    """The cycles a depth-first walk of ``graph`` (module -> modules it imports) meets."""
    state, cycles = {}, []

    def visit(m, stack):
        state[m] = 1
        stack.append(m)
        for d in sorted(graph[m]):
            if state.get(d) == 1:
                cycles.append(" -> ".join(stack[stack.index(d):] + [d]))
            elif d not in state:
                visit(d, stack)
        stack.pop()
        state[m] = 2

    for m in sorted(graph):
        if m not in state:
            visit(m, [])
    return cycles


def test_no_import_cycle():
    cycles = cycles_of(GRAPH)
    assert not cycles, "import cycles:\n" + "\n".join(cycles)


def test_the_graph_sees_real_edges():
    # the check above would pass on an empty graph: make sure it parses what it should
    assert "accountant.core.params" in GRAPH["accountant.accounting.shuffle"]
    assert any(d.startswith("accountant.engines") for d in GRAPH["accountant.bounds.registry"])


@pytest.mark.parametrize("mod", sorted(MODULES))
def test_module_size(mod):
    n = sum(1 for _ in open(MODULES[mod], encoding="utf-8"))
    assert n <= MAX_LINES, f"{mod} has {n} lines (at most {MAX_LINES}): split it by concept"


def test_every_package_says_what_it_holds_and_may_import():
    for m, p in MODULES.items():
        if p.endswith("__init__.py") and m.count(".") == 1 and not m.startswith("app"):
            doc = ast.get_docstring(ast.parse(open(p, encoding="utf-8").read())) or ""
            assert "May import" in doc, f"{m}/__init__.py: docstring must say what it may import"


def private_imports(modules: dict) -> list:
    """Every ``from x import _name`` of a package module where x is another module of the
    packages: (importer, line, "x._name", the line's text)."""
    out = []
    for m, p in modules.items():
        src = open(p, encoding="utf-8").read()
        lines = src.splitlines()
        for n in ast.walk(ast.parse(src)):
            if not isinstance(n, ast.ImportFrom):
                continue
            base = _base(m, p, n)
            if m.startswith("app.") and f"app.{base}" in modules:
                base = f"app.{base}"  # pages import app/ modules by their bare names
            if base not in modules or base == m:
                continue
            for a in n.names:
                if a.name.startswith("_") and not a.name.startswith("__"):
                    end = n.end_lineno or n.lineno
                    text = " ".join(lines[n.lineno - 1:end])
                    out.append((m, n.lineno, f"{base}.{a.name}", text))
    return out


def test_few_private_names_cross_a_module_boundary():
    found = private_imports(MODULES)
    listing = "\n".join(f"  {m}:{line} imports {what}" for m, line, what, _ in sorted(found))
    assert len(found) <= MAX_PRIVATE_IMPORTS, (
        f"{len(found)} private names imported from another module (at most {MAX_PRIVATE_IMPORTS}): "
        f"make each public in its module (drop the underscore, rename the call sites) or move "
        f"the code to where it is used:\n{listing}")
    silent = [f"  {m}:{line} imports {what}" for m, line, what, text in sorted(found) if "#" not in text]
    assert not silent, "a private import that stays needs a comment saying why:\n" + "\n".join(silent)


def test_private_import_check_sees_them(tmp_path):
    # the check above passes on an empty list: make sure it finds a private import (relative
    # and absolute) and ignores dunders and imports from outside the packages
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "a.py").write_text("_x = 1\n")
    (pkg / "b.py").write_text("from pkg.a import _x\nfrom .a import _x as y  # why\n"
                              "from pkg.a import __doc__\nfrom os import _exit\n")
    mods = {"pkg": str(pkg / "__init__.py"), "pkg.a": str(pkg / "a.py"), "pkg.b": str(pkg / "b.py")}
    found = private_imports(mods)
    assert [(m, line, what) for m, line, what, _ in found] == [("pkg.b", 1, "pkg.a._x"), ("pkg.b", 2, "pkg.a._x")]
    assert "# why" in found[1][3] and "#" not in found[0][3]


@pytest.mark.parametrize("mod", sorted(MODULES))
def test_module_docstring_says_what_it_holds_not_its_history(mod):
    doc = ast.get_docstring(ast.parse(open(MODULES[mod], encoding="utf-8").read())) or ""
    assert "(was " not in doc, (
        f"{mod}: the module docstring tells history ({doc.splitlines()[0]!r}); say what the module "
        f"holds and why it is a module (the history is in git and docs/architecture.md)")


def long_functions(modules: dict, limit: int) -> list:
    """(module:function, lines) of every function (methods and nested ones too) over
    ``limit`` lines, decorators and docstring included."""
    out = []
    for m, p in modules.items():
        for n in ast.walk(ast.parse(open(p, encoding="utf-8").read())):
            if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)):
                first = min([n.lineno] + [d.lineno for d in n.decorator_list])
                size = n.end_lineno - first + 1
                if size > limit:
                    out.append((f"{m}:{n.name}", size))
    return sorted(out)


def test_no_function_over_the_limit():
    found = long_functions(MODULES, MAX_FUNCTION_LINES)
    bad = [f"  {name} has {size} lines" for name, size in found if name not in LONG_FUNCTIONS]
    assert not bad, (
        f"functions over {MAX_FUNCTION_LINES} lines: split each into steps a reader can hold "
        f"(or, with a reason, add it to LONG_FUNCTIONS):\n" + "\n".join(bad))
    stale = set(LONG_FUNCTIONS) - {name for name, _ in found}
    assert not stale, f"LONG_FUNCTIONS lists functions that are no longer long: {sorted(stale)}"
    assert all(why.strip() for why in LONG_FUNCTIONS.values())


def test_function_length_check_sees_them(tmp_path):
    body = "\n".join(f"    x{i} = {i}" for i in range(8))
    src = (f"def short():\n{body}\n\n@staticmethod\ndef long():\n{body}\n{body}\n\n"
           f"class C:\n    def method(self):\n    {body.replace(chr(10), chr(10) + '    ')}\n"
           f"    {body.replace(chr(10), chr(10) + '    ')}\n")
    (tmp_path / "m.py").write_text(src)
    found = long_functions({"m": str(tmp_path / "m.py")}, 12)
    assert found == [("m:long", 18), ("m:method", 17)]


# ------------------------------------------------------------- the mechanism registry
# A list of mechanism names is a query on accountant.core.params.MECHANISM_SPECS
# (``mechanism_names(keyed=True)``), never a literal kept by hand: a literal is where a new
# mechanism is forgotten.  REGISTRY_HOME holds the registry; NAME_LITERALS the module-level
# literals that remain, each with its reason (the test fails on one that is gone).
REGISTRY_HOME = "accountant.core.params"
NAME_LITERALS = {
    "app.pages.2_Utility:COL": "chart colours",
    "app.pages.3_Planner:colors": "chart colours",
    "mechanisms.baselines:BASELINES": "the baselines' estimator classes by name (the utility layer's, not the accountant's)",
    "mechanisms.evaluation.simulate:BASELINE_NAMES": "the simulation's baselines (the utility layer's names)",
}


def _string_items(node) -> tuple:
    """(the str constants of a tuple/list/set literal or of a dict's keys, the element count);
    a sum of literals counts as one."""
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        items = node.elts
    elif isinstance(node, ast.Dict):
        items = [k for k in node.keys if k is not None]
    elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        a, na = _string_items(node.left)
        b, nb = _string_items(node.right)
        return a + b, na + nb
    else:
        return [], 0
    return [e.value for e in items if isinstance(e, ast.Constant) and isinstance(e.value, str)], len(items)


def mechanism_name_literals(modules: dict, names: set) -> list:
    """``module:target`` of every module-level literal holding two or more mechanism names
    (at least half of its elements)."""
    out = []
    for m, path in sorted(modules.items()):
        for node in ast.parse(open(path, encoding="utf-8").read()).body:
            if not isinstance(node, (ast.Assign, ast.AnnAssign)) or node.value is None:
                continue
            vals, count = _string_items(node.value)
            hits = [v for v in vals if v in names]
            if len(hits) >= 2 and 2 * len(hits) >= count:
                target = node.targets[0] if isinstance(node, ast.Assign) else node.target
                out.append(f"{m}:{ast.unparse(target)}")
    return out


def _mechanism_names() -> set:
    from accountant.core.params import MECHANISMS

    return set(MECHANISMS) | {"finite"}


def test_no_list_of_mechanism_names_outside_the_registry():
    found = mechanism_name_literals({m: p for m, p in MODULES.items() if m != REGISTRY_HOME},
                                    _mechanism_names())
    bad = [f for f in found if f not in NAME_LITERALS]
    assert not bad, ("module-level lists of mechanism names (ask the registry instead: "
                     "accountant.core.params.mechanism_names(...)):\n" + "\n".join(bad))
    stale = set(NAME_LITERALS) - set(found)
    assert not stale, f"NAME_LITERALS lists literals that are gone: {sorted(stale)}"
    assert all(why.strip() for why in NAME_LITERALS.values())


def test_mechanism_name_check_sees_them(tmp_path):
    (tmp_path / "m.py").write_text('A = ("krr", "olh")\nB = {"rr": 1, "coco": 2, "x": 3}\n'
                                   'C = ("krr", "x", "y")\nD = ("a",) + ("generic", "oue")\n'
                                   'def f():\n    E = ("krr", "olh")\n')
    found = mechanism_name_literals({"m": str(tmp_path / "m.py")}, _mechanism_names())
    assert found == ["m:A", "m:B", "m:D"]


# comparisons against a mechanism name: the registry (core.params) and the types' own
# validation hold the names; the layers above dispatch on the type or ask a capability
MAX_NAME_COMPARISONS = 12  # 181 before the dispatch on types
NO_NAME_COMPARISONS = ("accountant.interfaces", "app")


def mechanism_name_comparisons(modules: dict, names: set) -> list:
    """``module:line`` of every comparison (``==``, ``!=``, ``in``, ``not in``) with a string
    literal, or a literal tuple, list or set of them, holding a mechanism name."""
    out = []
    for m, path in sorted(modules.items()):
        for node in ast.walk(ast.parse(open(path, encoding="utf-8").read())):
            if not isinstance(node, ast.Compare):
                continue
            vals = []
            for side in (node.left, *node.comparators):
                if isinstance(side, ast.Constant) and isinstance(side.value, str):
                    vals.append(side.value)
                elif not isinstance(side, ast.Dict):
                    vals += _string_items(side)[0]
            if any(v in names for v in vals):
                out.append(f"{m}:{node.lineno}")
    return out


def test_few_mechanism_name_comparisons():
    # the registry's named mechanisms; ``finite`` (the command line's matrix route, a
    # FiniteRandomizer in the library) is not one of them
    from accountant.core.params import MECHANISMS

    found = mechanism_name_comparisons({m: p for m, p in MODULES.items() if m != REGISTRY_HOME},
                                       set(MECHANISMS))
    top = [f for f in found if f.startswith(NO_NAME_COMPARISONS)]
    assert not top, ("interfaces and pages ask the registry or dispatch on the type, never compare "
                     "a mechanism name:\n" + "\n".join(top))
    assert len(found) <= MAX_NAME_COMPARISONS, (
        f"{len(found)} comparisons with a mechanism name (at most {MAX_NAME_COMPARISONS}): dispatch on "
        "the parameter type or ask the registry instead:\n" + "\n".join(found))


def test_name_comparison_check_sees_them(tmp_path):
    (tmp_path / "m.py").write_text('def f(p, m):\n    a = p.name == "krr"\n    b = m in ("olh", "x")\n'
                                   '    c = p.name == "x"\n    return "coco" != m\n')
    found = mechanism_name_comparisons({"m": str(tmp_path / "m.py")}, _mechanism_names())
    assert found == ["m:2", "m:3", "m:5"]


def _top_level_imports(name: str, path: str) -> set:
    """The modules ``name`` imports when it is imported (statements at module level, also inside
    a top-level ``if`` or ``try``), with the package ``__init__`` each import runs on the way
    (``from a.b import c`` runs a/__init__ and a/b/__init__; the importer's own packages are
    already initialising and are left out)."""
    tree = ast.parse(open(path, encoding="utf-8").read())
    nodes, out = list(tree.body), set()
    while nodes:
        n = nodes.pop()
        if isinstance(n, (ast.If, ast.Try)):
            nodes.extend(n.body + n.orelse + getattr(n, "finalbody", []) +
                         [s for h in getattr(n, "handlers", []) for s in h.body])
        elif isinstance(n, ast.ImportFrom):
            base = _base(name, path, n)
            out.update(f"{base}.{a.name}" if f"{base}.{a.name}" in MODULES else base for a in n.names)
        elif isinstance(n, ast.Import):
            out.update(a.name for a in n.names)
    if name.startswith("app."):
        out = {f"app.{m}" if f"app.{m}" in MODULES else m for m in out}
    own = {".".join(name.split(".")[:i]) for i in range(1, name.count(".") + 1)}
    inits = {".".join(m.split(".")[:i]) for m in out for i in range(1, m.count(".") + 1)}
    return {m for m in out | (inits - own) if m in MODULES and m != name}


def test_no_import_cycle_at_import_time():
    # the cycle a package __init__ closes (main -> cli -> main) is invisible to the module graph
    cycles = cycles_of({m: _top_level_imports(m, p) for m, p in MODULES.items()})
    assert not cycles, "import-time cycles (through package __init__ files):\n" + "\n".join(cycles)

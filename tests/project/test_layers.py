"""The package's layers, enforced: what may import what (docs/architecture.md draws the same floors).

Every module's imports are read from its source, not by importing it: `ast` for the .py files (imports
anywhere in the file, also those inside functions, and `importlib.import_module("thurn_ai....")` with a
literal name), the import lines for the compiled modules' .pyx sources and the .pxi files they include.
The rules:

  (a) no library module (thurn_ai/*.py except cli.py, thurn_ai/bots/*.py) imports thurn_ai.commands or
      thurn_ai.cli: the library works without the command line;
  (b) the bots never import the command line, match or tournament (matches use bots, not the reverse);
  (c) the compiled core (cext/thurn_ai/_core.pyx) imports nothing from the Python package above it: the
      package hands it notation, positions and its error type from above (thurn_ai/__init__.py,
      _core.install) and registers pickling with copyreg (thurn_ai/game/state.py);
  (d) in general a module imports only modules on its own floor or below (FLOORS, lowest first), and
      every module of the package has a floor: a new module is placed here and in docs/architecture.md;
  (e) no import loop at all, within a floor too (imports inside functions count), and none between the
      browser's ES modules (web/static/*.js, static and dynamic `import`);
  (f) no module of the library is over MAX_LINES lines: no Python module and no source file of the
      compiled modules (cext/: .pyx, the .pxi parts a .pyx includes as text, .pxd); no Python function of
      the library is over MAX_FUNCTION_LINES lines;
  (g) each folder of the package is on one floor (a folder's listing shows what it may import);
  (h) the scripts in experiments/ are entry points over the library: they import no other script and
      nothing of tests/, and do not edit sys.path (what they share is in the library, with tests).
"""
from __future__ import annotations

import ast
import os
import re
from fnmatch import fnmatch
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PKG = ROOT / "src" / "thurn_ai"
CEXT = ROOT / "cext" / "thurn_ai"
COMPILED = ("thurn_ai._core", "thurn_ai._policy", "thurn_ai._search")

# The floors, lowest first: a module may import its own floor and the floors below it (rule d).
# Patterns are fnmatch patterns over dotted module names. Same as docs/architecture.md.
FLOORS = {
    "base": ["thurn_ai.errors", "thurn_ai.fileio", "thurn_ai.extras"],
    "core": ["thurn_ai._core", "thurn_ai._policy", "thurn_ai._search"],
    "game": ["thurn_ai.game", "thurn_ai.game.*"],
    # positions as files; the package root wires notation and positions into the core (thurn_ai/__init__.py)
    "position": ["thurn_ai", "thurn_ai.position", "thurn_ai.position.*"],
    "render": ["thurn_ai.render", "thurn_ai.render.*"],
    # what the search reads at play time: the learned evaluation, the move prior, the win map, their weights
    # (how they were made is a study: thurn_ai.studies.learned, thurn_ai.studies.expert)
    "evaluation": ["thurn_ai.learned", "thurn_ai.learned.*"],
    "bots": ["thurn_ai.bots", "thurn_ai.bots.*"],
    "play": ["thurn_ai.play", "thurn_ai.play.*"],
    "stats": ["thurn_ai.stats", "thurn_ai.stats.*"],
    # the research wing: each study's pipeline (data, fits, runners, reports) and their provenance
    "studies": ["thurn_ai.studies", "thurn_ai.studies.*"],
    # adapters to other frameworks (OpenSpiel, PettingZoo, Gymnasium) and the web app: users of the library
    "adapters": ["thurn_ai.adapters", "thurn_ai.adapters.*"],
    "web": ["thurn_ai.web", "thurn_ai.web.*"],
    "commands": ["thurn_ai.commands", "thurn_ai.commands.*"],
    "cli": ["thurn_ai.cli"],
}
# Stricter rules than "own floor or below" (rules a-c): floor -> module patterns it may never import.
COMMAND_LINE = ["thurn_ai.commands", "thurn_ai.commands.*", "thurn_ai.cli"]
FORBIDDEN = {floor: COMMAND_LINE for floor in FLOORS if floor not in ("commands", "cli")}
FORBIDDEN["bots"] = COMMAND_LINE + ["thurn_ai.play", "thurn_ai.play.*"]
# The compiled core may import nothing from the Python package, not even from errors; the compiled
# search may cimport the core.
CORE_MAY_IMPORT = {"thurn_ai._core", "thurn_ai._random"}   # cimports of the compiled modules (_random.pxd:
                                                            # inline random numbers, no module of its own)


# ---------------------------------------------------------------- reading imports


def python_modules() -> dict[str, Path]:
    out = {}
    for f in sorted(PKG.rglob("*.py")):
        parts = f.relative_to(PKG.parent).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join(parts)] = f
    return out


MODULES = python_modules()
ALL_MODULES = set(MODULES) | set(COMPILED)


def _resolve(base: str, names: list[str]) -> list[str]:
    """`from base import a, b`: base.a where that is a module of the package, else base."""
    out = []
    for n in names:
        out.append(f"{base}.{n}" if f"{base}.{n}" in ALL_MODULES else base)
    return out


def _package_of(module: str, is_package: bool) -> str:
    return module if is_package else module.rsplit(".", 1)[0]


def _absolute(module: str, is_package: bool, level: int, name: str | None) -> str:
    if not level:
        return name or ""
    base = _package_of(module, is_package).split(".")
    base = base[:len(base) - (level - 1)]
    return ".".join(base + ([name] if name else []))


def py_imports(module: str, path: Path | None = None) -> list[tuple[str, int]]:
    """(imported module, line) for every import of a thurn_ai module in a .py file (or another file of
    Python's grammar: a compiled module's .pyi stub)."""
    path = path or MODULES[module]
    is_package = path.name == "__init__.py"
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    out = []
    for node in ast.walk(tree):
        found: list[str] = []
        if isinstance(node, ast.Import):
            found = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = _absolute(module, is_package, node.level, node.module)
            found = _resolve(base, [a.name for a in node.names])
        elif isinstance(node, ast.Call) and node.args:
            fn = node.func
            fname = fn.attr if isinstance(fn, ast.Attribute) else getattr(fn, "id", "")
            if fname in ("import_module", "find_spec", "__import__"):
                arg = node.args[0]
                if isinstance(arg, ast.JoinedStr) and arg.values and isinstance(arg.values[0], ast.Constant):
                    arg = arg.values[0]
                if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                    found = [arg.value.rstrip(".")]
        out += [(m, node.lineno) for m in found if m == "thurn_ai" or m.startswith("thurn_ai.")]
    return out


_FROM = re.compile(r"^[ \t]*from[ \t]+([.\w]+)[ \t]+(c?import)[ \t]+(\([^)]*\)|[^\n#]*)", re.M)
_IMPORT = re.compile(r"^[ \t]*(c?import)[ \t]+([^\n#]*)", re.M)


_INCLUDE = re.compile(r"""^include[ \t]+["']([^"']+)["']""", re.M)


def included(text: str, folder: Path = CEXT) -> list[Path]:
    """The files a Cython source includes as text (`include "x.pxi"`, top level), theirs too, in order."""
    out = []
    for name in _INCLUDE.findall(text):
        f = folder / name
        out += [f] + included(f.read_text(encoding="utf-8"), folder)
    return out


def pyx_imports(module: str, text: str | None = None, folder: Path = CEXT) -> list[tuple[str, str, str, int]]:
    """(kind 'import'/'cimport', module, name or '', line) for the import lines of a compiled module's
    .pyx source and of the .pxi files it includes (Cython is not Python, so its lines are matched, not
    parsed); the line of an import in an included file is its line there."""
    if text is None:
        text = (folder / (module.rsplit(".", 1)[1] + ".pyx")).read_text(encoding="utf-8")
    out = []
    for f in included(text, folder):
        out += pyx_imports(module, _INCLUDE.sub("", f.read_text(encoding="utf-8")), folder)
    for m in _FROM.finditer(text):
        line = text.count("\n", 0, m.start()) + 1
        base = _absolute(module, False, len(m.group(1)) - len(m.group(1).lstrip(".")),
                         m.group(1).lstrip(".") or None)
        for name in m.group(3).strip("() \n").replace("\n", " ").split(","):
            name = name.split(" as ")[0].strip()
            if name:
                mod = f"{base}.{name}" if f"{base}.{name}" in ALL_MODULES else base
                out.append((m.group(2), mod, name, line))
    for m in _IMPORT.finditer(text):
        line = text.count("\n", 0, m.start()) + 1
        for name in m.group(2).split(","):
            name = name.split(" as ")[0].strip()
            if name:
                out.append((m.group(1), name, "", line))
    if re.search(r"\bimport_module\b|__import__", text):
        out.append(("import", "<dynamic import>", "", 0))
    return out


def floor_of(module: str) -> str | None:
    for floor, patterns in FLOORS.items():
        if module in patterns:
            return floor
    for floor, patterns in FLOORS.items():
        if any(fnmatch(module, p) for p in patterns):
            return floor
    return None


FLOOR_RANK = {f: i for i, f in enumerate(FLOORS)}


def core_upward() -> set[tuple[str, str]]:
    """What the compiled core imports from the Python package: {(module, name)}."""
    return {(mod, name) for kind, mod, name, _ in pyx_imports("thurn_ai._core")
            if (mod == "thurn_ai" or mod.startswith("thurn_ai.") or mod == "<dynamic import>")
            and mod not in CORE_MAY_IMPORT}


# ---------------------------------------------------------------- the tests


def test_every_module_has_a_floor():
    assert [m for m in sorted(ALL_MODULES) if floor_of(m) is None] == [], \
        "place new modules in FLOORS (tests/project/test_layers.py) and in docs/architecture.md"


def test_each_folder_is_on_one_floor():
    floors = {}
    for m in MODULES:
        parts = m.split(".")
        if len(parts) > 2 or (len(parts) == 2 and MODULES[m].name == "__init__.py"):   # in a folder of thurn_ai
            floors.setdefault(parts[1], set()).add(floor_of(m))
    assert {folder: sorted(f) for folder, f in floors.items() if len(f) != 1} == {}
    assert {"game", "learned", "studies", "play"} <= set(floors)


def test_the_library_never_imports_the_command_line():
    bad = []
    for module in MODULES:
        if floor_of(module) not in ("commands", "cli"):
            bad += [f"{module}:{line} imports {m}" for m, line in py_imports(module)
                    if m == "thurn_ai.cli" or m == "thurn_ai.commands" or m.startswith("thurn_ai.commands.")]
    assert bad == []


def test_the_bots_never_import_matches_tournaments_or_the_command_line():
    banned = ("thurn_ai.commands", "thurn_ai.cli", "thurn_ai.play.match", "thurn_ai.play.tournament")
    bad = [f"{module}:{line} imports {m}" for module in MODULES if floor_of(module) == "bots"
           for m, line in py_imports(module) if m in banned or m.startswith("thurn_ai.commands.")]
    assert bad == []


def test_imports_go_to_the_same_floor_or_below():
    bad = []
    for module in sorted(MODULES):
        floor = floor_of(module)
        if floor is None:
            continue
        for m, line in py_imports(module):
            target = floor_of(m)
            if target is None:
                continue          # reported by test_every_module_has_a_floor
            if FLOOR_RANK[target] > FLOOR_RANK[floor]:
                bad.append(f"{module} ({floor}):{line} imports {m} ({target})")
            elif any(fnmatch(m, p) for p in FORBIDDEN.get(floor, [])):
                bad.append(f"{module} ({floor}):{line} imports {m}, forbidden on its floor")
    assert bad == []


def test_the_compiled_search_imports_only_the_compiled_floor():
    """_policy (playout policies, evaluations) cimports the core; _search (the tree) cimports both."""
    may = {"thurn_ai._policy": CORE_MAY_IMPORT, "thurn_ai._search": CORE_MAY_IMPORT | {"thurn_ai._policy"}}
    for module, allowed in may.items():
        bad = [(kind, mod, line) for kind, mod, _name, line in pyx_imports(module)
               if (mod.startswith("thurn_ai") or mod == "<dynamic import>") and mod not in allowed]
        assert bad == [], module


def stub_imports(module: str, path: Path | None = None) -> list[tuple[str, int]]:
    """What a compiled module's type stub (thurn_ai/_core.pyi, ...) imports of the package."""
    return py_imports(module, path or PKG / (module.rsplit(".", 1)[1] + ".pyi"))


def stub_faults(module: str, path: Path | None = None) -> list[tuple[str, int]]:
    """The stub's imports of modules above the compiled floor (rule c, d: a type names no module above)."""
    # the core is handed the Rules and Board objects from above (rule c): its stub names their classes
    may = {"thurn_ai._core": {"thurn_ai._core", "thurn_ai.game.board", "thurn_ai.game.rules"},
           "thurn_ai._policy": CORE_MAY_IMPORT,
           "thurn_ai._search": CORE_MAY_IMPORT | {"thurn_ai._policy"}}[module]
    return [(m, line) for m, line in stub_imports(module, path) if m not in may]


def test_the_compiled_stubs_import_only_the_compiled_floor():
    """The .pyi stubs are read too: a stub that names learned.prior's class would be a type-level arrow up
    (the prior's weights are a Protocol in _policy.pyi instead)."""
    for module in COMPILED:
        assert (PKG / (module.rsplit(".", 1)[1] + ".pyi")).is_file(), module
        assert stub_faults(module) == [], module


def test_the_stub_rule_finds_an_upward_import(tmp_path):
    stub = tmp_path / "_search.pyi"
    stub.write_text("from typing import Sequence\nfrom ._policy import _PriorWeights\n"
                    "from .learned.prior import PhasePrior\n")
    assert stub_faults("thurn_ai._search", stub) == [("thurn_ai.learned.prior", 3)]


def test_the_core_imports_nothing_from_the_package():
    assert core_upward() == set()


def test_the_core_is_wired_from_above():
    """What the core delegates to is installed by the package: notation, positions, errors, pickling."""
    import pickle

    import thurn_ai
    from thurn_ai import _core
    assert set(_core._above) == {"notation_error", "illegal_move_error", "parse_move", "move_to_str",
                                 "position_to_dict"}
    g = thurn_ai.new_game(players=2, seed=1)
    assert g.parse_move(g.move_str(g.legal_moves()[0])) == g.legal_moves()[0]
    with pytest.raises(thurn_ai.NotationError):
        g.apply(1.5)
    assert pickle.loads(pickle.dumps(g)).export() == g.export()


def test_docs_architecture_shows_the_same_floors():
    doc = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    diagram = doc[doc.index("```"):doc.index("```", doc.index("```") + 3)]
    assert [f for f in FLOORS if not re.search(rf"^ {f} ", diagram, re.M)] == []
    missing = []
    for m in sorted(ALL_MODULES):
        floor = floor_of(m)
        if floor in ("bots", "commands", "web"):
            need = f"{floor}/"          # a package placed as a whole
        elif m in COMPILED:
            need = "cext/thurn_ai/" + m.rsplit(".", 1)[1] + ".pyx"
        else:                           # its path in thurn_ai/: game/notation.py, position/ (a package)
            path = MODULES[m].relative_to(PKG)
            need = str(path.parent) + "/" if path.name == "__init__.py" else str(path)
            need = "__init__.py" if need == "./" else need
        if not re.search(rf"`{re.escape(need)}[`,]", doc):
            missing.append(need)
    assert missing == [], "docs/architecture.md does not place these modules"


def test_the_readers_see_imports(tmp_path):
    # the rules above are only as good as the readers: known imports must be found
    assert any(m == "thurn_ai._core" for m, _ in py_imports("thurn_ai.game.state"))
    assert any(m == "thurn_ai.commands" for m, _ in py_imports("thurn_ai.cli"))   # importlib, f-string
    assert any(kind == "cimport" and mod == "thurn_ai._core" for kind, mod, *_ in pyx_imports("thurn_ai._search"))
    sample = ("cdef f():\n    from thurn_ai.game.notation import (a,\n        b as c)\n"
              "    from .position import d\n    import thurn_ai.game.state, numpy as np\n"
              "from libc.stdint cimport uint8_t\n")
    assert [(k, m, n) for k, m, n, _ in pyx_imports("thurn_ai._core", sample)] == [
        ("import", "thurn_ai.game.notation", "a"), ("import", "thurn_ai.game.notation", "b"),
        ("import", "thurn_ai.position", "d"), ("cimport", "libc.stdint", "uint8_t"),
        ("import", "thurn_ai.game.state", ""), ("import", "numpy", "")]
    assert floor_of("thurn_ai.studies.officials") == "studies" and floor_of("thurn_ai.game.officials") == "game"
    assert os.path.exists(CEXT / "_core.pyx")
    # an import in a part the .pyx includes as text (and in a part that part includes) is the module's too
    (tmp_path / "_x_a.pxi").write_text('include "_x_b.pxi"\nfrom thurn_ai.game import rules\n', encoding="utf-8")
    (tmp_path / "_x_b.pxi").write_text("import thurn_ai.position\n", encoding="utf-8")
    assert {(k, m) for k, m, _n, _l in pyx_imports("thurn_ai._x", 'include "_x_a.pxi"\n', tmp_path)} == {
        ("import", "thurn_ai.position"), ("import", "thurn_ai.game.rules")}
    assert included((CEXT / "_core.pyx").read_text(encoding="utf-8"))     # the real core has parts


# ---------------------------------------------------------------- loops and sizes (rules e, f)

MAX_LINES = 600
STATIC = PKG / "web" / "static"
_JS_IMPORT = re.compile(r"""(?:^\s*import\b[^"';]*?\bfrom\s*|^\s*import\s*|\bimport\s*\(\s*)"""
                        r"""["'](\.{1,2}/[^"']+)["']""", re.M)


def loops(graph: dict[str, set[str]]) -> list[list[str]]:
    """The import loops of a graph {module: modules it imports}: its strongly connected components with
    more than one module, and modules that import themselves (Tarjan's algorithm)."""
    index, low, on_stack, stack, out = {}, {}, set(), [], []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1 or v in graph.get(v, ()):
                out.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def python_graph() -> dict[str, set[str]]:
    graph = {m: {t for t, _ in py_imports(m) if t in ALL_MODULES and t != m} for m in MODULES}
    for m in COMPILED:
        graph[m] = {mod for _k, mod, _n, _l in pyx_imports(m) if mod in ALL_MODULES and mod != m}
    return graph


def js_graph(folder: Path = STATIC) -> dict[str, set[str]]:
    return {f.name: {Path(target).name for target in _JS_IMPORT.findall(f.read_text(encoding="utf-8"))}
            for f in sorted(folder.glob("*.js"))}


def test_no_import_loops_in_the_package():
    assert loops(python_graph()) == []


def test_no_import_loops_between_the_browser_modules():
    graph = js_graph()
    assert {"common.js", "play.js", "setup.js"} <= set(graph) and "common.js" in graph["play.js"]
    assert loops(graph) == []


def test_the_loop_finder_finds_loops(tmp_path):
    # the two checks above are only as good as this: a loop hidden in a function, a longer loop, a
    # dynamic JS import, a module importing itself
    assert loops({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert loops({"a": {"a"}, "b": set()}) == [["a"]]
    assert loops({"a": {"b"}, "b": set()}) == []
    graph = python_graph()
    graph["thurn_ai.game.officials"].add("thurn_ai.game.notation")   # the loop this test once missed
    assert ["thurn_ai.game.notation", "thurn_ai.game.officials"] in loops(graph)
    (tmp_path / "a.js").write_text('import { x } from "./b.js";\n')
    (tmp_path / "b.js").write_text('async function f() {\n  const { y } = await import("./a.js");\n}\n')
    (tmp_path / "c.js").write_text('import "./b.js";\n')
    assert js_graph(tmp_path) == {"a.js": {"b.js"}, "b.js": {"a.js"}, "c.js": {"b.js"}}
    assert loops(js_graph(tmp_path)) == [["a.js", "b.js"]]


def compiled_sources() -> list[Path]:
    return sorted(f for pattern in ("*.pyx", "*.pxi", "*.pxd") for f in CEXT.rglob(pattern))


def test_no_library_module_is_over_the_line_limit():
    """Python modules, the compiled sources and the browser's modules alike: a long .pyx is split into .pxi
    parts by concern, included as text (one compilation unit, so the C compiler still inlines across the
    parts); a long browser module into ES modules by job (play.js into play_*.js)."""
    files = sorted(PKG.rglob("*.py")) + compiled_sources() + sorted(STATIC.glob("*.js"))
    assert any(f.suffix == ".pyx" for f in files) and any(f.name == "play.js" for f in files)
    long = {str(f.relative_to(ROOT)): n for f in files
            if (n := len(f.read_text(encoding="utf-8").splitlines())) > MAX_LINES}
    assert long == {}, f"split these modules by job (at most {MAX_LINES} lines): {long}"


#: the most lines a function of the library may have (rule f): a longer one does more than one job
MAX_FUNCTION_LINES = 80


def long_functions(files, limit: int = MAX_FUNCTION_LINES) -> dict[str, int]:
    """{'path:line name': lines} of every function (methods and nested functions too) over `limit` lines,
    from the def (its decorators left out) to its last line."""
    out = {}
    for f in files:
        for node in ast.walk(ast.parse(f.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                n = node.end_lineno - node.lineno + 1
                if n > limit:
                    where = f.relative_to(ROOT) if f.is_relative_to(ROOT) else f
                    out[f"{where}:{node.lineno} {node.name}"] = n
    return out


def test_no_library_function_is_over_the_line_limit():
    """Python functions of the library: a report or a loop that grows past this is split into parts that
    each do one job. (The compiled sources in cext/ are not read: Cython is not Python's grammar.)"""
    assert long_functions(sorted(PKG.rglob("*.py"))) == {}, \
        f"split these functions (at most {MAX_FUNCTION_LINES} lines)"


def test_the_function_rule_finds_a_long_function(tmp_path):
    body = "\n".join(f"        x{i} = {i}" for i in range(MAX_FUNCTION_LINES))
    (tmp_path / "long.py").write_text(f"def short():\n    return 1\n\n\nclass A:\n    def long(self):\n{body}\n")
    found = long_functions([tmp_path / "long.py"])
    assert list(found.values()) == [MAX_FUNCTION_LINES + 1] and next(iter(found)).endswith(":6 long")


def test_every_compiled_part_is_included_once():
    """A .pxi is compiled only as part of the .pyx that includes it: one nobody includes is dead code,
    one included twice would define everything in it twice."""
    uses = {}
    for pyx in CEXT.glob("*.pyx"):
        for f in included(pyx.read_text(encoding="utf-8")):
            uses.setdefault(f.name, []).append(pyx.name)
    assert {f.name: uses.get(f.name, []) for f in CEXT.glob("*.pxi") if len(uses.get(f.name, [])) != 1} == {}


# ---------------------------------------------------------------- the experiments (rule h)

EXPERIMENTS = ROOT / "experiments"


def script_problems(path: Path, scripts: set[str], test_modules: set[str]) -> list[str]:
    """What breaks rule (h) in one script: an import of another script or of a test module (also inside a
    function), importlib loading a file, or an edit of sys.path by the script itself (code a script runs in
    another process, a string it hands to `python -c`, is not read)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    out = []
    for node in ast.walk(tree):
        names = []
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and not node.level:
            names = [node.module or ""]
        elif isinstance(node, ast.ImportFrom):
            out.append(f"{path.name}:{node.lineno} imports relatively")
        for name in names:
            top = name.split(".")[0]
            if top in scripts or top in test_modules or top in ("tests", "experiments"):
                out.append(f"{path.name}:{node.lineno} imports {name}")
        if isinstance(node, ast.Attribute) and node.attr in ("spec_from_file_location", "syspath_prepend"):
            out.append(f"{path.name}:{node.lineno} loads a file as a module")
        if (isinstance(node, ast.Attribute) and node.attr == "path" and isinstance(node.value, ast.Name)
                and node.value.id == "sys"):
            parent = next((p for p in ast.walk(tree) if isinstance(p, ast.Attribute) and p.value is node), None)
            if parent is not None and parent.attr in ("insert", "append", "extend", "remove"):
                out.append(f"{path.name}:{node.lineno} edits sys.path")
    return out


def test_experiments_import_only_the_library():
    scripts = {f.stem for f in EXPERIMENTS.glob("*.py")}
    test_modules = {f.stem for f in (ROOT / "tests").rglob("*.py")}
    assert len(scripts) > 10
    assert [p for f in sorted(EXPERIMENTS.glob("*.py")) for p in script_problems(f, scripts, test_modules)] == []


def test_the_experiment_rule_finds_what_it_forbids(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text("import sys\nsys.path.insert(0, 'x')\nfrom other import f\n"
                   "def g():\n    import test_north\n    from thurn_ai.game import rules\n"
                   "CHILD = 'import sys; sys.path.insert(0, sys.argv[1])'\n", encoding="utf-8")
    assert sorted(script_problems(bad, {"other", "bad"}, {"test_north"})) == [
        "bad.py:2 edits sys.path", "bad.py:3 imports other", "bad.py:5 imports test_north"]


def test_the_studies_and_experiments_play_only_on_the_play_loop():
    """A game is played by thurn_ai.play.match.Table (the one play loop, with its Observers); a study or a
    study's script does not keep a private `while not ... is_terminal()` loop (experiments/openspiel_peer.py
    plays OpenSpiel's own game objects, not ours, and is the one exception)."""
    loop = re.compile(r"while not \S+\.is_terminal\(\)")
    found = [f"{f.relative_to(ROOT)}:{i}" for f in sorted((PKG / "studies").rglob("*.py")) +
             sorted((ROOT / "experiments").glob("*.py")) if f.name != "openspiel_peer.py"
             for i, line in enumerate(f.read_text(encoding="utf-8").splitlines(), 1) if loop.search(line)]
    assert found == []


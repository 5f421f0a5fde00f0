"""The type stubs of the compiled modules (thurn_ai/_core.pyi, _policy.pyi, _search.pyi) describe what the
compiled modules really offer: every public name, every public method and property of their classes, and,
where Cython keeps a signature, the same parameters in the same order. A stub that lags behind the .pyx
fails here (type checkers and the API reference read the stubs)."""
from __future__ import annotations

import ast
import importlib
import inspect
from pathlib import Path

import pytest

PKG = Path(__file__).resolve().parents[2] / "src" / "thurn_ai"
MODULES = ["_core", "_policy", "_search"]
# names a compiled module holds that are not its API (imported helpers)
NOT_API = {"namedtuple", "combinations"}


def stub(name: str) -> dict:
    """{top-level name: node} of a stub; classes as {name: {member: node}}."""
    tree = ast.parse((PKG / f"{name}.pyi").read_text(encoding="utf-8"))
    out = {}
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AnnAssign)):
            out[node.name if isinstance(node, ast.FunctionDef) else node.target.id] = node
        elif isinstance(node, ast.ClassDef) and node.name.startswith("_"):
            continue                                 # a type for the checker only (a Protocol): not compiled
        elif isinstance(node, ast.ClassDef):
            out[node.name] = {m.name if isinstance(m, ast.FunctionDef) else m.target.id: m
                              for m in node.body if isinstance(m, (ast.FunctionDef, ast.AnnAssign))}
        elif isinstance(node, ast.ImportFrom):       # `from ._policy import x as x`: a re-export
            out.update({a.asname: node for a in node.names if a.asname == a.name})
    return out


def params(fn: ast.FunctionDef) -> list[str]:
    a = fn.args
    return [p.arg for p in a.posonlyargs + a.args + a.kwonlyargs]


@pytest.mark.parametrize("name", MODULES)
def test_every_public_name_of_the_compiled_module_is_in_its_stub(name):
    mod = importlib.import_module(f"thurn_ai.{name}")
    described = stub(name)
    public = {n for n in vars(mod) if not n.startswith("_") and n not in NOT_API}
    assert sorted(public - set(described)) == [], f"add them to thurn_ai/{name}.pyi"
    assert sorted(n for n in set(described) - public if not n.startswith("_")) == [], "the stub names what is not there"


@pytest.mark.parametrize("name", MODULES)
def test_the_stubs_classes_have_every_public_member(name):
    mod = importlib.import_module(f"thurn_ai.{name}")
    for cls_name, members in stub(name).items():
        if not isinstance(members, dict):
            continue
        cls = getattr(mod, cls_name)
        real = {m for m in dir(cls) if not m.startswith("_") and m not in dir(tuple)} - {"count", "index"}
        if issubclass(cls, tuple):                 # a namedtuple: its fields
            real = set(cls._fields)
        assert sorted(real - set(members)) == [], f"{cls_name}: add them to thurn_ai/{name}.pyi"
        assert sorted(m for m in set(members) - real if not m.startswith("_")) == [], cls_name


@pytest.mark.parametrize("name", MODULES)
def test_signatures_agree_where_the_compiled_code_keeps_them(name):
    mod = importlib.import_module(f"thurn_ai.{name}")
    checked = 0
    for top, node in stub(name).items():
        pairs = []
        if isinstance(node, ast.FunctionDef):
            pairs.append((top, getattr(mod, top), node, False))
        elif isinstance(node, dict):
            cls = getattr(mod, top)
            pairs += [(f"{top}.{m}", getattr(cls, m), fn, True) for m, fn in node.items()
                      if isinstance(fn, ast.FunctionDef) and m != "__init__"
                      and not isinstance(getattr(cls, m), property)
                      and not any(isinstance(d, ast.Name) and d.id == "property" for d in fn.decorator_list)]
        for label, obj, fn, _method in pairs:
            try:
                real = list(inspect.signature(obj).parameters)
            except (TypeError, ValueError):
                continue                           # a slot or a cpdef method: Cython keeps no signature
            expected = params(fn)
            assert real == expected, f"{label}: compiled {real}, stub {expected}"
            checked += 1
    assert checked > 0


def test_the_stubs_and_the_typed_marker_are_package_data():
    import tomllib
    data = tomllib.loads((PKG.parents[1] / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]
    assert set(data["package-data"]["thurn_ai"]) >= {"py.typed", "*.pyi"}
    assert (PKG / "py.typed").is_file() and all((PKG / f"{m}.pyi").is_file() for m in MODULES)

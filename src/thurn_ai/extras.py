"""Optional dependencies: what each extra of `pip install "thurn-ai[EXTRA]"` brings, and one clear error
when a feature needs one that is not installed. The base install plays, searches, runs tournaments and
reports; a feature that only some users need keeps its dependency in an extra, imported when used."""
from __future__ import annotations

import importlib.util

from .errors import ThurnError

#: for each extra, the modules it provides (the first that imports is enough)
EXTRAS = {
    "parquet": ("pyarrow", "fastparquet"),
    "dask": ("distributed",),
    "serve": ("starlette", "uvicorn"),
    "gym": ("gymnasium",),
    "pettingzoo": ("pettingzoo",),
    "openspiel": ("pyspiel",),
}


def have(extra: str) -> bool:
    """Whether an extra's modules can be imported (without importing them)."""
    return any(_findable(m) for m in EXTRAS[extra])


def need(extra: str, feature: str, error=ThurnError) -> None:
    """Raise `error` naming the pip command when `feature` needs an extra that is not installed."""
    if not have(extra):
        raise error(f"{feature} needs {' or '.join(EXTRAS[extra][:1])}, which is not installed: "
                    f"pip install \"thurn-ai[{extra}]\"")


def _findable(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        return False

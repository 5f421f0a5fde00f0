"""Bots from spec strings: 'random', 'greedy', 'mcts(iterations=2000)', 'mcts(time=1.0,c=0.7)'.

A spec is a registered name, optionally followed by keyword arguments in parentheses. Values are numbers,
true/false, or words; `forbid` takes officials joined by '+' (forbid=postmaster+cartwright).
Register a bot class with `register(name, cls)`; the class is called as cls(seed=..., **kwargs).
"""
from __future__ import annotations

import re

from ..errors import BotSpecError
from .officials import OFFICIALS

_REGISTRY: dict[str, object] = {}
_BUILTIN_LOADED = False
_SPEC = re.compile(r"^\s*([A-Za-z_][\w-]*)\s*(?:\((.*)\))?\s*$", re.S)


def register(name: str, factory) -> None:
    _REGISTRY[name] = factory


def _load_builtin():
    # Built-in bots are imported on first use (keeps `import thurn_ai` light); a flag rather than an
    # empty-registry test, so a user's register() before first use does not hide them.
    global _BUILTIN_LOADED
    if _BUILTIN_LOADED:
        return
    _BUILTIN_LOADED = True
    from ._builtin import register_builtin
    register_builtin(lambda name, cls: _REGISTRY.setdefault(name, cls))


def _value(key: str, text: str):
    t = text.strip()
    if key == "forbid":
        names = [x.strip().lower().replace("-", "_") for x in re.split(r"[+|/]", t) if x.strip()]
        aliases = {"carrier": "postal_carrier", "postillion": "postal_carrier", "admin": "administrator",
                   "postmeister": "postmaster", "amtmann": "administrator", "wagner": "cartwright",
                   "none": None}
        out = set()
        for n in names:
            n = aliases.get(n, n)
            if n is None:
                continue
            if n not in OFFICIALS:
                raise BotSpecError(f"forbid: unknown official {n!r} (use {', '.join(OFFICIALS)})")
            out.add(n)
        return frozenset(out)
    low = t.lower()
    if low in ("true", "yes", "on"):
        return True
    if low in ("false", "no", "off"):
        return False
    for conv in (int, float):
        try:
            return conv(t)
        except ValueError:
            pass
    if re.fullmatch(r"[\w.-]+", t):
        return t
    raise BotSpecError(f"bad value {text!r} for {key}")


def parse_spec(spec: str) -> tuple[str, dict]:
    """('mcts', {'iterations': 2000}) from 'mcts(iterations=2000)'; BotSpecError if malformed."""
    _load_builtin()
    m = _SPEC.match(spec or "")
    if not m:
        raise BotSpecError(f"bad bot spec {spec!r}: expected NAME or NAME(key=value,...)")
    name, args = m.group(1).lower(), m.group(2)
    if name not in _REGISTRY:
        raise BotSpecError(f"unknown bot {name!r} in spec {spec!r}; known bots: {', '.join(sorted(_REGISTRY))}")
    kwargs = {}
    if args and args.strip():
        for part in args.split(","):
            if "=" not in part:
                raise BotSpecError(f"bad bot spec {spec!r}: {part.strip()!r} is not key=value")
            k, v = part.split("=", 1)
            k = k.strip().lower()
            if not re.fullmatch(r"[a-z_]\w*", k):
                raise BotSpecError(f"bad bot spec {spec!r}: bad key {k!r}")
            kwargs[k] = _value(k, v)
    return name, kwargs


def make_bot(spec: str, seed: int = 0):
    """A bot from its spec string, seeded; BotSpecError names the problem with the spec."""
    name, kwargs = parse_spec(spec)
    try:
        bot = _REGISTRY[name](seed=seed, **kwargs)
    except TypeError as e:
        raise BotSpecError(f"bad bot spec {spec!r}: {e}") from None
    except ValueError as e:
        raise BotSpecError(f"bad bot spec {spec!r}: {e}") from None
    bot.spec = spec.strip()
    return bot


def split_specs(text: str) -> list[str]:
    """Split 'mcts(iterations=200,c=0.7),greedy' at the commas outside parentheses."""
    out, depth, cur = [], 0, ""
    for ch in text:
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        if ch == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        out.append(cur.strip())
    if depth != 0 or not out or any(not s for s in out):
        raise BotSpecError(f"bad list of bots {text!r}: expected specs separated by commas")
    return out


def known_bots() -> list[str]:
    _load_builtin()
    return sorted(_REGISTRY)

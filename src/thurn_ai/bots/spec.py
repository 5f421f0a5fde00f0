"""Bots from spec strings: 'random', 'greedy', 'mcts(iterations=2000)', 'mcts(time=1.0,c=0.7)'.

A spec is a registered name, optionally followed by keyword arguments in parentheses. Values are numbers,
true/false, or words; `forbid` takes officials joined by '+' (forbid=postmaster+cartwright).
Register a bot class with `register(name, cls)`; the class is called as cls(seed=..., **kwargs).
`BotSpec.parse(text)` reads a spec once into a value (name, options); code changes it with `with_()` /
`without()` and writes it back with str(), never by splicing text.

Bots from outside the package (docs/writing-a-bot.md): an installed distribution names its bots in the
entry-point group `thurn_ai.bots` (name = "module:BotClass"), loaded when a bot is first looked up; or a
module registers them when imported, by `load_bot_module(path_or_name)` (the CLI's `--bot-module`) or by
listing it in the environment variable THURN_AI_BOT_MODULES, which every process of a run (the tournament's
worker processes too) reads: entries separated by os.pathsep (':', ';' on Windows) as in PATH, or, for paths
that hold that character, a JSON list of strings (`["/my:dir/bot.py", "pkg.bots"]`; what --bot-module
exports then). A built-in bot's name can never be taken by another bot. A plugin bot's failures -- a factory
that returns no bot, an exception or sys.exit in its module, factory or choose() -- are one BotSpecError or
BotFailure naming the bot, never a traceback (THURN_AI_DEBUG=1 keeps it).
"""
from __future__ import annotations

import importlib
import importlib.util
import inspect
import json
import math
import os
import re
import sys
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

from ..errors import BotSpecError
from ..fileio import short_repr
from ..game.officials import OFFICIALS, official_name

if TYPE_CHECKING:
    from importlib.metadata import EntryPoint

_REGISTRY: dict[str, Callable[..., Any]] = {}
_BUILTIN_NAMES: set[str] = set()      # the package's own bots: no module may take their names
_BUILTIN_LOADED = False
_LOADING = threading.RLock()      # re-entrant: importing the bots may parse a spec
_SPEC = re.compile(r"^\s*([A-Za-z_][\w-]*)\s*(?:\((.*)\))?\s*$", re.S)


#: the entry-point group in which installed distributions name their bots (name = "module:BotClass")
ENTRY_POINT_GROUP = "thurn_ai.bots"
#: modules (file paths or dotted names) whose import registers bots, read by every process of a run
BOT_MODULES_ENV = "THURN_AI_BOT_MODULES"
_PLUGINS: dict[str, EntryPoint] = {}   # entry points found but not yet loaded, by bot name
_IMPORTED: set[str] = set()            # bot modules imported by this process (as given, resolved)
_ENV_READ = [""]                       # the value of THURN_AI_BOT_MODULES last read


def register(name: str, factory) -> None:
    """Make `factory` (a Bot subclass, or any callable taking seed=... and the spec's options as keyword
    arguments and returning a bot) available as `name` in spec strings: make_bot("name(key=value)")."""
    if not isinstance(name, str) or not re.fullmatch(r"[A-Za-z_][\w-]*", name):
        raise BotSpecError(f"a bot name is a word of letters, digits, _ and -, not {short_repr(name)}")
    if not callable(factory):
        raise BotSpecError(f"bot {name}: {short_repr(factory)} is not a class or function")
    _load_builtin()
    if name.lower() in _BUILTIN_NAMES and _REGISTRY.get(name.lower()) is not factory:
        raise BotSpecError(f"bot name {name.lower()!r} is a built-in bot's and cannot be taken by another; "
                           "register yours under another name")
    _REGISTRY[name.lower()] = factory


def _load_builtin():
    # Built-in bots are imported on first use (keeps `import thurn_ai` light); a flag rather than an
    # empty-registry test, so a user's register() before first use does not hide them.
    # Under a lock, the flag set only when they are registered: a second thread (the web server's) must
    # not see the flag while the registry is still empty ("unknown bot 'mcts'; known bots: ").
    global _BUILTIN_LOADED
    if _BUILTIN_LOADED:
        return
    with _LOADING:
        if _BUILTIN_LOADED:
            return
        from ._builtin import register_builtin

        def builtin(name, cls):
            _BUILTIN_NAMES.add(name)
            _REGISTRY[name] = cls        # replaces whatever a module registered under it before first use
        register_builtin(builtin)
        _find_plugins()
        _BUILTIN_LOADED = True
    listed = os.environ.get(BOT_MODULES_ENV, "")
    if listed != _ENV_READ[0]:
        _ENV_READ[0] = listed           # before importing: a module that looks up a bot does not loop here
        for module in listed_modules(listed):
            load_bot_module(module, export=False)


def listed_modules(value: str) -> list[str]:
    """The modules THURN_AI_BOT_MODULES lists: a JSON list of strings, or entries separated by os.pathsep."""
    if value.lstrip().startswith("["):
        try:
            modules = json.loads(value)
        except ValueError:
            modules = None
        if not (isinstance(modules, list) and all(isinstance(m, str) for m in modules)):
            raise BotSpecError(f"{BOT_MODULES_ENV} starts with '[' but is not a JSON list of strings: "
                               f"{short_repr(value)}")
        return [m for m in modules if m]
    return [m for m in value.split(os.pathsep) if m]


def modules_listing(modules: list[str]) -> str:
    """THURN_AI_BOT_MODULES's value listing `modules` (a JSON list when one holds os.pathsep)."""
    if any(os.pathsep in m or m.lstrip().startswith("[") for m in modules):
        return json.dumps(modules, ensure_ascii=False)
    return os.pathsep.join(modules)


def _find_plugins() -> None:
    """Note the bots that installed distributions name in the entry-point group (not imported yet: a
    plugin is imported when its bot is first used). A built-in name is never replaced."""
    from importlib.metadata import entry_points
    try:
        found = entry_points(group=ENTRY_POINT_GROUP)
    except Exception:       # a broken distribution's metadata must not break the built-in bots
        return
    for ep in found:
        name = ep.name.lower()
        if name not in _REGISTRY and re.fullmatch(r"[a-z_][\w-]*", name):
            _PLUGINS.setdefault(name, ep)


def _load_plugin(name: str) -> None:
    ep = _PLUGINS.pop(name, None)
    if ep is None:
        return
    try:
        factory = ep.load()
    except (Exception, SystemExit) as e:
        raise BotSpecError(f"bot {name}: its plugin {ep.value!r} (entry point group {ENTRY_POINT_GROUP}) "
                           f"failed to load: {_failure(e)}") from None
    _REGISTRY.setdefault(name, factory)


def _failure(e: BaseException) -> str:
    """What went wrong in a plugin's code, in one line."""
    if isinstance(e, SystemExit):
        return f"it called sys.exit({short_repr(e.code)})"
    return f"{type(e).__name__}: {' '.join(str(e).split())}"[:500]


def load_bot_module(module: str, export: bool = True) -> str:
    """Import a module that registers bots (calls register(name, cls) when imported): a Python file
    (`path/to/my_bot.py`) or an importable module's dotted name (`my_package.bots`). Returns the names
    of the bots it registered. With export (the default), the module is also added to the environment
    variable THURN_AI_BOT_MODULES, so the worker processes a run starts register the same bots.
    BotSpecError if it cannot be found or its import fails."""
    _load_builtin()
    text = str(module).strip()
    is_file = text.endswith(".py") or os.sep in text or "/" in text
    key = str(Path(text).expanduser().resolve()) if is_file else text
    if key in _IMPORTED:
        return ""               # imported already (its bots are registered)
    before = set(_REGISTRY) | set(_PLUGINS)
    with _LOADING:
        _IMPORTED.add(key)              # (removed again if the import fails)
        try:
            if is_file:
                path = Path(key)
                if not path.is_file():
                    raise BotSpecError(f"--bot-module: no such file {short_repr(text)}")
                mod_name = "thurn_ai_bot_module_" + re.sub(r"\W", "_", path.stem)
                spec = importlib.util.spec_from_file_location(mod_name, path)
                if spec is None or spec.loader is None:
                    raise BotSpecError(f"--bot-module: {short_repr(text)} is not a Python file")
                mod = importlib.util.module_from_spec(spec)
                sys.modules[mod_name] = mod
                try:
                    spec.loader.exec_module(mod)
                except BaseException:
                    sys.modules.pop(mod_name, None)
                    raise
            else:
                if not re.fullmatch(r"[A-Za-z_][\w]*(\.[A-Za-z_][\w]*)*", text):
                    raise BotSpecError(f"--bot-module: {short_repr(text)} is neither a .py file nor a module name")
                try:
                    importlib.import_module(text)
                except ModuleNotFoundError as e:
                    if e.name and text.startswith(e.name):
                        raise BotSpecError(f"--bot-module: no module named {e.name!r} (give a .py file's path "
                                           "or an importable module)") from None
                    raise
        except BotSpecError:
            _IMPORTED.discard(key)
            raise
        except (Exception, SystemExit) as e:       # a module's sys.exit() must not end the program quietly
            _IMPORTED.discard(key)
            raise BotSpecError(f"--bot-module {short_repr(text)} failed to import: {_failure(e)}") from None
    if export:
        listed = listed_modules(os.environ.get(BOT_MODULES_ENV, ""))
        if key not in listed:
            os.environ[BOT_MODULES_ENV] = modules_listing(listed + [key])
    return ", ".join(sorted((set(_REGISTRY) | set(_PLUGINS)) - before))


# A spec is typed by a person: these limits only stop garbage (a pasted file, a 5000-digit number).
MAX_SPEC = 1000             # characters in one spec
MAX_VALUE = 100             # characters in one value
MAX_INT_DIGITS = 18         # a whole number fits in 64 bits (budgets, counts, seeds of workers)
_INT = re.compile(r"[+-]?[0-9]+")
_FLOAT = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
_NOT_FINITE = {"nan", "+nan", "-nan", "inf", "+inf", "-inf", "infinity", "+infinity", "-infinity"}
#: options whose value names a file to read (the learned evaluation's and the learned prior's weights): a
#: server must not let a request set them (thurn_ai.web refuses them; nothing a request names is opened as a path)
FILE_OPTIONS = frozenset({"model", "pmodel"})
# Constructor arguments that only make sense from Python (a seed is given by the caller, `human` takes
# input/output functions), so a spec cannot set them.
_NOT_FROM_SPECS = {"seed", "read", "write"}


def _value(key: str, text: str):
    t = text.strip()
    if len(t) > MAX_VALUE:
        raise BotSpecError(f"the value of {key} is longer than {MAX_VALUE} characters")
    if key == "forbid":
        out = set()
        for text in filter(str.strip, re.split(r"[+|/]", t)):
            if text.strip().lower() == "none":
                continue
            name = official_name(text)
            if name is None:
                raise BotSpecError(f"forbid: unknown official {short_repr(text.strip().lower().replace('-', '_'))} "
                                   f"(use {', '.join(OFFICIALS)})")
            out.add(name)
        return frozenset(out)
    if key in FILE_OPTIONS:           # a file's path: the one value that may hold slashes
        if not re.fullmatch(r"[\w./~-]+", t):
            raise BotSpecError(f"{key}: {short_repr(t)} is not a file path (letters, digits, . _ - / ~)")
        return t
    low = t.lower()
    if low in ("true", "yes", "on"):
        return True
    if low in ("false", "no", "off"):
        return False
    if low in _NOT_FINITE:
        raise BotSpecError(f"{key}={t}: not a finite number")
    if _INT.fullmatch(t):
        digits = len(t.lstrip("+-"))
        if digits > MAX_INT_DIGITS:
            raise BotSpecError(f"{key}: a whole number of {digits} digits is too large "
                               f"(at most {MAX_INT_DIGITS} digits)")
        return int(t)
    if _FLOAT.fullmatch(t):
        x = float(t)
        if not math.isfinite(x):
            raise BotSpecError(f"{key}={short_repr(t, 30)[1:-1]}: not a finite number (out of range)")
        return x
    if re.fullmatch(r"[\w.-]+", t):
        return t
    raise BotSpecError(f"bad value {short_repr(text)} for {key}")


def _parse(spec: str) -> tuple[str, dict]:
    # the one parser of spec text (BotSpec.parse): the checks below are the whole grammar
    _load_builtin()
    if not isinstance(spec, str):
        raise BotSpecError(f"a bot spec is a string such as 'mcts(iterations=2000)', not {short_repr(spec)}")
    shown = short_repr(spec, 80)
    if len(spec) > MAX_SPEC:
        raise BotSpecError(f"bad bot spec {shown}: longer than {MAX_SPEC} characters")
    if spec.count("(") != spec.count(")"):
        raise BotSpecError(f"bad bot spec {shown}: unbalanced parentheses")
    m = _SPEC.match(spec)
    if not m:
        raise BotSpecError(f"bad bot spec {shown}: expected NAME or NAME(key=value,...)")
    name, args = m.group(1).lower(), m.group(2)
    if args is not None and ("(" in args or ")" in args):
        raise BotSpecError(f"bad bot spec {shown}: parentheses inside the arguments")
    if name not in _REGISTRY:
        _load_plugin(name)
    if name not in _REGISTRY:
        raise BotSpecError(f"unknown bot {short_repr(name)} in spec {shown}; known bots: "
                           f"{', '.join(sorted(set(_REGISTRY) | set(_PLUGINS)))} (your own bot: "
                           "--bot-module FILE.py, see docs/writing-a-bot.md)")
    kwargs = {}
    if args and args.strip():
        for part in args.split(","):
            if "=" not in part:
                raise BotSpecError(f"bad bot spec {shown}: {short_repr(part.strip())} is not key=value")
            k, v = part.split("=", 1)
            k = k.strip().lower()
            if not re.fullmatch(r"[a-z_][a-z0-9_]{0,39}", k):
                raise BotSpecError(f"bad bot spec {shown}: bad key {short_repr(k)}")
            if k in kwargs:
                raise BotSpecError(f"bad bot spec {shown}: {k} is given twice")
            try:
                kwargs[k] = _value(k, v)
            except BotSpecError as e:
                raise BotSpecError(f"bad bot spec {shown}: {e}") from None
    return name, kwargs


def _text(value) -> str:
    """An option's value as a spec writes it (what _value reads back as the same value)."""
    if isinstance(value, (frozenset, set)):
        return "+".join(sorted(value)) or "none"
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


@dataclass(frozen=True)
class BotSpec:
    """A bot spec as a value: the bot's registered name and its options, parsed once.

    `BotSpec.parse("mcts(iterations=2000,forbid=postmaster)")` reads the text a person types (the grammar in
    the module doc; BotSpecError names a problem); `str(spec)` writes it back in the canonical form
    (options in their order, `true`/`false`, `forbid` as sorted names joined by '+'), which parses to an
    equal value; `spec.with_(iterations=300)` and `spec.without("time")` make changed copies.
    `options` is read-only by convention (a plain dict, so a spec pickles to a worker process)."""
    name: str
    options: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self):
        object.__setattr__(self, "name", self.name.lower())
        object.__setattr__(self, "options", dict(self.options))

    def __hash__(self) -> int:
        return hash((self.name, tuple(self.options.items())))

    @classmethod
    def parse(cls, text: str | BotSpec) -> BotSpec:
        """The value of a spec's text (a BotSpec is returned as it is); BotSpecError if malformed:
        unbalanced parentheses, a part that is not key=value, a key given twice, NaN or infinite numbers, a
        whole number of more than 18 digits, an unknown bot. (Whether the bot has each option is checked by
        make_bot.)"""
        if isinstance(text, BotSpec):
            return text
        name, options = _parse(text)
        return cls(name, options)

    def __str__(self) -> str:
        if not self.options:
            return self.name
        return f"{self.name}({','.join(f'{k}={_text(v)}' for k, v in self.options.items())})"

    def option(self, key: str, default: Any = None) -> Any:
        """The option's value, or `default` when the spec does not set it."""
        return self.options.get(key, default)

    def with_(self, **options: Any) -> BotSpec:
        """A copy with these options set (a new option goes last, a set one keeps its place)."""
        return BotSpec(self.name, {**self.options, **options})

    def without(self, *keys: str) -> BotSpec:
        """A copy without these options (the bot's defaults apply)."""
        return BotSpec(self.name, {k: v for k, v in self.options.items() if k not in keys})


def parse_spec(spec: str | BotSpec) -> tuple[str, dict]:
    """('mcts', {'iterations': 2000}) from 'mcts(iterations=2000)': BotSpec.parse(spec) as a pair."""
    value = BotSpec.parse(spec)
    return value.name, dict(value.options)


def _accepted_keys(factory) -> set | None:
    """The keyword arguments a bot factory accepts (following **kwargs up a class's bases); None if
    that cannot be told (then the factory itself refuses what it does not know)."""
    keys: set = set(getattr(factory, "spec_options", ()))   # options a bot takes through **kwargs
    for f in (factory.__mro__ if isinstance(factory, type) else (factory,)):
        init = f.__init__ if isinstance(factory, type) else f   # type: ignore[misc]  # a class's own, read off it
        if isinstance(factory, type) and "__init__" not in vars(f):
            continue
        try:
            params = inspect.signature(init).parameters.values()
        except (TypeError, ValueError):
            return None
        keys |= {p.name for p in params if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)} - {"self"}
        if not any(p.kind == p.VAR_KEYWORD for p in params):
            return keys - _NOT_FROM_SPECS
    return None


def make_bot(spec: str | BotSpec, seed: int = 0):
    """A bot from its spec (text or a BotSpec), seeded; BotSpecError names the problem with the spec. The
    bot's `spec` is the text it was made from: as given (stripped), or str() of a BotSpec."""
    value = BotSpec.parse(spec)
    text = spec.strip() if isinstance(spec, str) else str(value)
    shown = short_repr(spec if isinstance(spec, str) else text, 80)
    _load_builtin()
    if value.name not in _REGISTRY:          # a BotSpec built in code, not parsed: its bot is looked up here
        _load_plugin(value.name)
    if value.name not in _REGISTRY:
        raise BotSpecError(f"unknown bot {short_repr(value.name)}; known bots: {', '.join(known_bots())}")
    name, kwargs = value.name, value.options
    known = _accepted_keys(_REGISTRY[name])
    for k in kwargs:
        if k in _NOT_FROM_SPECS or (known is not None and k not in known):
            allowed = f" (known: {', '.join(sorted(known))})" if known else ""
            raise BotSpecError(f"bad bot spec {shown}: {name} has no option {k}{allowed}")
    factory = _REGISTRY[name]
    try:
        bot = factory(seed=seed, **kwargs)
    except (TypeError, ValueError, OverflowError) as e:
        raise BotSpecError(f"bad bot spec {shown}: {e}") from None
    except (Exception, SystemExit) as e:
        if is_builtin(factory) or os.environ.get("THURN_AI_DEBUG"):
            raise                   # the package's own bug: its traceback
        raise BotSpecError(f"bot {name}: making it failed: {_failure(e)}") from None
    if not callable(getattr(bot, "choose", None)):
        raise BotSpecError(f"bot {name}: its factory {short_repr(factory)} returned {short_repr(bot)}, not a bot "
                           "(an object with a choose(observation) method; see docs/writing-a-bot.md)")
    try:
        bot.spec = text
    except AttributeError:
        raise BotSpecError(f"bot {name}: its bot {short_repr(bot)} does not take the attribute spec "
                           "(subclass thurn_ai.bots.Bot)") from None
    return bot


def is_builtin(obj) -> bool:
    """Whether a bot factory (a class or function), or a bot, is the package's own code, not a plugin's."""
    code = obj if isinstance(obj, type) or inspect.isroutine(obj) else type(obj)
    return (getattr(code, "__module__", None) or "").split(".")[0] == "thurn_ai"


def split_specs(text: str) -> list[str]:
    """Split 'mcts(iterations=200,c=0.7),greedy' at the commas outside parentheses."""
    if not isinstance(text, str) or len(text) > 4 * MAX_SPEC:
        raise BotSpecError(f"bad list of bots {short_repr(text, 80)}: expected specs separated by commas")
    out, depth, cur = [], 0, ""
    for ch in text:
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth < 0:
                break
        if ch == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        out.append(cur.strip())
    if depth != 0 or not out or any(not s for s in out):
        raise BotSpecError(f"bad list of bots {short_repr(text, 80)}: expected specs separated by commas")
    return out


def known_bots(loaded_only: bool = False) -> list[str]:
    """The names of the bots known to this process; loaded_only: without the installed plugins not imported
    yet (what a web request may name, see check_request_spec)."""
    _load_builtin()
    return sorted(set(_REGISTRY) | (set() if loaded_only else set(_PLUGINS)))


def check_request_spec(spec: str) -> str:
    """A spec from someone who may not choose what this machine runs (a web request): refused
    (BotSpecError) if it names a file (refuse_file_options) or an installed plugin not loaded yet -- a
    request never makes the server import a plugin's code (the server's own --bot-module bots are loaded)."""
    _load_builtin()
    m = _SPEC.match(spec) if isinstance(spec, str) else None
    name = m.group(1).lower() if m else None
    if name is not None and name not in _REGISTRY and name in _PLUGINS:
        raise BotSpecError(f"bot {name!r} is an installed plugin, which this server does not load for a "
                           "request; use a built-in bot")
    return refuse_file_options(spec)


def refuse_file_options(spec: str) -> str:
    """The spec, if it sets no option that names a file (FILE_OPTIONS); else BotSpecError. For specs that
    come from someone who may not choose files on this machine (a web request)."""
    named = sorted(set(BotSpec.parse(spec).options) & FILE_OPTIONS)
    if named:
        raise BotSpecError(f"bot {short_repr(spec, 80)}: {named[0]}= names a file, and this server opens no "
                           "file a request names (use the shipped weights: leave it out)")
    return spec


"""Fuzzing what users type and the files they give: bot specs, positions, boards and game records.

The contract for every input: it loads, or it raises exactly a ThurnError (the CLI prints it as one
`error:` line, exit status 2) whose message is one line per problem and, for a file, names the file.
Never another exception: no RecursionError from deep nesting, no ValueError from 5000-digit numbers, no
UnicodeDecodeError, no TypeError from a list where an object belongs, no memory growing without bound.

Inputs are mutations of valid data made by the library itself (positions of random games on both boards,
in both variants, for 2-4 players; the packaged boards; records of played games): a field replaced by
another JSON value or removed, raw text spliced in where a value was (100,000-deep nesting, huge
integers, NaN, a lone surrogate), bytes cut off or inserted (not UTF-8), and random text for specs.
Run with `-s` to see how many inputs were tried.
"""
from __future__ import annotations

import copy
import json
import random
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import thurn_ai
import thurn_ai.position
from thurn_ai.game.board import BOARD_DIR
from thurn_ai.bots import make_bot
from thurn_ai.bots.spec import BotSpec, parse_spec, split_specs
from thurn_ai.cli import main
from thurn_ai.errors import ThurnError
from thurn_ai.play.match import play_game, read_records, replay
from thurn_ai.position import load_position, position_from_dict, problems_of
from thurn_ai.game.rules import Rules

DATA = Path(__file__).parents[1] / "data"
TRIED: Counter = Counter()


def fuzz(examples: int):
    return settings(max_examples=examples, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


@pytest.fixture(scope="module", autouse=True)
def report_counts():
    yield
    total = sum(v for k, v in TRIED.items() if not k.endswith(" refused"))
    print(f"\nfuzzed inputs: {dict(TRIED)}; {total} in all")


@pytest.fixture(scope="module")
def workdir(tmp_path_factory):
    return tmp_path_factory.mktemp("fuzz")


_files = iter(range(10 ** 9))


def fresh_path(workdir, suffix=".json") -> Path:
    """A new file name for each input (the board cache is keyed by path and modification time)."""
    return workdir / f"input{next(_files)}{suffix}"


# ------------------------------------------------------------------ the contract

def check_error(e: ThurnError, path=None) -> None:
    """One line per problem (a position lists several, each on its own line); a file is named."""
    problems = [p.message for p in problems_of(e)]
    for p in problems:
        assert p and "\n" not in p and "\r" not in p, repr(p)
        assert len(p) < 2000, p[:200]
    if len(problems) == 1:
        assert "\n" not in str(e), str(e)
    if path is not None:
        assert str(path) in str(e).splitlines()[0], str(e)


def outcome(fn, path=None, kind="inputs"):
    """fn() or None if it raised a ThurnError that keeps the contract; any other exception fails."""
    TRIED[kind] += 1
    try:
        result = fn()
    except ThurnError as e:
        check_error(e, path)
        TRIED[f"{kind} refused"] += 1
        return None
    return result


# ------------------------------------------------------------------ mutations

LEAVES = (st.none() | st.booleans() | st.integers(-2 ** 70, 2 ** 70) | st.integers(-3, 40)
          | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=12)
          | st.sampled_from(["south", "north", "Ulm", "München", "Berlin", "draw deck", "0x10", "classic",
                             "horses", "postmaster", "play", "route7", "/dev/zero", "tests/data/mini.json",
                             "a\nb", ""]))
VALUES = st.recursive(LEAVES, lambda inner: st.lists(inner, max_size=4)
                      | st.dictionaries(st.text(max_size=8), inner, max_size=3), max_leaves=8)
# raw JSON text spliced in where a value was: what json.dumps never writes
RAW = st.sampled_from([
    "[" * 100_000 + "]" * 100_000,
    '{"a":' * 50_000 + "1" + "}" * 50_000,
    "[" * 70 + "]" * 70,
    "9" * 5000, "-" + "9" * 5000, "1" + "0" * 40, "18446744073709551616", "-1",
    "NaN", "Infinity", "-Infinity", "1e999", "-1e999", "1e-999", "0.1", "1.0", "true",
    '"\\ud800"', '"\\udfff\\ud800"', '"\\u0000"', '"a\\nb"', '{"a": 1, "a": 2}', "[1, 2", "}",
])
SENTINEL = "\u0000fuzz-raw\u0000"
DELETE = object()


def paths_of(obj, prefix=(), depth=4):
    yield prefix
    if depth == 0:
        return
    if isinstance(obj, dict):
        for k, v in obj.items():
            yield from paths_of(v, prefix + (k,), depth - 1)
    elif isinstance(obj, list):
        for i, v in enumerate(obj[:8]):           # the first entries of long lists (moves) are enough
            yield from paths_of(v, prefix + (i,), depth - 1)


def set_path(data, path, value):
    """data with the value at `path` replaced (DELETE: removed); the root itself if path is empty."""
    if not path:
        return None if value is DELETE else value
    *head, last = path
    target = data
    for k in head:
        target = target[k]
    if value is DELETE:
        del target[last]
    else:
        target[last] = value
    return data


@st.composite
def mutated_text(draw, bases):
    """The JSON text of one of `bases`, damaged once or twice: a value replaced, a key removed or added,
    raw text spliced in, or the encoded bytes cut or mixed with other bytes. Returns bytes."""
    data = copy.deepcopy(draw(st.sampled_from(bases)))
    raw = None
    for _ in range(draw(st.integers(1, 2))):
        paths = list(paths_of(data)) if isinstance(data, (dict, list)) else [()]
        path = draw(st.sampled_from(paths))
        how = draw(st.sampled_from(["value", "value", "delete", "add", "raw"]))
        if how == "delete" and path:
            data = set_path(data, path, DELETE)
        elif how == "add" and isinstance(data, dict):
            data[draw(st.text(max_size=10))] = draw(VALUES)
        elif how == "raw" and raw is None:
            raw = draw(RAW)
            data = set_path(data, path, SENTINEL)
        else:
            data = set_path(data, path, draw(VALUES))
    text = json.dumps(data, ensure_ascii=draw(st.booleans()))
    if raw is not None:
        text = text.replace(json.dumps(SENTINEL), raw, 1)
    blob = text.encode("utf-8")
    if draw(st.integers(0, 5)) == 0:            # byte damage: cut, or insert arbitrary bytes
        i = draw(st.integers(0, len(blob)))
        blob = blob[:i] if draw(st.booleans()) else blob[:i] + draw(st.binary(min_size=1, max_size=4)) + blob[i:]
    return blob


@st.composite
def mutated_data(draw, bases):
    """One of `bases` with a value replaced or removed (Python data, no text involved)."""
    data = copy.deepcopy(draw(st.sampled_from(bases)))
    path = draw(st.sampled_from(list(paths_of(data))))
    return set_path(data, path, DELETE if path and draw(st.integers(0, 3)) == 0 else draw(VALUES))


# ------------------------------------------------------------------ (a) bot specs

VALID_SPECS = ["random", "greedy", "heuristic", "mcts", "mcts(iterations=2000)", "mcts(time=1.0,c=0.7)",
               "pimc(iterations=1000,worlds=4)", "greedy(forbid=postmaster+cartwright)", "heuristic(close_at=4)",
               "mcts(iterations=300,select=puct,reward=margin)", "random(forbid=none)"]
SPEC_TOKENS = st.sampled_from(["nan", "inf", "-inf", "Infinity", "1e999", "-1e999", "9" * 25, "9" * 5000,
                               "99999999999999999999", "0x10", "1_000", "", "(", ")", "((", "))", ",", "=",
                               "c=1", "c=2", "iterations=5,iterations=6", "x=1", "seed=3", "read=x", "true",
                               "1.5e308", "\n", "\x00", "ü", " "])


@st.composite
def mutated_spec(draw):
    s = draw(st.sampled_from(VALID_SPECS))
    for _ in range(draw(st.integers(1, 3))):
        i = draw(st.integers(0, len(s)))
        j = draw(st.integers(i, min(len(s), i + 6)))
        piece = draw(SPEC_TOKENS | st.text(max_size=4))
        s = s[:i] + piece + s[j:] if draw(st.booleans()) else s[:i] + piece + s[i:]
    return s


def spec_contract(spec):
    def run():
        name, kwargs = parse_spec(spec)
        assert isinstance(name, str) and isinstance(kwargs, dict)
        value = BotSpec.parse(spec)
        assert BotSpec.parse(str(value)) == value      # the canonical text reads back as the same spec
        make_bot(spec, seed=1)
        return name
    outcome(run, kind="bot specs")
    outcome(lambda: split_specs(spec), kind="bot specs")


@fuzz(300)
@given(spec=mutated_spec())
def test_mutated_bot_specs_build_or_give_one_bot_spec_error(spec):
    spec_contract(spec)


@fuzz(200)
@given(spec=st.text(max_size=40) | st.text(alphabet="mctsrandom(),=.0123456789-+e", max_size=40))
def test_random_text_as_a_bot_spec(spec):
    spec_contract(spec)


@pytest.mark.parametrize("spec,message", [
    ("mcts(iterations=99999999999999999999)", "20 digits"),
    ("mcts(iterations=" + "9" * 5000 + ")", "longer than"),
    ("mcts(c=nan)", "not a finite number"),
    ("mcts(c=inf)", "not a finite number"),
    ("mcts(c=1e999)", "not a finite number"),
    ("mcts(iterations=5", "unbalanced parentheses"),
    ("mcts(iterations=5))", "unbalanced parentheses"),
    ("mcts(iterations=5,iterations=6)", "given twice"),
    ("mcts(colour=red)", "has no option colour"),
    ("mcts(seed=3)", "has no option seed"),
    ("nosuchbot", "unknown bot"),
])
def test_bad_bot_specs_name_the_problem(spec, message):
    with pytest.raises(ThurnError, match=message) as e:
        make_bot(spec)
    check_error(e.value)


# ------------------------------------------------------------------ (b) positions

def _positions() -> list[dict]:
    out = []
    rng = random.Random(5)
    games = [("south", "classic"), ("north", "horses"), ("north", "classic")]
    for i, (board, variant) in enumerate(games):
        for players in (2, 3, 4):
            g = thurn_ai.new_game(players=players, seed=i * 10 + players, board=board, variant=variant)
            for _ in range(rng.randint(0, 400)):
                if g.is_terminal():
                    break
                g.apply_random()
            out.append(g.to_dict())
            out.append(g.to_dict(viewer=rng.randrange(players)))
    out.append(json.loads((DATA.parent.parent / "docs" / "position-format.md").read_text(encoding="utf-8")
                          .split("```json\n")[1].split("```")[0]))     # the hand-written one of the docs
    return out


POSITIONS = _positions()


def position_loaded(g) -> None:
    """A position that loads is a real state: complete and viewed forms load again, the same."""
    again = position_from_dict(g.to_dict())
    assert again.export() == g.export()
    if not g.is_terminal():
        position_from_dict(g.to_dict(viewer=g.current_player), seed=2)


@fuzz(150)
@given(blob=mutated_text(POSITIONS))
def test_damaged_position_files_load_or_give_one_position_error(workdir, blob):
    path = fresh_path(workdir)
    path.write_bytes(blob)
    loaded = outcome(lambda: load_position(path, seed=1), path, "position files")
    if loaded is not None:
        position_loaded(loaded[0])


@fuzz(150)
@given(data=mutated_data(POSITIONS))
def test_damaged_position_data_loads_or_gives_one_position_error(data):
    g = outcome(lambda: position_from_dict(data, seed=1), kind="position data")
    if g is not None:
        position_loaded(g)


def test_counters_near_the_16_bit_limit_are_refused_with_the_limit_named():
    d = copy.deepcopy(POSITIONS[0])
    d["players"][0]["closes"] = 32000
    with pytest.raises(ThurnError, match="32767") as e:
        position_from_dict(d)
    check_error(e.value)
    d["rules"]["max_turns"] = 100          # with few turns left the same count cannot wrap
    d["turn"] = min(d["turn"], 100)
    assert "closes" not in " ".join(p.message for p in thurn_ai.position.check_position(d))
    with pytest.raises(ThurnError, match="max_turns must be an integer from 1 to 32767"):
        Rules(max_turns=32768)


@pytest.mark.parametrize("board", ["/dev/zero", "/etc/passwd", str(DATA / "mini.json"), "south.json", ["south"]])
def test_a_position_names_only_a_packaged_board(board):
    d = copy.deepcopy(POSITIONS[0])
    d["rules"]["board"] = board
    with pytest.raises(ThurnError) as e:
        position_from_dict(d)
    check_error(e.value)
    assert "passwd" not in str(e.value) or "root:" not in str(e.value)


# ------------------------------------------------------------------ (c) boards

BOARDS = [json.loads((BOARD_DIR / f"{b}.json").read_text(encoding="utf-8")) for b in ("south", "north")]
BOARDS.append(json.loads((DATA / "mini.json").read_text(encoding="utf-8")))


@fuzz(150)
@given(blob=mutated_text(BOARDS))
def test_damaged_board_files_load_or_give_one_board_error(workdir, blob):
    path = fresh_path(workdir)
    path.write_bytes(blob)
    board = outcome(lambda: thurn_ai.load_board(str(path)), path, "board files")
    if board is None:
        return
    rules = outcome(lambda: Rules(players=2, board=str(path)), kind="board files")
    if rules is not None:
        g = thurn_ai.new_game(rules=rules, seed=1)
        for _ in range(200):
            if g.is_terminal():
                break
            assert g.legal_moves()
            g.apply_random()


# ------------------------------------------------------------------ (d) game records

def _records() -> list[dict]:
    out = []
    for players, board in ((2, "south"), (3, "north"), (4, "south")):
        rules = Rules(players=players, board=board)
        rec = play_game(rules, [make_bot("random", i) for i in range(players)], seed=players)
        out.append(json.loads(rec.to_json()))
    return out


RECORDS = _records()


def record_contract(path):
    def run():
        recs = read_records(path)
        for rec in recs:
            try:
                replay(rec)
            except ThurnError as e:            # a record that reads but does not replay: its own message
                check_error(e)
        return recs
    return outcome(run, path, "record files")


@fuzz(150)
@given(blob=mutated_text(RECORDS), extra=st.sampled_from([b"", b"\n", b"\n\n{}\n", b"\n[1]"]))
def test_damaged_record_files_replay_or_give_one_error(workdir, blob, extra):
    path = fresh_path(workdir, ".jsonl")
    path.write_bytes(blob.replace(b"\n", b" ") + extra)
    record_contract(path)


@fuzz(60)
@given(data=mutated_data(RECORDS))
def test_damaged_record_data_replays_or_gives_one_error(workdir, data):
    path = fresh_path(workdir, ".jsonl")
    path.write_text(json.dumps(data) + "\n", encoding="utf-8")
    record_contract(path)


def test_a_record_names_only_a_packaged_board_and_a_board_file_comes_from_the_user(tmp_path):
    mini = str(DATA / "mini.json")
    rec = play_game(Rules(players=2, board=mini), [make_bot("random", 1), make_bot("random", 2)], seed=3)
    path = tmp_path / "mini.jsonl"
    path.write_text(rec.to_json() + "\n", encoding="utf-8")
    with pytest.raises(ThurnError, match="--board-file") as e:
        read_records(path)
    check_error(e.value, path)
    [again] = read_records(path, board_file=mini)
    assert replay(again).scores() == rec.scores
    for board in ("/dev/zero", "/etc/passwd"):
        d = json.loads(rec.to_json())
        d["rules"]["board"] = board
        path.write_text(json.dumps(d) + "\n", encoding="utf-8")
        with pytest.raises(ThurnError) as e:
            read_records(path)
        assert "root:" not in str(e.value)


# ------------------------------------------------------------------ the command line

def run_cli(args, capsys):
    with pytest.raises(SystemExit) as e:
        main(args)
    out = capsys.readouterr()
    return e.value.code, out.out, out.err


def malformed_files(tmp_path) -> dict[str, Path]:
    record = json.dumps(RECORDS[0])
    contents = {
        "deep.json": b"[" * 100_000 + b"]" * 100_000,
        "deep_object.json": b'{"players": ' + b'{"a": ' * 100_000 + b"1" + b"}" * 100_001,
        "digits.json": b'{"players": [{}, {}], "turn": ' + b"9" * 5000 + b"}",
        "latin1.json": '{"players": [{"hand": ["München"]}, {}]}'.encode("latin-1"),
        "nan.json": b'{"players": [{}, {}], "turn": NaN}',
        "types.json": b'{"players": {"0": {}}, "rules": [2]}',
        "board_path.json": json.dumps({"rules": {"board": "/dev/zero"}, "players": [{}, {}]}).encode(),
        "records_bytes.jsonl": record.encode()[:40] + b"\xff\xfe" + record.encode()[40:] + b"\n",
        "records_types.jsonl": json.dumps({**RECORDS[0], "bots": {"a": 1}, "seed": "7"}).encode() + b"\n",
        "records_board.jsonl": json.dumps({**RECORDS[0], "rules": {"players": 2, "board": "/dev/zero"}}).encode(),
        "records_digits.jsonl": record.replace('"seed": 2', '"seed": ' + "9" * 5000).encode(),
        "records_deep.jsonl": b"[" * 100_000 + b"]" * 100_000,
    }
    out = {}
    for name, blob in contents.items():
        out[name] = tmp_path / name
        out[name].write_bytes(blob)
    return out


def test_cli_malformed_files_give_one_error_line_and_exit_2(tmp_path, capsys):
    files = malformed_files(tmp_path)
    cases = [(cmd, name) for name in files if name.endswith(".json") for cmd in ("validate", "show", "hint")]
    cases += [("replay", name) for name in files if name.endswith(".jsonl")]
    cases += [("validate", "/dev/zero"), ("replay", "/dev/zero")]
    for cmd, name in cases:
        path = str(files.get(name, name))
        args = [cmd, path] + (["--iterations", "10"] if cmd == "hint" else [])
        code, out, err = run_cli(args, capsys)
        TRIED["command lines"] += 1
        lines = err.strip().splitlines()
        assert code == 2 and len(lines) == 1 and lines[0].startswith("error: "), (cmd, name, err[:500])
        assert path in lines[0] and "Traceback" not in err, (cmd, name, lines[0])


@pytest.mark.parametrize("spec", ["mcts(c=nan)", "mcts(iterations=99999999999999999999)", "mcts((",
                                  "mcts(c=1,c=2)", "mcts(c=1e999)"])
def test_cli_bad_bot_specs_give_one_error_line_and_exit_2(spec, capsys):
    code, out, err = run_cli(["play", "--bots", f"{spec},random", "--quiet"], capsys)
    TRIED["command lines"] += 1
    lines = err.strip().splitlines()
    assert code == 2 and len(lines) == 1 and lines[0].startswith("error: "), err

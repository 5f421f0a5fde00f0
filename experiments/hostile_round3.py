"""The inputs of reliability audit 3 (issue 44) against the command line, counted: each case is a command
run in its own process (a 60 s limit, 4 GB of address space) and classified as

    clean      one `error:` line and exit status 2 (a bad input refused)
    accepted   exit 0 for an input that is valid
    invalid    exit 0 for an input that is NOT valid (accepted-invalid)
    traceback  a Python traceback on stderr
    unbounded  still running at the time limit
    lost       a file the command should not have touched was changed (a user's file behind a link, ...)
    fifo blocks  reading a FIFO given as model= waits for a writer (ordinary Unix; the audit's count too)

    nice -n 10 python experiments/hostile_round3.py                 # about 5 minutes on 2 busy cores
    nice -n 10 python experiments/hostile_round3.py --out results/hostile_round3

The cases: 77 learned-model files for `mcts(eval=learned,model=PATH)` (every field of the weights file
replaced, wrong types, 1e200, +-1e308, bad player keys, a 60 MB file) through `hint`, `hint --json` and
`play`; special model paths (symlink loop, /dev/zero, a FIFO, missing, a folder); output targets of
`show --png` and `play --record` (a symlink, a dangling link, a hard link, a FIFO, a copy of /dev/null
made with mknod, `newdir/`, a folder); damaged tournament folders on `--resume` and `report` (logs linked
to /dev/zero, a damaged bot label); boards of 4,000 and 100,000 cities; bot specs whose own budget is bad
while --iterations is given; greedy(close_at=...); `experiments/officials_save.py` on damaged lines and
zip bombs; and issue 72's (round5_cases): `review` outputs onto the record and a user's files, --moves ranges,
tournament folders, false final scores; the officials design study's report from a damaged games.parquet;
empty option values; unresolvable --bot-module paths. Writes JSON (every case and its outcome) and prints
the totals.

Measured (results/hostile_round3/): 217 inputs; at 65d19b5 201 clean, 14 valid accepted, 0 tracebacks,
0 unbounded, 0 accepted-invalid, 0 files changed, and the 2 FIFO opens; at the audited commit 53abb84
(hostile_round3_53abb84.json, the same script with that checkout's code) 105 clean, 17 tracebacks,
7 unbounded, 73 accepted-invalid and 1 user's file written through a link.
"""
from __future__ import annotations

import argparse
import gzip
import json
import os
import shutil
import stat
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LIMIT_S = 60
#: the model files also played in a whole game (the audit's unbounded game: weights that overflow)
PLAYED = {"valid", "win_1e308", "score_-1e308", "win_1e200", "models_string", "version_999", "60MB"}
AS_BYTES = 4 * 2 ** 30


def run_case(argv: list[str], cwd: Path, timeout: float = LIMIT_S) -> tuple[str, int | None, str, float]:
    """(outcome class without 'invalid'/'lost', exit status, stderr, seconds)."""
    t = time.monotonic()
    cmd = ["prlimit", f"--as={AS_BYTES}", *argv] if shutil.which("prlimit") else argv
    p = subprocess.Popen(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True,
                         stdin=subprocess.DEVNULL)
    try:
        out, err = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, 9)
        p.communicate()
        return "unbounded", None, "", time.monotonic() - t
    err = err.decode(errors="replace")
    if "Traceback" in err:
        return "traceback", p.returncode, err, time.monotonic() - t
    errors = [ln for ln in err.splitlines() if ln.startswith("error")]
    if p.returncode == 2 and len(errors) == 1:
        return "clean", 2, err, time.monotonic() - t
    if p.returncode == 0:
        return "accepted", 0, err, time.monotonic() - t
    return f"exit {p.returncode}", p.returncode, err, time.monotonic() - t


def model_files(d: Path) -> list[tuple[str, Path, bool]]:
    """(name, path, valid) for 77 weights files."""
    base = json.loads((ROOT / "src" / "thurn_ai" / "learned" / "value_model.json").read_text())
    out = []

    def add(name, change, valid=False):
        m = json.loads(json.dumps(base))
        change(m)
        p = d / f"model_{name}.json"
        p.write_text(json.dumps(m))
        out.append((name, p, valid))
    add("valid", lambda m: None, True)
    values = {"null": None, "string": "x", "minus1": -1, "half": 1.5, "list": [], "dict": {}, "true": True,
              "huge": 10 ** 30}
    for field in ("format", "version", "features", "models", "meta"):
        for vn, v in values.items():
            add(f"{field}_{vn}", lambda m, f=field, v=v: m.__setitem__(f, v),
                field == "meta" and vn in ("null", "dict"))
        add(f"{field}_deleted", lambda m, f=field: m.pop(f), field == "meta")
    for key in ("win", "score"):
        for vn, v in {"1e200": 1e200, "1e308": 1e308, "-1e308": -1e308, "true": True, "str15": "1.5",
                      "nan_str": "nan", "nested": [1.0], "null": None}.items():
            add(f"{key}_{vn}", lambda m, k=key, v=v: m["models"]["2"].__setitem__(k, [v] * len(m["models"]["2"][k])))
        add(f"{key}_short", lambda m, k=key: m["models"]["2"].__setitem__(k, m["models"]["2"][k][:3]))
        add(f"{key}_missing", lambda m, k=key: m["models"]["2"].pop(k))
    for pk in ("x", "-1", "99", "1e1", "1", "5"):
        add(f"players_{pk}", lambda m, pk=pk: m["models"].__setitem__(pk, m["models"]["2"]))
    add("entry_list", lambda m: m["models"].__setitem__("2", [1, 2]))
    add("entry_extra", lambda m: m["models"]["2"].__setitem__("x", 1))
    add("only_2", lambda m: [m["models"].pop(k) for k in ("3", "4")], True)
    add("version_2", lambda m: m.__setitem__("version", 2))
    add("version_999", lambda m: m.__setitem__("version", 999))
    add("meta_numbers", lambda m: m.__setitem__("meta", [1, 2, 3]))
    big = d / "model_60MB.json"
    m = json.loads(json.dumps(base))
    m["meta"] = {"pad": "x" * (60 * 2 ** 20)}
    big.write_text(json.dumps(m))
    out.append(("60MB", big, False))
    for k in range(77 - len(out)):     # more overflowing weights, one position at a time
        add(f"win_1e308_at_{k}", lambda m, k=k: m["models"]["3"]["win"].__setitem__(k % 24, 1e308))
    return out[:77]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", type=Path, default=None)
    ap.add_argument("--quick", action="store_true", help="the model files through hint only")
    args = ap.parse_args(argv)
    tmp = Path(tempfile.mkdtemp(prefix="hostile3-"))
    thurn = [sys.executable, "-m", "thurn_ai.cli"]
    cases = []      # (group, name, argv, valid, files that must not change)
    subprocess.run([*thurn, "play", "--bots", "random,random", "--seed", "1", "--quiet", "--record", "g.jsonl"],
                   cwd=tmp, check=True, capture_output=True)
    import thurn_ai
    from thurn_ai.position import save_position
    save_position(thurn_ai.new_game(players=2, seed=1), tmp / "pos.json")

    for name, path, valid in model_files(tmp):
        spec = f"mcts(eval=learned,model={path.name})"
        cases.append(("model", f"hint {name}", ["hint", "pos.json", "--bot", spec, "--iterations", "30"], valid, []))
        if not args.quick:
            cases.append(("model", f"hint --json {name}", ["hint", "pos.json", "--bot", spec, "--iterations", "30",
                                                           "--json"], valid, []))
        if not args.quick and name in PLAYED:
            cases.append(("model", f"play {name}", ["play", "--quiet", "--bots",
                                                     f"mcts(eval=learned,model={path.name},iterations=10),random"],
                          valid, []))
    os.symlink("loop", tmp / "loop")
    os.mkfifo(tmp / "fifo.json")
    (tmp / "folder").mkdir()
    for special in ("loop", "/dev/zero", "/dev/urandom", "fifo.json", "missing.json", "folder", "pos.json"):
        for cmd in (["hint", "pos.json", "--iterations", "30", "--bot"], ["tournament", "--games", "1", "--bots"]):
            spec = f"mcts(eval=learned,model={special})"
            argv2 = cmd + ([spec] if cmd[0] == "hint" else [f"{spec},random", "--out", f"t_{len(cases)}"])
            cases.append(("model path", f"{cmd[0]} model={special}", argv2, False, []))

    # output targets
    mine = tmp / "mine.txt"
    mine.write_bytes(b"my notes\n")
    for k, (opt_cmd) in enumerate((["show", "pos.json", "--png"], ["play", "--quiet", "--bots", "random,random",
                                                                     "--record"])):
        stem = f"out{k}"
        os.symlink(mine, tmp / f"{stem}_link")
        os.symlink(tmp / "nowhere", tmp / f"{stem}_dangling")
        os.link(mine, tmp / f"{stem}_hard")
        os.mkfifo(tmp / f"{stem}_fifo")
        try:
            os.mknod(tmp / f"{stem}_dev", stat.S_IFCHR | 0o666, os.makedev(1, 3))
            devs = [f"{stem}_dev"]
        except PermissionError:
            devs = []
        for target in [f"{stem}_link", f"{stem}_dangling", f"{stem}_hard", f"{stem}_fifo", *devs, "newdir/",
                       "folder", ""]:
            cases.append(("output", f"{opt_cmd[0]} -> {target or 'empty name'}", opt_cmd + [target], False,
                          [mine] + ([tmp / target] if target.endswith(("_dev", "_fifo")) else [])))

    # damaged tournament folders
    base_t = tmp / "tbase"
    subprocess.run([*thurn, "tournament", "--bots", "random,greedy", "--games", "4", "--seed", "1", "--out",
                    str(base_t), "--no-progress", "--jobs", "1"], check=True, capture_output=True)
    for name in ("records.jsonl", "results.csv"):
        for how in ("dev_zero", "fifo"):
            t = tmp / f"t_{name}_{how}"
            shutil.copytree(base_t, t)
            (t / name).unlink()
            (t / name).symlink_to("/dev/zero") if how == "dev_zero" else os.mkfifo(t / name)
            cases.append(("tournament", f"--resume, {name} {how}", ["tournament", "--bots", "random,greedy",
                          "--games", "4", "--seed", "1", "--out", str(t), "--resume", "--no-progress"], False, []))
            if name == "results.csv":
                (t / "results.parquet").unlink()
                cases.append(("report", f"report, {name} {how}", ["report", str(t), "--no-plots"], False, []))
    t = tmp / "t_label"
    shutil.copytree(base_t, t)
    text = (t / "results.csv").read_text().replace("\n1,", "\n1,", 1)
    lines = text.splitlines(keepends=True)
    row = lines[1].split(",")
    row[3] = "ran\x00dom" if row[3] == "random" else row[3][:2] + "\x01" + row[3][2:]
    lines[1] = ",".join(row)
    (t / "results.csv").write_text("".join(lines))
    cases.append(("tournament", "--resume, damaged bot label (checked after: no phantom bot)",
                  ["tournament", "--bots", "random,greedy", "--games", "4", "--seed", "1", "--out", str(t),
                   "--resume", "--no-progress"], True, []))

    # boards
    b = json.loads((ROOT / "src" / "thurn_ai" / "game" / "boards" / "south.json").read_text())
    for n in (4000, 100_000):
        big = json.loads(json.dumps(b))
        big["cities"] += [{"name": f"C{i}", "province": "Baiern"} for i in range(n)]
        (tmp / f"board{n}.json").write_text(json.dumps(big))
        cases.append(("board", f"{n} extra cities", ["validate", "pos.json", "--board-file", f"board{n}.json"],
                      False, []))
    big = json.loads(json.dumps(b))
    big["provinces"] += [f"P{i}" for i in range(100_000)]
    (tmp / "boardP.json").write_text(json.dumps(big))
    cases.append(("board", "100,000 provinces", ["validate", "pos.json", "--board-file", "boardP.json"], False, []))

    # specs
    for bad in ("__import__", "0", "-1", "10000001", "true", "0x10", "1_000", "١"):
        cases.append(("spec", f"mcts(iterations={bad}) with --iterations", ["hint", "pos.json", "--bot",
                      f"mcts(iterations={bad})", "--iterations", "30"], False, []))
    for bad in ("0", "3601"):
        cases.append(("spec", f"mcts(time={bad}) with --iterations", ["hint", "pos.json", "--bot",
                      f"mcts(time={bad})", "--iterations", "30"], False, []))
    for v, valid in (("1000", False), ("true", False), ("2", False), ("7", True)):
        cases.append(("spec", f"greedy(close_at={v})", ["play", "--quiet", "--bots", f"greedy(close_at={v}),random"],
                      valid, []))

    # officials_save.py
    raw = tmp / "raw" / "study"
    raw.mkdir(parents=True)
    save = [sys.executable, str(ROOT / "experiments" / "officials_save.py")]
    for k, damage in enumerate([b"{broken\n", b"[1, 2]\n", b'{"game": "1"}\n', b"\xff\xfe\n"]):
        t = raw / f"t{k}"
        shutil.copytree(base_t, t)
        rec = (t / "records.jsonl").read_bytes().splitlines(keepends=True)
        (t / "records.jsonl").write_bytes(rec[0] + damage + b"".join(rec[1:]))
    cases.append(("officials_save", "save with 4 kinds of damaged lines",
                  ["@save", "save", "--raw", str(tmp / "raw"), "--saved", str(tmp / "saved")], True, []))
    bomb = tmp / "bomb" / "study"
    bomb.mkdir(parents=True)
    with gzip.open(bomb / "zeros.csv.gz", "wb") as f:
        for _ in range(300):
            f.write(b"0" * 2 ** 20)
    cases.append(("officials_save", "restore a 300 MB zip bomb", ["@save", "restore", "--saved", str(tmp / "bomb"),
                                                                   "--raw", str(tmp / "raw_bomb")], False, []))
    (tmp / "bomb2" / "study").mkdir(parents=True)
    (tmp / "bomb2" / "study" / "dev.csv.gz").symlink_to("/dev/zero")
    cases.append(("officials_save", "restore a .gz linked to /dev/zero",
                  ["@save", "restore", "--saved", str(tmp / "bomb2"), "--raw", str(tmp / "raw_bomb2")], False, []))

    if not args.quick:
        round5_cases(cases, tmp, base_t, thurn)

    results, counts = [], Counter()
    for group, name, argv2, valid, watched in cases:
        before = {str(p): (p.read_bytes() if p.is_file() and not p.is_symlink() and stat.S_ISREG(os.stat(p).st_mode)
                           else os.lstat(p).st_mode if os.path.lexists(p) else None) for p in watched}
        design = [sys.executable, str(ROOT / "experiments" / "officials_design.py")]
        full = (save + argv2[1:]) if argv2[0] == "@save" else (design + argv2[1:]) if argv2[0] == "@design" \
            else thurn + argv2
        outcome, code, err, secs = run_case(full, tmp)
        after = {str(p): (p.read_bytes() if p.is_file() and not p.is_symlink() and stat.S_ISREG(os.stat(p).st_mode)
                          else os.lstat(p).st_mode if os.path.lexists(p) else None) for p in watched}
        if outcome == "unbounded" and "fifo" in name and group == "model path":
            outcome = "fifo blocks"       # open() of a FIFO waits for a writer: ordinary Unix, as in the audit
        if before != after:
            outcome = "lost"
        elif outcome == "accepted" and not valid:
            outcome = "invalid"
        elif outcome == "clean" and valid:
            outcome = "refused valid"
        if name.startswith("--resume, damaged bot label") and outcome == "accepted":
            import pandas as pd
            bots = set(pd.read_parquet(tmp / "t_label" / "results.parquet")["bot"])
            if bots != {"random", "greedy"}:
                outcome = "invalid"
        counts[outcome] += 1
        first = next((ln for ln in err.splitlines() if ln.startswith(("error", "Traceback"))), "")
        results.append({"group": group, "case": name, "outcome": outcome, "exit": code, "seconds": round(secs, 2),
                        "message": first[:300]})
        if outcome not in ("clean", "accepted"):
            print(f"{outcome:10s} {group:14s} {name}: {first[:160]}", flush=True)
    by_group = Counter((r["group"], r["outcome"]) for r in results)
    print(f"\n{len(results)} inputs: " + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())))
    for g in dict.fromkeys(r["group"] for r in results):
        print(f"  {g:14s} " + ", ".join(f"{o} {n}" for (gg, o), n in sorted(by_group.items()) if gg == g))
    print(f"slowest: {max(results, key=lambda r: r['seconds'])['case']} "
          f"({max(r['seconds'] for r in results):.1f} s)")
    if args.out:
        args.out.mkdir(parents=True, exist_ok=True)
        (args.out / "hostile_round3.json").write_text(json.dumps({"totals": counts, "cases": results}, indent=1) + "\n")
    shutil.rmtree(tmp, ignore_errors=True)
    return 0


def round5_cases(cases: list, tmp: Path, base_t: Path, thurn: list[str]) -> None:
    """Issue 72's inputs (reliability audit 5): the review command's outputs, ranges and records, a
    tournament folder's games, the officials design study's resume from a damaged games.parquet, empty
    option values, unresolvable --bot-module paths."""
    import pandas as pd
    from thurn_ai.studies.officials import symmetric as sym
    (tmp / "thesis.pdf").write_bytes(b"%PDF-1.4 my thesis\n")
    (tmp / "notes.png").write_bytes(b"my notes, named .png by mistake\n")
    shutil.copy(tmp / "g.jsonl", tmp / "g.ps")
    short = ["--budget", "5", "--moves", "1-2", "--no-cache"]
    for target, watched in (("g.jsonl", "g.jsonl"), ("g.ps", "g.ps"), ("thesis.pdf", "thesis.pdf"),
                            ("notes.png", "notes.png"), ("mine.txt", "mine.txt"), ("out.jsonl", None)):
        record = "g.ps" if target == "g.ps" else "g.jsonl"
        cases.append(("review", f"review --png {target}", ["review", record, *short, "--png", target], False,
                      [tmp / watched] if watched else []))
    for moves, valid in (("1-99999999999999999999", False), ("99999999-99999999999999999999", True),
                         ("0", False), ("5-3", False), ("", False), ("a-b", False)):
        argv2 = ["review", "g.jsonl", "--budget", "5", "--no-cache", "--moves", moves]
        if moves.startswith("1-9"):        # every move of a long random game: its length bounds it, not 10^20
            argv2 = ["review", str(base_t), "--game", "1", "--budget", "5", "--no-cache", "--moves", "3-" + moves[2:]]
            valid = True
        cases.append(("review", f"review --moves {moves or 'empty'}", argv2, valid, []))
    cases.append(("review", "review FOLDER --game 99", ["review", str(base_t), "--game", "99", *short], False, []))
    cases.append(("review", "review FOLDER --game 2", ["review", str(base_t), "--game", "2", *short], True, []))
    d = json.loads((tmp / "g.jsonl").read_text().splitlines()[0])
    d["scores"] = [99, -99]
    (tmp / "false_scores.jsonl").write_text(json.dumps(d) + "\n")
    cases.append(("review", "review of a record with false final scores", ["review", "false_scores.jsonl", *short],
                  False, []))

    # the officials design study's resume from a damaged games.parquet (its report part reads it back)
    good = sym.load_games(ROOT / "results" / "officials_design" / "pilot" / "games.parquet")
    damages = {
        "margin x10": lambda g: g.assign(margin=g.margin * 10).to_parquet,
        "a phantom 9-player cell": lambda g: pd.concat([g, g.head(3).assign(players=9)]).to_parquet,
        "a column dropped": lambda g: g.drop(columns="spread").to_parquet,
    }
    for name, damage in damages.items():
        out = tmp / f"design_{len(cases)}"
        (out / "pilot").mkdir(parents=True)
        damage(good.copy())(out / "pilot" / "games.parquet")
        cases.append(("study resume", f"officials_design, {name}",
                      ["@design", "--part", "report", "--pilot", "12", "--out", str(out)], False, []))
    for name, data in (("truncated", None), ("empty", b""), ("not Parquet", b"host,players\n")):
        out = tmp / f"design_{len(cases)}"
        (out / "pilot").mkdir(parents=True)
        sym.save_games(good, out / "pilot" / "games.parquet")
        whole = (out / "pilot" / "games.parquet").read_bytes()
        (out / "pilot" / "games.parquet").write_bytes(whole[:len(whole) // 2] if data is None else data)
        cases.append(("study resume", f"officials_design, games.parquet {name}",
                      ["@design", "--part", "report", "--pilot", "12", "--out", str(out)], False, []))

    # empty values and --bot-module paths that do not resolve
    for argv2 in (["officials", "--from", ""], ["officials", "--budget", ",,,"], ["report", str(base_t), "--plots", ""],
                  ["serve", "--record", ""], ["tournament", "--bots", "random,random", "--scheduler", ""]):
        cases.append(("empty value", " ".join(a if a else '""' for a in argv2[:3]), argv2, False, []))
    for module in ("loop/x.py", "~nosuchuser_72/x.py"):
        cases.append(("plugin", f"--bot-module {module}", ["play", "--quiet", "--bot-module", module, "--bots",
                                                           "random,random"], False, []))


if __name__ == "__main__":
    sys.exit(main())

"""Advice chosen by play, confirmed on fresh deals (issue 53): the `heuristic` bot's own rule for the officials,
amended where the search departs from it. Reproduces results/officials_advice/.

    python experiments/officials_advice.py --part candidates   # the candidate amendments (fitting offers only)
    python experiments/officials_advice.py --part fit          # each candidate against the host by play; the choice
    python experiments/officials_advice.py --part confirm      # the fit's committed choice on fresh deals
    python experiments/officials_advice.py --part report       # the report from the saved files
    python experiments/officials_advice.py --part fit --pilot 12  # a pilot, into results/officials_advice/pilot/

The candidates are drawn from the fitting half of the card's offers alone (rulecard.split_by_game, seed 40) and
written before any fitting game (advice_play.CANDIDATES: at most 6). The fit's design (advice_play.FIT: 400 /
402 / 400 games a count, every candidate and the host on the same deals, seed 53100) and the confirmation's
(advice_play.CONFIRM: 600 games a count, seed 53700, Holm across the counts, the pooled test the verdict) were
fixed before any of their games; the confirmation plays only the choice the fit wrote (fit_choice.json) and
refuses to run before it exists. Cost on one core (measured, docs/officials-design.md): 0.38 / 0.51 / 0.63 CPU s
a game of the amended bot at 2 / 3 / 4 players, the host's about the same: about 0.9 CPU hours for the fit (the
4 candidates and the control, 1,202 games each) and 0.5 for the confirmation (2 cells of 1,800 games); --jobs
spreads them.

Tournaments are kept under results/tmp_officials_advice/ (ignored by git; a run resumes there); each count's
games (the focus seat's row a game) are saved to fit_games.parquet / confirm_games.parquet after it.
"""
from __future__ import annotations

import argparse
import resource
import sys
import time
from pathlib import Path

import pandas as pd

from thurn_ai.errors import ThurnError
from thurn_ai.fileio import atomic_to_csv, atomic_to_parquet, atomic_write_text
from thurn_ai.studies import provenance
from thurn_ai.studies.markdown import pct, pp, table
from thurn_ai.studies.officials import advice_play as ap
from thurn_ai.studies.officials.card_play import HOST_RULE
from thurn_ai.studies.officials.plan import parse_players
from thurn_ai.studies.officials.rulecard import SPLIT_SEED, split_by_game
from thurn_ai.studies.officials.sided import export_module
from thurn_ai.studies.pages import refresh
from thurn_ai.game.officials import OFFICIAL_LABEL

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "results" / "officials_advice"
OFFERS = ROOT / "results" / "officials" / "search_choices.parquet"
HOST_CHOICES = ROOT / "results" / "officials_card" / "host_choices.parquet"
RECORDS = ROOT / "results" / "officials" / "records" / "search"
RAW = ROOT / "results" / "tmp_officials_advice"
COMMAND = "python experiments/officials_advice.py"
KEYS = ["players", "source", "game", "move", "official"]
#: CPU seconds a game of these cells, over 2, 3 and 4 players (one core; measured, docs/officials-design.md)
CPU_PER_GAME = 0.5


def cpu_seconds() -> float:
    """CPU time of this process and its finished worker processes."""
    own, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def fitting_offers() -> pd.DataFrame:
    """The card's offers with the heuristic's choice (host_used); on the fitting half of its games alone, whether
    a face-up card extends the route (display_fit, the position rebuilt from the kept records; missing on the
    held-out half, which the candidates never read)."""
    offers = pd.read_parquet(OFFERS)
    host = pd.read_parquet(HOST_CHOICES)
    if not host[KEYS].equals(offers[KEYS]):
        raise ThurnError(f"{HOST_CHOICES} is not of {OFFERS}'s offers: run experiments/officials_card.py "
                         "--part baseline")
    offers["host_used"] = host.host_used.to_numpy()
    fitting = split_by_game(offers, SPLIT_SEED)
    offers["display_fit"] = pd.Series(pd.NA, index=offers.index, dtype="boolean")
    offers.loc[fitting, "display_fit"] = ap.offer_fits(offers[fitting], RECORDS).astype("boolean")
    return offers


def candidates(out: Path) -> None:
    """Draw the candidates; an existing list is kept only when the data draw it again (never silently changed)."""
    offers = fitting_offers()
    fitting = offers[split_by_game(offers, SPLIT_SEED)]
    atomic_to_parquet(fitting[[*KEYS, "hand_size", "route_len", "display_fit", "used", "host_used"]],
                      out / "fitting_offers.parquet", index=False)
    found = ap.candidates(offers, split_seed=SPLIT_SEED)
    path = out / "candidates.json"
    if path.exists() and tuple(ap.read_candidates(path).values()) != found:
        raise ThurnError(f"{path} differs from the candidates the data draw now; it was committed before the fit's "
                         "games: remove it deliberately to draw again")
    source = (f"{len(fitting):,} offers of the fitting half ({fitting.game.nunique()} games a count, split seed "
              f"{SPLIT_SEED}) of {OFFERS.relative_to(ROOT)}")
    ap.write_candidates(path, found, source)
    for i, c in enumerate(found, 1):
        print(f"c{i}: {c.amendment.words()} -- {c.changed} offers changed, {c.toward} toward the search")


def _counts(design: ap.Design, players) -> list[int]:
    return [n for n, _ in design.games if n in players]


def _play(cells: dict[str, str], design: ap.Design, out: Path, raw: Path, name: str, pilot, jobs, players) -> None:
    """Play the cells count by count (resumable), saving the focus rows to out/<name>_games.parquet."""
    counts = _counts(design, players)
    games = sum(pilot or design.games_at(n) for n in counts) * (len(cells) + 1)
    print(f"[{name}] {len(cells) + 1} cells, {games:,} games: about {games * CPU_PER_GAME / 60:,.0f} CPU minutes "
          f"at {CPU_PER_GAME} CPU s a game (one core; --jobs spreads them)", flush=True)
    frames = []
    for n in counts:
        frames.append(ap.play_design(cells, design, n, out_dir=raw / name, jobs=jobs, games=pilot))
        atomic_to_parquet(pd.concat(frames, ignore_index=True), out / f"{name}_games.parquet", index=False)


def fit(out: Path, raw: Path, pilot, jobs, players) -> None:
    found = ap.read_candidates(out.parent / "candidates.json" if pilot else out / "candidates.json")
    _play({label: str(c.amendment.spec()) for label, c in found.items()}, ap.FIT, out, raw, "fit", pilot, jobs,
          players)
    choose(out, found)


def choose(out: Path, found: dict) -> None:
    """The fit's table, its choice and its stability, from the saved games."""
    rows = pd.read_parquet(out / "fit_games.parquet")
    diffs = ap.paired_wins(rows)
    pooled = ap.pooled_table(diffs)
    atomic_to_csv(pooled, out / "fit.csv", index=False, float_format="%.6g")
    stable = ap.stability(diffs, found)
    atomic_to_csv(stable.rename_axis("candidate").reset_index(), out / "stability.csv", index=False)
    choice = ap.choose(pooled, found)
    ap.write_choice(out / "fit_choice.json", choice, {n: len(d) for n, d in diffs.items()})
    print(f"[fit] chosen: {choice.words()} ({choice.d_win:+.3f} pooled)")


def committed(path: Path) -> bool:
    """Whether git tracks the file at HEAD unchanged."""
    import subprocess
    rel = str(path.resolve().relative_to(ROOT))
    tracked = subprocess.run(["git", "ls-files", "--error-unmatch", rel], cwd=ROOT, capture_output=True).returncode
    return tracked == 0 and not provenance.uncommitted(ROOT, (rel,))


def confirm(out: Path, raw: Path, pilot, jobs, players, allow_dirty: bool) -> None:
    """Play the fit's choice as committed (read from fit_choice.json, never refitted) on the confirmation's deals."""
    path = out / "fit_choice.json"
    choice = ap.read_choice(path)
    if not (pilot or allow_dirty or committed(path)):
        raise ThurnError(f"{path}: commit the fit's choice before the confirmation's games (it is what they test)")
    if choice.amendment is None:
        raise ThurnError("the fit adopted no amendment: the advice is the heuristic's own rule; nothing to confirm")
    _play({"amended": str(choice.amendment.spec())}, ap.CONFIRM, out, raw, "confirm", pilot, jobs, players)
    confirm_csv(out)


def confirm_csv(out: Path) -> None:
    """The confirmation's table (confirm.csv) from its saved games, if they exist."""
    if (out / "confirm_games.parquet").exists():
        atomic_to_csv(ap.confirm_table(pd.read_parquet(out / "confirm_games.parquet")), out / "confirm.csv",
                      index=False, float_format="%.6g")


# ------------------------------------------------------------------------------------------ the report

def _candidate_lines(out: Path) -> list[str]:
    path = out / "candidates.json"
    if not path.exists():
        return ["## The candidates", "", "Not drawn yet (`--part candidates`).", ""]
    found = ap.read_candidates(path)
    rows = [[label, c.amendment.words(), f"{c.offers:,}", f"{c.changed:,}", f"{c.toward:,}", f"{c.away:,}"]
            for label, c in found.items()]
    rule = ap.CANDIDATES
    return ["## The candidates", "",
            "The host's own rule, in words: " + "; ".join(f"{OFFICIAL_LABEL[o]}: {t}" for o, t in HOST_RULE.items())
            + ".", "",
            f"Per official, side and display-fit line (a face-up card extends the route / none does / either), "
            f"the threshold amendment (hand ≤ or ≥ {ap.HAND_LIMITS[0]}–{ap.HAND_LIMITS[-1]} cards, route ≤ or ≥ "
            f"{ap.ROUTE_LIMITS[0]}–{ap.ROUTE_LIMITS[-1]} cities, or no bound) that changes "
            f"the host's choice toward the search's at the most fitting offers, if ≥ {rule.min_toward} and more "
            f"than {rule.majority:.0%} of those it changes; at most {rule.most}, the most offers moved toward the "
            "search first. Drawn from the fitting half of the offers before any fitting game (`candidates.json`).",
            "",
            *table(["", "amendment", "offers it rules", "changed", "toward the search", "away"], rows), ""]


def _fit_lines(out: Path) -> list[str]:
    if not (out / "fit.csv").exists():
        return ["## The fit by play", "", "Not played yet (`--part fit`).", ""]
    fit_, stable = pd.read_csv(out / "fit.csv"), pd.read_csv(out / "stability.csv").set_index("candidate").chosen
    choice = ap.read_choice(out / "fit_choice.json")
    rows = []
    for cell, g in fit_.groupby("cell", sort=False):
        by = g.set_index("players")
        rows.append([cell, *(pp(r.d_win, r.d_win_lo, r.d_win_hi) for _, r in by.drop(0).iterrows()),
                     pp(by.d_win[0], by.d_win_lo[0], by.d_win_hi[0]), pct(stable.get(cell, 0.0))])
    counts = [f"{n} players" for n in fit_.players.unique() if n]
    return ["## The fit by play", "",
            "Each candidate in one rotating seat against `heuristic`, minus `heuristic` in that seat on the same deals "
            "(wins by the rules' tie-break); pooled: every deal of every count one pair. Chosen: the largest pooled "
            "difference, adopted only if > 0. Stability: how often each would be chosen when the fitting deals are "
            f"resampled ({ap.RESAMPLES} resamples within each count; `none`: no candidate above the host).", "",
            *table(["", *counts, "pooled", "chosen in resamples"], rows), "",
            f"In {pct(stable.get('none', 0.0))} of the resamples no candidate beats the host.", "",
            f"**The fit's choice**: {choice.words()} (pooled {pp(choice.d_win, choice.d_win_lo, choice.d_win_hi)}, "
            f"{choice.games} deals).", ""]


def _confirm_lines(out: Path) -> list[str]:
    if not (out / "confirm.csv").exists():
        return ["## The confirmation on fresh deals", "", "Not played yet (`--part confirm`).", ""]
    t = pd.read_csv(out / "confirm.csv")
    rows = [["pooled" if r.players == 0 else r.players, r.games, pp(r.d_win, r.d_win_lo, r.d_win_hi), f"{r.p:.2g}",
             f"{r.p_holm:.2g}", f"±{100 * r.detectable:.1f} pp", r.verdict] for r in t.itertuples()]
    return ["## The confirmation on fresh deals", "",
            "The fit's choice in one rotating seat against `heuristic`, minus `heuristic` in that seat on the same "
            "deals, on seeds no other run used; Holm across the three counts, the pooled test the advice's verdict. "
            "Detectable: the difference these deals find with 80% power at the 5% level, from the observed spread "
            "of the paired differences.",
            "",
            *table(["players", "deals", "amended − host (wins)", "p", "Holm p (pooled: p)", "detectable",
                    "verdict"], rows), ""]


def report(out: Path, pilot: bool) -> None:
    lines = ["# Advice chosen by play, confirmed on fresh deals", ""]
    if pilot:
        lines += ["**A pilot** (fewer games than the designs advice_play.FIT and CONFIRM; runs.json says how many): it "
                  "checks the pipeline; its numbers are not the design's.", ""]
    lines += _candidate_lines(out.parent if pilot else out) + _fit_lines(out) + _confirm_lines(out)
    lines += [f"Reproduce: `{COMMAND}`. Built at commit `{provenance.commit(ROOT)}`.", ""]
    atomic_write_text(out / "report.md", "\n".join(lines))
    refresh(out.parent if pilot else out)          # results/officials_advice's front page and findings
    print(f"wrote {out / 'report.md'}")


PARTS = ("candidates", "fit", "confirm", "report", "all")


@provenance.script_main
def main(argv=None) -> int:
    ap_ = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap_.add_argument("--part", choices=PARTS, default="report", help="all: candidates, fit, report (the confirmation "
                     "is its own run, after the fit's choice is committed)")
    ap_.add_argument("--pilot", type=int, default=None, metavar="GAMES", help="a pilot of GAMES games a count and "
                     "cell (a multiple of 12), into OUT/pilot/")
    ap_.add_argument("--players", default="2,3,4", help="the player counts (a pilot's; the designs play 2,3,4)")
    ap_.add_argument("--jobs", type=int, default=1, help="worker processes (default 1)")
    ap_.add_argument("--out", type=Path, default=OUT)
    ap_.add_argument("--allow-dirty", action="store_true",
                     help="run with uncommitted code changes (the report then names a commit that is not the code)")
    args = ap_.parse_args(argv)
    if args.pilot is not None and (args.pilot < 12 or args.pilot % 12):
        print("error: --pilot takes a positive multiple of 12 games", file=sys.stderr)
        return 2
    players = parse_players(args.players)
    if players != (2, 3, 4) and not args.pilot:
        print("error: --players is for a pilot (the designs play 2, 3 and 4 players)", file=sys.stderr)
        return 2
    export_module()             # worker processes register the sided bot by importing its module
    out = args.out / "pilot" if args.pilot else args.out
    raw = RAW / "pilot" if args.pilot else RAW
    provenance.check_clean(ROOT, args.allow_dirty or args.part == "report")
    out.mkdir(parents=True, exist_ok=True)
    parts = ("candidates", "fit") if args.part == "all" else (args.part,)
    for part in parts:
        if part == "report":
            continue
        code, t0, c0 = provenance.code_state(ROOT), time.time(), cpu_seconds()
        if part == "candidates":
            candidates(args.out)
        elif part == "fit":
            fit(out, raw, args.pilot, args.jobs, players)
        else:
            confirm(out, raw, args.pilot, args.jobs, players, args.allow_dirty)
        provenance.log_run(args.out if part == "candidates" else out, part, time.time() - t0, code,
                           cpu_seconds=round(cpu_seconds() - c0, 1), pilot=args.pilot, players=list(players))
    report(out, bool(args.pilot))
    return 0


if __name__ == "__main__":
    sys.exit(main())

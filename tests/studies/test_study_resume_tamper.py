"""Study resumes trust no saved table (issue 72, audit 5 N7): the officials design study's games.parquet is
written with a checksum of its content and read back only if that checksum, its columns and types and
every value's range hold; an edited, truncated or phantom-cell table is one `error:` line naming it."""
from __future__ import annotations

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from thurn_ai.studies.officials import symmetric as S

from ..helpers import experiment

CELLS = tuple(S.DesignCell("heuristic", 2, v, 4) for v in ("normal", "never_postmaster"))


def games_table():
    rows = []
    for cell in CELLS:
        for g in range(1, 5):
            rows.append({"host": cell.host, "players": cell.players, "variant": cell.variant, "game": g,
                         "game_seed": 100 + g, "turns": 40.0 + g, "margin": 3.0 + g, "spread": 5.0 + g,
                         "lead_changes": 2.0, "first_win": float(g % 2), "by_carriage": 1.0, "tile_points": 12.0,
                         "carriage_points": 5.0, "uses": float("nan") if cell.variant == "normal" else 0.0})
    return pd.DataFrame(rows)


def rewrite_keeping_metadata(path, change):
    """Edit a saved table as a tool would: its content changed, the file's metadata (the checksum) kept."""
    table = pq.read_table(path)
    df = change(table.to_pandas())
    pq.write_table(pa.Table.from_pandas(df, preserve_index=False).replace_schema_metadata(table.schema.metadata),
                   path)


def margin_times_ten(df):
    df.loc[df.variant == "never_postmaster", "margin"] *= 10
    return df


def phantom_cell(df):
    extra = df[df.variant == "normal"].copy()
    extra["players"] = 9
    return pd.concat([df, extra])


DAMAGES = {
    "a cell's margin x10": lambda p: rewrite_keeping_metadata(p, margin_times_ten),
    "a phantom 9-player cell": lambda p: rewrite_keeping_metadata(p, phantom_cell),
    "a column dropped": lambda p: rewrite_keeping_metadata(p, lambda df: df.drop(columns="spread")),
    "written by pandas, no checksum": lambda p: pd.read_parquet(p).to_parquet(p),
    "truncated to half": lambda p: p.write_bytes(p.read_bytes()[:len(p.read_bytes()) // 2]),
    "truncated by one byte": lambda p: p.write_bytes(p.read_bytes()[:-1]),
    "empty": lambda p: p.write_bytes(b""),
    "not Parquet": lambda p: p.write_text("host,players\nmcts,2\n"),
    "linked to /dev/zero": lambda p: (p.unlink(), p.symlink_to("/dev/zero")),
}


def test_save_and_load_round_trip(tmp_path):
    path = tmp_path / "games.parquet"
    S.save_games(games_table(), path)
    back = S.load_games(path)
    assert back.equals(S._canonical(games_table()))


@pytest.mark.parametrize("damage", sorted(DAMAGES))
def test_the_design_refuses_a_damaged_or_edited_games_table_in_one_line(damage, tmp_path, monkeypatch, capsys):
    # before: a cell's margin x10 was kept and reported as 4 effects; a phantom cell listed; a truncated,
    # empty or non-Parquet table or a dropped column a traceback
    script = experiment("officials_design")
    path = tmp_path / script.GAMES
    S.save_games(games_table(), path)
    DAMAGES[damage](path)
    monkeypatch.setattr(script.sym, "play_cell", lambda *a, **k: pytest.fail("played on a damaged table"))
    with pytest.raises(Exception) as e:
        script.play(CELLS, tmp_path, tmp_path / "raw", jobs=1)
    assert type(e.value).__name__ == "StudyError", repr(e.value)
    line = str(e.value)
    assert "games.parquet" in line and "\n" not in line and "Traceback" not in line


def test_the_scripts_report_part_refuses_an_edited_table_with_one_error_line(tmp_path, capsys):
    script = experiment("officials_design")
    out = tmp_path / "pilot"
    out.mkdir()
    S.save_games(games_table(), out / script.GAMES)
    rewrite_keeping_metadata(out / script.GAMES, margin_times_ten)
    assert script.main(["--part", "report", "--pilot", "12", "--out", str(tmp_path)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("error: ") and "checksum" in err[0], err


@pytest.mark.parametrize("text", ['[{"part": "design", "seco', '{"a": 1', '"text"', "[1, 2]", "\xff"])
def test_a_damaged_runs_file_is_one_error_line(text, tmp_path):
    # before: a JSONDecodeError traceback after the cell was saved
    from thurn_ai.errors import ThurnError
    from thurn_ai.studies import provenance
    (tmp_path / "runs.json").write_bytes(text.encode("latin-1"))
    with pytest.raises(ThurnError, match="runs"):
        provenance.log_run(tmp_path, "design", 1.0, "abc")

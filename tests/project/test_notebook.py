"""The example notebook (examples/first-steps.ipynb, issue 57) runs from top to bottom in a fresh kernel, as a
reader runs it: a game, a hint, a small tournament and its plot. What its cells print is what the committed
notebook shows (the games are seeded), so neither its code nor its outputs can rot; after a change that moves
them, run it again in place: `jupyter execute --inplace examples/first-steps.ipynb`."""
from __future__ import annotations

from pathlib import Path

import pytest

import thurn_ai

nbformat = pytest.importorskip("nbformat", reason="the test extra has nbformat, nbclient and ipykernel")
nbclient = pytest.importorskip("nbclient", reason="the test extra has nbformat, nbclient and ipykernel")
pytest.importorskip("ipykernel", reason="the test extra has nbformat, nbclient and ipykernel")

NOTEBOOK = Path(__file__).resolve().parents[2] / "examples" / "first-steps.ipynb"


def printed(cells) -> list[str]:
    """What each code cell printed (its stream outputs), cell by cell."""
    return ["".join(o.get("text", "") for o in c.get("outputs", []) if o.get("output_type") == "stream")
            for c in cells if c.get("cell_type") == "code"]


def test_the_example_notebook_runs_and_shows_what_it_printed(tmp_path):
    committed = nbformat.read(NOTEBOOK, as_version=4)
    nb = nbformat.read(NOTEBOOK, as_version=4)
    # first, which thurn_ai the kernel imports: the one under test
    nb.cells.insert(0, nbformat.v4.new_code_cell("import thurn_ai; print(thurn_ai.__file__, end='')"))
    nbclient.NotebookClient(nb, timeout=600, kernel_name="python3",
                            resources={"metadata": {"path": str(tmp_path)}}).execute()   # an error fails here
    where, *fresh = printed(nb.cells)
    assert Path(where).resolve() == Path(thurn_ai.__file__).resolve()
    assert fresh == printed(committed.cells), "the notebook prints other things now: run it again in place"
    text = "\n".join(fresh)
    assert "winner: seat" in text and "recommended turn:" in text
    outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs]
    assert any("image/png" in o.get("data", {}) for o in outputs)                    # the plot
    assert any("win_low" in o.get("data", {}).get("text/plain", "") for o in outputs)  # the tournament's table
    assert list(tmp_path.iterdir()) == []          # it writes nothing in the folder it runs in

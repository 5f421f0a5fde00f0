"""The documentation: the README a newcomer reads in two minutes, and the site built from docs/.

* The site builds with `mkdocs build --strict` (a broken link, a page missing from the files, a docstring
  the API reference cannot read: each fails it), and a broken link does fail a build that uses the same
  hooks (so the first test cannot pass by not checking). Its generated references read well (no sentinel
  defaults, whole summaries, the result types documented).
* The README stays short (at most 150 lines, none over 120 characters), names its two set-up commands as
  `.ci/run` runs the second, and every file it links to exists.
"""
from __future__ import annotations

import ast
import html
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text(encoding="utf-8")
LINK = re.compile(r"\]\(([^)\s]+)\)")


def mkdocs(args, cwd, timeout=600):
    pytest.importorskip("mkdocs", reason="the docs extra (in the test extra): pip install -e '.[test]'")
    return subprocess.run([sys.executable, "-m", "mkdocs", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=timeout)


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """The site, built once for this module's tests: (mkdocs's result, the site folder)."""
    site = tmp_path_factory.mktemp("docs") / "site"
    return mkdocs(["build", "--strict", "--site-dir", str(site)], ROOT), site


def test_the_site_builds_strict(built):
    out, site = built
    said = [x for x in out.stderr.splitlines() if not x.startswith(("INFO", "  - "))]
    assert out.returncode == 0, "\n".join(said)[-4000:]
    for page in ("getting-started", "writing-a-bot", "cli", "api", "results", "officials-advice",
                 "results/strength/players", "results/learned/strength"):
        assert (site / page / "index.html").is_file(), page
    cli = (site / "cli" / "index.html").read_text(encoding="utf-8")
    assert "--bot-module" in cli and "thurn-ai tournament" in cli          # generated from the commands
    api = (site / "api" / "index.html").read_text(encoding="utf-8")
    assert "thurn_ai._core.GameState.legal_moves" in api and "thurn_ai.bots.spec.register" in api
    # a link from docs/ into the repository (../results/...) leads to the page on the site
    bots = (site / "bots" / "index.html").read_text(encoding="utf-8")
    assert 'href="../results/strength/players/' in bots


def test_the_generated_references_read_well(built):
    """Issue 57: the command-line page shows no click sentinel as a default (a flag's default is False), each
    command's summary is its whole sentence (not the docstring's first line cut where it breaks), and the
    API page documents every field of the values the examples read (the rules, an analysis, its options and
    turn, a game record and its closes)."""
    import dataclasses

    from thurn_ai.cli import COMMANDS
    from thurn_ai.game.state import CloseAward
    from thurn_ai.play.analysis import Analysis, Option, Turn
    from thurn_ai.game.rules import Rules
    from thurn_ai.play.match import GameRecord
    _, site = built
    cli = (site / "cli" / "index.html").read_text(encoding="utf-8")
    assert "Sentinel" not in cli and "UNSET" not in cli
    json_row = re.search(r"<td><code>--json</code></td>\s*<td>boolean</td>\s*<td>[^<]*</td>\s*<td>(.*?)</td>", cli)
    assert json_row and json_row.group(1) == "<code>False</code>"
    # issue 71: every option's row holds its whole help in its description cell (a `|` in a help text split
    # the row: its Default cell read the rest of the help)
    import click

    from thurn_ai.cli import cli as group
    ctx = click.Context(group)
    for name in COMMANDS:
        start = cli.index(f'id="thurn-ai-{name}"')
        end = cli.find('id="thurn-ai-', start + 10)
        section = cli[start:end if end > 0 else len(cli)]
        for opt in group.get_command(ctx, name).params:
            if not isinstance(opt, click.Option) or not opt.help:
                continue
            row = re.search(rf"<tr>\n<td><code>{re.escape(opt.opts[0])}</code>[^\n]*</td>\n<td>[^\n]*</td>\n"
                            r"<td>([^\n]*)</td>\n<td>([^\n]*)</td>\n</tr>", section)
            assert row, f"{name} {opt.opts[0]}: no row"
            said = " ".join(html.unescape(re.sub(r"<[^>]+>", "", row.group(1))).split())
            assert said == " ".join(opt.help.replace("`", "").split()), f"{name} {opt.opts[0]}: the row reads {said!r}"
    listed = dict(re.findall(r"<li><em><a [^>]*>([a-z]+)</a></em>: (.*?)</li>", cli))
    assert listed == {name: html.escape(text, quote=False) for name, text in COMMANDS.items()}
    assert all(text.endswith(".") and text[0].isupper() for text in COMMANDS.values())
    api = (site / "api" / "index.html").read_text(encoding="utf-8")
    for cls in (Rules, Analysis, Option, Turn, GameRecord, CloseAward):
        name = f"{cls.__module__}.{cls.__name__}"
        start = api.index(f'id="{name}"')
        section = api[start:api.find('class="doc doc-heading"', start + len(name) + 10)]
        missing = [f.name for f in dataclasses.fields(cls) if f"<b><code>{f.name}</code></b>" not in section]
        assert missing == [], f"{name} does not document {missing}"


def python_the_docs_use() -> list[str]:
    """The Python of the README, docs/ and examples/ (code blocks, scripts, notebook cells)."""
    import json
    texts = []
    for page in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        texts += re.findall(r"```python\n(.*?)```", page.read_text(encoding="utf-8"), re.S)
    texts += [p.read_text(encoding="utf-8") for p in sorted((ROOT / "examples").glob("*.py"))]
    for nb in sorted((ROOT / "examples").glob("*.ipynb")):
        cells = json.loads(nb.read_text(encoding="utf-8"))["cells"]
        texts += ["".join(c["source"]) for c in cells if c["cell_type"] == "code"]
    return texts


def test_every_public_name_the_docs_use_is_on_the_api_page():
    """Issue 71 (python-chess documents every public name): each name of thurn_ai.__all__ and each name the
    README, docs/ and examples/ import from thurn_ai is on docs/api.md -- as its own `::: module.name`, or
    a listed member of one (state_at_turn, which the notebook uses, was missing)."""
    import importlib

    import thurn_ai
    names = {("thurn_ai", n) for n in thurn_ai.__all__}
    for text in python_the_docs_use():
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("thurn_ai"):
                names |= {(node.module, a.name) for a in node.names}
    assert ("thurn_ai.play.match", "state_at_turn") in names and len(names) > 20
    api = (ROOT / "docs" / "api.md").read_text(encoding="utf-8")
    entries = {}
    for m in re.finditer(r"^::: ([\w.]+)((?:\n    .*)*)", api, re.M):
        listed = re.search(r"members: \[([^\]]*)\]", m.group(2))
        entries[m.group(1)] = [x.strip() for x in listed.group(1).split(",")] if listed else []
    missing = []
    for module, name in sorted(names):
        home = getattr(getattr(importlib.import_module(module), name), "__module__", module)
        if not ({f"{home}.{name}", f"{module}.{name}"} & set(entries)
                or any(name in members and e in (home, module) for e, members in entries.items())):
            missing.append(f"{module}.{name}")
    assert missing == [], f"docs/api.md does not document {missing}"


def test_a_broken_link_fails_the_build(tmp_path):
    """The same hooks and strictness on a two-page site: a link to a missing file fails; the same link to a
    file that exists outside docs/ builds."""
    (tmp_path / "docs").mkdir()
    (tmp_path / "results" / "x").mkdir(parents=True)
    (tmp_path / "results" / "x" / "README.md").write_text("# x\n\nBack to [the index](../../docs/index.md).\n")
    shutil.copy(ROOT / "mkdocs_hooks.py", tmp_path)
    (tmp_path / "mkdocs.yml").write_text("site_name: t\nstrict: true\nhooks: [mkdocs_hooks.py]\n"
                                         "validation: {unrecognized_links: warn, anchors: warn}\n")
    page = tmp_path / "docs" / "index.md"
    page.write_text("# t\n\nSee [x](../results/x/README.md).\n")
    good = mkdocs(["build", "--strict", "--site-dir", str(tmp_path / "site")], tmp_path, timeout=120)
    assert good.returncode == 0, good.stderr[-3000:]
    assert (tmp_path / "site" / "results" / "x" / "index.html").is_file()
    page.write_text("# t\n\nSee [x](../results/x/README.md) and [y](../results/y/missing.md).\n")
    bad = mkdocs(["build", "--strict", "--site-dir", str(tmp_path / "site")], tmp_path, timeout=120)
    assert bad.returncode != 0 and "missing.md" in bad.stderr, bad.stderr[-3000:]


def test_the_readme_reads_in_two_minutes():
    lines = README.splitlines()
    assert len(lines) <= 150, f"the README has {len(lines)} lines; move the rest into docs/"
    long = [(i + 1, len(x)) for i, x in enumerate(lines) if len(x) > 120]
    assert long == [], f"lines over 120 characters: {long}"
    assert len(README.split()) <= 1100, len(README.split())


def test_the_readme_names_the_two_setup_commands_and_ci_runs_the_second():
    assert re.search(r"^pip install \. && thurn-ai tournament .+$", README, re.M)
    test_cmd = 'pip install -e ".[test]" && pytest'
    assert f"\n{test_cmd}\n" in README
    ci = [x.strip() for x in (ROOT / ".ci" / "run").read_text().splitlines() if x.strip() and not x.startswith("#")]
    assert test_cmd in ci, ci


def test_every_file_the_readme_links_to_exists():
    for target in LINK.findall(README):
        if re.match(r"[a-z]+:", target) or target.startswith("#"):
            continue
        path = ROOT / target.split("#")[0]
        assert path.exists(), f"README links to {target}, which does not exist"


def test_the_hint_is_described_as_calibrated_among_equal_players():
    """The README and getting-started say for whom the win chance holds (issue 41): among equal players,
    not against weaker opponents (against `heuristic` it is biased toward 1/n)."""
    text = " ".join(README.split())
    assert "equal players" in text and "biased toward 1/n" in text
    assert "(the search and the rule-based bot)" not in text
    start = " ".join((ROOT / "docs" / "getting-started.md").read_text(encoding="utf-8").split())
    assert "equal players" in start and "biased toward 1/n" in start


def test_the_nav_names_every_page_of_docs():
    """A page in docs/ that the site's menu does not list is found only by chance."""
    nav = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    pages = sorted(p.relative_to(ROOT / "docs").as_posix() for p in (ROOT / "docs").glob("*.md"))
    assert [p for p in pages if f": {p}\n" not in nav] == []


def test_the_docs_link_only_inside_the_repository():
    """No page of the site (docs/, CHANGELOG.md) and not the README sends a reader off to a web address:
    what they cite is in the repository (a local server address such as 127.0.0.1 is no link out)."""
    pages = [ROOT / "README.md", ROOT / "CHANGELOG.md", *sorted((ROOT / "docs").glob("*.md"))]
    out = [f"{p.name}: {m}" for p in pages
           for m in re.findall(r"https?://[^\s)>\]`'\"]+", p.read_text(encoding="utf-8"))
           if not re.match(r"https?://(127\.0\.0\.1|localhost|\[::1\])", m)]
    assert out == []


def test_licence_citation_and_changelog_agree_with_pyproject():
    import tomllib
    yaml = pytest.importorskip("yaml", reason="PyYAML comes with mkdocs (the docs extra)")
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert project["license"]["text"] == "MIT"
    assert (ROOT / "LICENSE").read_text(encoding="utf-8").startswith("MIT License")
    assert "License :: OSI Approved :: MIT License" in project["classifiers"]
    cff = yaml.safe_load((ROOT / "CITATION.cff").read_text(encoding="utf-8"))
    assert {"cff-version", "message", "title", "authors"} <= set(cff)
    assert cff["license"] == "MIT" and cff["version"] == project["version"]
    changelog = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    assert "## Unreleased" in changelog and f"## {project['version']}" in changelog


def test_what_the_getting_started_commands_write_is_ignored_by_git():
    """Issue 57: after the getting-started commands, run in the clone's root, `git status` showed board.png,
    game.jsonl and runs/ as untracked. Every file or folder they name as an output (--record, --png, --out;
    a tournament without --out writes tournaments/) is covered by .gitignore."""
    if not (ROOT / ".git").exists() or shutil.which("git") is None:
        pytest.skip("not a git checkout")
    text = (ROOT / "docs" / "getting-started.md").read_text(encoding="utf-8")
    every = text.split("## Every command once", 1)[1].split("\n## ", 1)[0]
    commands = [shlex.split(line.split("  #")[0]) for block in re.findall(r"```bash\n(.*?)```", every, re.S)
                for line in block.splitlines() if line.startswith("thurn-ai ")]
    outputs = {c[i + 1] for c in commands for i, a in enumerate(c[:-1]) if a in ("--record", "--png", "--out")}
    if any(c[1] == "tournament" and "--out" not in c for c in commands):
        outputs.add("tournaments/x/results.csv")
    assert {"game.jsonl", "board.png", "runs/t1"} <= outputs, outputs
    checked = subprocess.run(["git", "check-ignore", "--no-index", *sorted(outputs)], cwd=ROOT, capture_output=True,
                             text=True, timeout=60)
    assert sorted(checked.stdout.split()) == sorted(outputs), f"not ignored: {outputs - set(checked.stdout.split())}"


def test_the_getting_started_python_prints_what_its_comment_shows():
    """Issue 57: the comment beside the first print of getting-started's Python showed other moves than the
    code prints. The first lines up to that print run here; the moves the comment names (around its "...")
    are the first and last ones printed."""
    import contextlib
    import io
    import thurn_ai  # noqa: F401  (the snippet's own import)
    text = (ROOT / "docs" / "getting-started.md").read_text(encoding="utf-8")
    (code,) = re.findall(r"```python\n(.*?)```", text.split("## Python", 1)[1], re.S)
    lines = code.splitlines()
    k = next(i for i, x in enumerate(lines) if x.startswith("print([g.move_str"))
    shown = lines[k].split("#", 1)[1].strip()
    head, tail = (ast.literal_eval(f"[{part.strip(' ,[]')}]") for part in shown.split("..."))
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec("\n".join(lines[:k + 1]), {})
    printed = ast.literal_eval(out.getvalue())
    assert printed[:len(head)] == head and printed[len(printed) - len(tail):] == tail, (shown, printed)


def test_writing_a_bot_says_a_constructor_must_take_and_pass_forbid():
    """Issue 57: a newcomer's bot with `__init__(self, seed=None, lookahead=1)` lost the forbid option; the
    page now says so, with the signature the shipped example uses."""
    page = " ".join((ROOT / "docs" / "writing-a-bot.md").read_text(encoding="utf-8").split())
    example = (ROOT / "examples" / "my_bot.py").read_text(encoding="utf-8")
    assert "must take `forbid` too and pass it on" in page
    for code in ("forbid=frozenset()", "super().__init__(seed, forbid)"):
        assert code in page and code in example


def test_the_game_in_two_minutes_is_linked_from_the_first_screen_and_tells_the_game_it_shows():
    """Issue 57: nothing explained the game. docs/the-game.md is linked from the README's first screen (its
    first 25 lines) and the docs' index; its pictures are PNGs drawn by the project's renderer (16 x 9 in at
    100 dpi), redrawn by the script it names; and the game it describes is the game that command plays."""
    first_screen = "\n".join(README.splitlines()[:25])
    assert "](docs/the-game.md)" in first_screen
    assert "](the-game.md)" in (ROOT / "docs" / "index.md").read_text(encoding="utf-8")
    page = (ROOT / "docs" / "the-game.md").read_text(encoding="utf-8")
    for topic in ("## The goal", "## A turn", "Houses.", "Bonus tiles.", "Carriage.", "## The four officials",
                  "## The end and the score", "Postmaster", "Administrator", "Postal Carrier", "Cartwright"):
        assert topic in page, topic
    assert len(page.split()) <= 1000, "the game in two minutes: keep it short"
    # issue 71: the rules (from the goal to the end, the pictures' captions aside) in at most 500 words; the
    # provinces that share a tile named as pairs; the words of the pictures' panels explained
    rules = page[page.index("## The goal"):]
    rules = rules[:rules.index("\n## ", rules.index("## The end and the score") + 5)]
    words = len(" ".join(x for x in rules.splitlines() if not x.startswith("![")).split())
    assert words <= 500, f"the rules part of the-game.md has {words} words"
    from thurn_ai.game.board import load_board
    board = load_board("south")
    pairs = [" + ".join(board.provinces[k] for k in t.provinces) for t in board.tiles
             if t.kind == "all_cities" and len(t.provinces) > 1]
    assert len(pairs) == 3 and all(p in rules for p in pairs), pairs
    for word in ("`after_play`", "`viewer`", "`4/3/2/1`"):
        assert word in page, word
    pictures = re.findall(r"!\[[^\]]+\]\((img/[^)]+\.png)\)", page)
    assert len(pictures) == 3
    for pic in pictures:
        head = (ROOT / "docs" / pic).read_bytes()[:24]
        assert head[:8] == b"\x89PNG\r\n\x1a\n" and (int.from_bytes(head[16:20], "big"),
                                                      int.from_bytes(head[20:24], "big")) == (1600, 900), pic
    script = re.search(r"python (experiments/\S+\.py)", page).group(1)
    assert all(Path(pic).name in (ROOT / script).read_text(encoding="utf-8") for pic in pictures)
    command = re.search(r"`thurn-ai (play --bots heuristic,heuristic --seed \d+) --log`", page).group(1)
    played = subprocess.run([sys.executable, "-m", "thurn_ai.cli", *command.split(), "--quiet"], capture_output=True,
                            text=True, timeout=120)
    assert played.returncode == 0, played.stderr
    scores = re.findall(r"seat (\d) heuristic +(\d+)", played.stdout)
    turns = re.search(r"after (\d+) turns", played.stdout).group(1)
    said = re.search(r"The end after (\d+) turns: blue placed its last house; red (\d+), blue (\d+)", page)
    assert said and said.groups() == (turns, dict(scores)["0"], dict(scores)["1"]), (said, played.stdout)

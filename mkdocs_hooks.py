"""MkDocs hooks (mkdocs.yml `hooks:`): the site also carries the repository files that docs/ links to.

The pages in docs/ link to results and code outside docs/ as the repository holds them
(`../results/strength/README.md`), so that they read the same on a source browser as on the site. MkDocs
only knows docs/, so these hooks
  * add every Markdown file under results/, CHANGELOG.md, and every repository file a page links to (followed from the
    added pages too) to the site, under its path in the repository (`results/strength/README.md`; a file at
    the repository's top, `CHANGELOG.md`, goes under `repo/`), and
  * rewrite each relative link on a page to where its target is on the site.
A link whose target is in no file of the repository is left as written, so `mkdocs build --strict` fails on
it, as on any broken link.

The generated command-line reference (mkdocs-click) writes an option without a default as click 8.2+ holds
it, `Sentinel.UNSET`; on_page_content shows what that means instead: `False` for a flag (its type is
"boolean"), None for any other option.
"""
from __future__ import annotations

import posixpath
import re
from pathlib import Path

from mkdocs.structure.files import File

LINK = re.compile(r"(!?\[[^\]\n]*\]\()([^)\s]+)(\))")
FENCE = re.compile(r"^\s*(```|~~~)")
# a row of mkdocs-click's option table whose Default cell is click's "no default" sentinel
UNSET_FLAG = re.compile(r"(<td>boolean</td>\s*<td>(?:(?!</td>).)*</td>\s*<td>)<code>Sentinel\.UNSET</code>", re.S)
UNSET = "<code>Sentinel.UNSET</code>"
SKIP = re.compile(r"^(?:[a-z][a-z0-9+.-]*:|#|/)", re.I)       # URLs, anchors on the page, absolute paths

_SITE_OF_REPO: dict[str, str] = {}     # repository path -> the site's src_uri
_REPO_OF_SITE: dict[str, str] = {}     # the site's src_uri -> repository path


def _root(config) -> Path:
    return Path(config.config_file_path).resolve().parent


def _docs_prefix(config) -> str:
    return Path(config.docs_dir).resolve().relative_to(_root(config)).as_posix()


def _site_uri(repo_path: str, docs: str) -> str:
    if repo_path.startswith(docs + "/"):
        return repo_path[len(docs) + 1:]
    return repo_path if "/" in repo_path else f"repo/{repo_path}"


def _targets(text: str):
    """The relative link targets of a Markdown text (outside fenced code)."""
    fenced = False
    for line in text.splitlines():
        if FENCE.match(line):
            fenced = not fenced
            continue
        if not fenced:
            for m in LINK.finditer(line):
                if not SKIP.match(m.group(2)):
                    yield m.group(2)


def _resolve(root: Path, page_repo_path: str, target: str) -> str | None:
    """The repository path a link from page_repo_path points at (a folder: its README.md), or None."""
    path = target.split("#", 1)[0]
    if not path:
        return None
    joined = posixpath.normpath(posixpath.join(posixpath.dirname(page_repo_path), path))
    if joined.startswith("../") or joined == "..":
        return None
    full = root / joined
    if full.is_dir() and (full / "README.md").is_file():
        return f"{joined}/README.md"
    return joined if full.is_file() else None


def on_files(files, config):
    root, docs = _root(config), _docs_prefix(config)
    _SITE_OF_REPO.clear()
    _REPO_OF_SITE.clear()
    for f in files:
        repo = f"{docs}/{f.src_uri}"
        _SITE_OF_REPO[repo] = f.src_uri
        _REPO_OF_SITE[f.src_uri] = repo
    todo = [f"{docs}/{f.src_uri}" for f in files if f.src_uri.endswith(".md")]
    todo += [p.relative_to(root).as_posix() for p in sorted((root / "results").rglob("*.md"))]
    todo += [name for name in ("CHANGELOG.md",) if (root / name).is_file()]
    seen = set()
    while todo:
        repo = todo.pop()
        if repo in seen:
            continue
        seen.add(repo)
        if repo not in _SITE_OF_REPO:
            site = _site_uri(repo, docs)
            files.append(File.generated(config, site, abs_src_path=str(root / repo)))
            _SITE_OF_REPO[repo] = site
            _REPO_OF_SITE[site] = repo
        if repo.endswith(".md"):
            text = (root / repo).read_text(encoding="utf-8")
            for target in _targets(text):
                found = _resolve(root, repo, target)
                if found is not None and found not in seen:
                    todo.append(found)
    return files


def on_page_markdown(markdown, page, config, files):
    root = _root(config)
    here_site = page.file.src_uri
    here_repo = _REPO_OF_SITE.get(here_site)
    if here_repo is None:
        return markdown

    def fix(m):
        target = m.group(2)
        if SKIP.match(target):
            return m.group(0)
        found = _resolve(root, here_repo, target)
        if found is None or found not in _SITE_OF_REPO:
            return m.group(0)                     # broken: left for MkDocs to report
        anchor = "#" + target.split("#", 1)[1] if "#" in target else ""
        rel = posixpath.relpath(_SITE_OF_REPO[found], posixpath.dirname(here_site) or ".")
        return f"{m.group(1)}{rel}{anchor}{m.group(3)}"

    out, fenced = [], False
    for line in markdown.split("\n"):
        if FENCE.match(line):
            fenced = not fenced
        out.append(line if fenced else LINK.sub(fix, line))
    return "\n".join(out)


def on_page_content(html, page, config, files):
    if UNSET not in html:
        return html
    return UNSET_FLAG.sub(r"\1<code>False</code>", html).replace(UNSET, "None")

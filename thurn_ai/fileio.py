"""Writing data files safely: every file that holds data is written to a temporary file in the same
folder, flushed to disk and renamed into place, so a kill, Ctrl-C or full disk leaves either the old file
or the new one, never a half-written one."""
from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path


@contextlib.contextmanager
def atomic_open(path, mode: str = "w", encoding: str | None = "utf-8", newline: str | None = None):
    """Open a temporary file beside `path` for writing; on success it replaces `path` atomically, on an
    exception it is removed and `path` is untouched."""
    path = Path(path)
    binary = "b" in mode
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, mode, encoding=None if binary else encoding,
                       newline=None if binary else newline) as f:
            yield f
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def atomic_write_text(path, text: str, encoding: str = "utf-8") -> None:
    """Write `text` to `path` atomically."""
    with atomic_open(path, "w", encoding=encoding, newline="") as f:
        f.write(text)


def atomic_write_bytes(path, data: bytes) -> None:
    """Write `data` to `path` atomically."""
    with atomic_open(path, "wb") as f:
        f.write(data)


def atomic_savefig(fig, path, **kwargs) -> None:
    """Save a matplotlib figure to `path` atomically (the format comes from the suffix unless given)."""
    path = Path(path)
    kwargs.setdefault("format", path.suffix.lstrip(".") or None)
    with atomic_open(path, "wb") as f:
        fig.savefig(f, **kwargs)


def atomic_to_parquet(df, path, **kwargs) -> None:
    """Write a pandas DataFrame to `path` as Parquet, atomically."""
    with atomic_open(path, "wb") as f:
        df.to_parquet(f, **kwargs)


def atomic_to_csv(df, path, **kwargs) -> None:
    """Write a pandas DataFrame to `path` as CSV, atomically."""
    with atomic_open(path, "w", newline="") as f:
        df.to_csv(f, **kwargs)


def temp_files(folder, name: str) -> list[Path]:
    """Temporary files that atomic writes of `folder/name` left behind when the process was killed."""
    try:
        return [p for p in Path(folder).iterdir()
                if p.name.startswith(f".{name}.") and p.name.endswith(".tmp") and p.is_file()]
    except OSError:
        return []


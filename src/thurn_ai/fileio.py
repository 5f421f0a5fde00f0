"""Writing data files safely: every file that holds data is written to a temporary file in the same
folder, flushed to disk and renamed into place, so a kill, Ctrl-C or full disk leaves either the old file
or the new one, never a half-written one.

Reading data files a user gives (positions, boards, game records): `load_json(path, what, error)` turns
every malformed input into one error of the given ThurnError class naming the file and the problem —
unreadable, too large, not UTF-8, not JSON, absurdly nested, huge numbers — and never another exception."""
from __future__ import annotations

import contextlib
import hashlib
import io
import json
import math
import os
import re
import stat
import tempfile
from itertools import accumulate
from pathlib import Path

from .errors import ThurnError


@contextlib.contextmanager
def atomic_open(path, mode: str = "w", encoding: str | None = "utf-8", newline: str | None = None,
                what: str = "output file"):
    """Open a temporary file beside `path` for writing; on success it replaces `path` atomically, on an
    exception it is removed and `path` is untouched. `path` must be missing or a regular file with one
    name (check_replaceable; else one ThurnError naming `what`): the project never writes through a
    symbolic link, splits a hard link or replaces a device, FIFO or folder."""
    path = Path(path)
    check_replaceable(path, what)
    binary = "b" in mode
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        _set_mode(fd, path)
        with os.fdopen(fd, mode, encoding=None if binary else encoding,
                       newline=None if binary else newline) as f:
            yield f
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException as e:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        if isinstance(e, OSError) and e.errno is not None and e.filename in (None, tmp):
            # a failed write (a full disk) names no file, a failed rename the temporary one: name the file
            raise OSError(e.errno, e.strerror or str(e), os.fspath(path)) from None
        raise


def _set_mode(fd: int, path: Path) -> None:
    """Give the temporary file (created 0600) the permissions the file it replaces has, or a new file would
    get (0666 less the umask), so an atomic write does not make results private."""
    if not hasattr(os, "fchmod"):
        return
    try:
        mode = os.stat(path).st_mode & 0o7777
    except OSError:
        mode = 0o666 & ~_umask()
    with contextlib.suppress(OSError):
        os.fchmod(fd, mode)


def _umask() -> int:
    try:                                 # Linux: read it without changing it (os.umask would, for a moment)
        with open("/proc/self/status", encoding="ascii", errors="replace") as f:
            for line in f:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    old = os.umask(0o022)
    os.umask(old)
    return old


def atomic_write_text(path, text: str, encoding: str = "utf-8", what: str = "output file") -> None:
    """Write `text` to `path` atomically (see atomic_open)."""
    with atomic_open(path, "w", encoding=encoding, newline="", what=what) as f:
        f.write(text)


def atomic_write_bytes(path, data: bytes, what: str = "output file") -> None:
    """Write `data` to `path` atomically (see atomic_open)."""
    with atomic_open(path, "wb", what=what) as f:
        f.write(data)


def atomic_savefig(fig, path, what: str = "output file", **kwargs) -> None:
    """Save a matplotlib figure to `path` atomically (the format comes from the suffix unless given)."""
    path = Path(path)
    kwargs.setdefault("format", path.suffix.lstrip(".") or None)
    with atomic_open(path, "wb", what=what) as f:
        fig.savefig(f, **kwargs)


def atomic_to_parquet(df, path, **kwargs) -> None:
    """Write a pandas DataFrame to `path` as Parquet, atomically."""
    with atomic_open(path, "wb") as f:
        df.to_parquet(f, **kwargs)


def atomic_to_csv(df, path, **kwargs) -> None:
    """Write a pandas DataFrame to `path` as CSV, atomically."""
    with atomic_open(path, "w", newline="") as f:
        df.to_csv(f, **kwargs)


def check_replaceable(path, what: str, error=ThurnError) -> None:
    """One `error` unless `path` is missing or a regular file with one name. An atomic write replaces what
    the path is: a symbolic link would become a file (its target never written), a hard link would be
    split from its other names, a device or FIFO would be replaced by a file (as root: /dev/null)."""
    shown = path_text(path)
    if not str(path):
        raise error(f"{what}: the file name is empty")
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return
    except (OSError, ValueError) as e:
        raise error(f"cannot use {what} {shown}: {getattr(e, 'strerror', None) or e}") from None
    if stat.S_ISLNK(st.st_mode):
        raise error(f"{what} {shown} is a symbolic link; give the file it points to")
    if not stat.S_ISREG(st.st_mode):
        raise error(f"{what} {shown} is not a regular file (a folder, device, FIFO or socket)")
    if st.st_nlink > 1:
        raise error(f"{what} {shown} has {st.st_nlink} names (hard links); rewriting it would split them: "
                    "give a file with one name")


def read_existing(path, what: str, error=ThurnError, max_bytes: int | None = None) -> bytes:
    """The bytes of a regular file about to be rewritten (check_replaceable first), b"" when it does not
    exist; read without following a link and at most `max_bytes` (MAX_FILE_BYTES) bytes, else `error`."""
    max_bytes = MAX_FILE_BYTES if max_bytes is None else max_bytes
    check_replaceable(path, what, error)
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0))
    except FileNotFoundError:
        return b""
    except OSError as e:
        raise error(f"cannot read {what} {path_text(path)}: {e.strerror or e}") from None
    if not stat.S_ISREG(os.fstat(fd).st_mode):      # replaced since the check (before fdopen: see _open_regular)
        os.close(fd)
        raise error(f"{what} {path_text(path)} is not a regular file")
    with os.fdopen(fd, "rb") as f:
        data = read_capped(f, max_bytes)
    if data is None:
        raise error(f"{what} {path_text(path)} is larger than {_size(max_bytes)}; start a new file")
    return data


def open_append(path, what: str = "log file", error=ThurnError):
    """A log file opened for appending text (created when missing), only if it is a regular file with one
    name (see check_replaceable): opened without following a link and without blocking on a FIFO, and
    checked again once open. Appending cannot be atomic; the readers of such logs keep complete lines."""
    check_replaceable(path, what, error)
    flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    fd = os.open(path, flags, 0o666)
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or st.st_nlink > 1:       # replaced since the check
            raise error(f"{what} {path_text(path)} is not a regular file with one name")
        if hasattr(os, "set_blocking"):
            os.set_blocking(fd, True)
        return os.fdopen(fd, "a", encoding="utf-8", newline="")
    except BaseException:
        os.close(fd)
        raise


def _open_regular(path, what: str, error, shown: str) -> int:
    """A file descriptor of the regular file `path` (a symbolic link to one is followed), opened without
    blocking on a FIFO; anything else (a folder, device, FIFO, socket) is one `error` naming the path.
    FileNotFoundError passes through."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except FileNotFoundError:
        raise
    except (OSError, ValueError, TypeError) as e:
        raise error(f"cannot read {what} {shown}: {getattr(e, 'strerror', None) or e}") from None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):   # before fdopen, whose error would name the descriptor
            raise error(f"{what} {shown} is not a regular file (a folder, device, FIFO or socket)")
        if hasattr(os, "set_blocking"):
            os.set_blocking(fd, True)
    except BaseException:
        os.close(fd)
        raise
    return fd


def read_bounded(path, what: str, error=ThurnError, max_bytes: int | None = None) -> bytes:
    """The bytes of a data file the project reads back (its own logs, a user's CSV, a saved .gz): at most
    `max_bytes` (MAX_FILE_BYTES) are read, and anything larger, or not a regular file (a device such as
    /dev/zero, a FIFO, a folder; a symbolic link to a regular file is followed), is one `error` naming
    `what` and the path. FileNotFoundError passes through (callers treat a missing file their own way)."""
    max_bytes = MAX_FILE_BYTES if max_bytes is None else max_bytes
    shown = path_text(path)
    with os.fdopen(_open_regular(path, what, error, shown), "rb") as f:
        if os.fstat(f.fileno()).st_size > max_bytes:          # known before reading a byte
            raise error(f"{what} {shown} is larger than {_size(max_bytes)}, more than it can be")
        try:
            data = read_capped(f, max_bytes)
        except OSError as e:
            raise error(f"cannot read {what} {shown}: {e.strerror or e}") from None
    if data is None:
        raise error(f"{what} {shown} is larger than {_size(max_bytes)}, more than it can be")
    return data


#: The bytes read at a time past what a file's size announced (a file still growing, /proc, a pipe).
READ_CHUNK = 2 ** 20


def read_capped(f, max_bytes: int) -> bytes | None:
    """The rest of the open binary file `f`, or None once more than `max_bytes` bytes come: read in
    chunks and stopped at the bound, so memory follows what the file holds, never the bound (f.read(n)
    allocates n bytes first: a bound of 8 GB asked for 8 GB for a file of 1 kB). A regular file is read
    in one piece of its announced size; whatever follows (it grew, /proc, a pipe, a device) in chunks of
    READ_CHUNK, at most max_bytes + 1 bytes in all."""
    try:
        announced = os.fstat(f.fileno()).st_size
    except (OSError, AttributeError, ValueError, io.UnsupportedOperation):
        announced = 0
    parts, got = [], 0
    want = min(announced, max_bytes) + 1 if announced else READ_CHUNK
    while got <= max_bytes:
        part = f.read(min(want, max_bytes + 1 - got))
        if not part:
            break
        parts.append(part)
        got += len(part)
        want = READ_CHUNK
    if got > max_bytes:
        return None
    return parts[0] if len(parts) == 1 else b"".join(parts)


def hash_bounded(path, what: str, error=ThurnError, max_bytes: int | None = None) -> str:
    """The SHA-256 (hex) of a regular file's bytes, streamed in chunks of READ_CHUNK, at most `max_bytes`
    (MAX_FILE_BYTES) of them: anything larger or not a regular file is one `error` (see read_bounded)."""
    max_bytes = MAX_FILE_BYTES if max_bytes is None else max_bytes
    shown = path_text(path)
    digest, got = hashlib.sha256(), 0
    with os.fdopen(_open_regular(path, what, error, shown), "rb") as f:
        try:
            while part := f.read(READ_CHUNK):
                got += len(part)
                if got > max_bytes:
                    raise error(f"{what} {shown} is larger than {_size(max_bytes)}, more than it can be")
                digest.update(part)
        except OSError as e:
            raise error(f"cannot read {what} {shown}: {e.strerror or e}") from None
    return digest.hexdigest()


def read_lines(path, what: str, error=ThurnError, max_line: int = 64 * 2 ** 20):
    """The complete lines of a log file the project appends to, streamed: (offset, line without its
    newline) for each, so a log of any size is read in little memory. What follows the last newline (a
    line a killed run was writing) is left out, and so is a line longer than `max_line` bytes (damaged: it
    is read through, never held). Not a regular file: one `error` (see read_bounded); FileNotFoundError
    passes through."""
    shown = path_text(path)
    with os.fdopen(_open_regular(path, what, error, shown), "rb") as f:
        offset = 0
        try:
            while True:
                line = f.readline(max_line + 1)
                if not line:
                    return
                start, offset = offset, offset + len(line)
                if len(line) > max_line:         # too long: skip to its end
                    while line and not line.endswith(b"\n"):
                        line = f.readline(2 ** 20)
                        offset += len(line)
                    continue
                if line.endswith(b"\n"):
                    yield start, line[:-1]
        except OSError as e:
            raise error(f"cannot read {what} {shown}: {e.strerror or e}") from None


_digests: dict = {}


def sha256_of(path) -> str:
    """The SHA-256 of a file's bytes as hex ('' when it cannot be read, is not a regular file or is larger
    than MAX_FILE_BYTES: hash_bounded), read again only when the file's size or modification time changed
    (a search reads its weights files' digests at every analysis)."""
    try:
        p = Path(path).expanduser().resolve()
        st = p.stat()
    except (OSError, RuntimeError, ValueError):
        return ""
    key = (p, st.st_size, st.st_mtime_ns)
    if key not in _digests:
        try:                # a regular file of at most MAX_FILE_BYTES (a link to /dev/zero is not read)
            _digests[key] = hash_bounded(p, "file")
        except (OSError, ThurnError):
            return ""
    return _digests[key]


def finite_json(value):
    """`value` with every float that is not finite (NaN, inf) replaced by None, so json.dumps writes JSON
    (RFC 8259 has no NaN); a value the search never reached is null, as the web page reads it."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: finite_json(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [finite_json(v) for v in value]
    return value


def path_text(path) -> str:
    """A path as a message shows it: as is, or quoted when it holds a line break or another control
    character (so an `error:` line stays one line)."""
    text = os.fspath(path) if isinstance(path, (str, os.PathLike)) else str(path)
    if isinstance(text, bytes):
        text = text.decode(errors="replace")
    return text if text.isprintable() else repr(text)


def claim_folder(folder, marker: str, option: str, error=ThurnError) -> Path:
    """The folder a command writes its many files into (`option` names it in messages), made safe for a
    user's files: used when it is new or empty (it is then marked with the empty file `marker`) or holds
    `marker` (the command made it, and rewrites its own files there); any other folder is refused, so
    nothing a user put there is ever overwritten."""
    folder = Path(folder)
    shown = path_text(folder)
    try:
        names = sorted(p.name for p in folder.iterdir()) if folder.exists() else []
    except OSError as e:
        raise error(f"cannot read {option} folder {shown}: {e.strerror or e}") from None
    if marker in names:
        return folder
    if names:
        listed = ", ".join(path_text(n) for n in names[:3]) + (", ..." if len(names) > 3 else "")
        raise error(f"{option} folder {shown} holds files ({listed}) but no {marker}, so it was not made "
                    f"by this command and nothing in it is overwritten; choose a new or empty folder")
    try:
        folder.mkdir(parents=True, exist_ok=True)
        atomic_write_text(folder / marker, "")
    except OSError as e:
        raise error(f"cannot write to {option} folder {shown}: {e.strerror or e}") from None
    return folder


def temp_files(folder, name: str) -> list[Path]:
    """Temporary files that atomic writes of `folder/name` left behind when the process was killed."""
    try:
        return [p for p in Path(folder).iterdir()
                if p.name.startswith(f".{name}.") and p.name.endswith(".tmp") and p.is_file()]
    except OSError:
        return []


# ---------------------------------------------------------------- reading JSON a user gives

#: The most bytes read from one data file: a position, board or record file is a few kB, so this only
#: stops a wrong path (/dev/zero, a disk image) from filling the memory.
MAX_FILE_BYTES = 64 * 2 ** 20
#: The deepest nesting accepted: the formats need 5 levels; deeper data is a mistake (and 100,000 levels
#: would exhaust Python's recursion limit in the parser and in every function that walks the data).
MAX_JSON_DEPTH = 64
#: The longest integer accepted, in digits: seeds and generator states are 64-bit (20 digits).
MAX_INT_DIGITS = 40

# The depth check's three linear passes (each regex matches without backtracking): drop escape pairs, then
# strings (an unterminated one runs to the end), then everything but brackets.
_ESCAPE = re.compile(r"\\.", re.S)
_STRING = re.compile(r'"[^"]*"?')
_NOT_BRACKET = re.compile(r"[^\[\]{}]+")
_STEP = {"[": 1, "{": 1, "]": -1, "}": -1}
#: The characters of one slice of the depth check (each of its C calls then takes well under a millisecond).
JSON_SLICE = 16 * 2 ** 10


class _Refused(Exception):
    """Raised by the parser's hooks; carries the phrase that ends up in the user's message."""


def read_text(path, what: str, error=ThurnError, max_bytes: int = MAX_FILE_BYTES) -> str:
    """The text of a data file given by a user (UTF-8, a byte-order mark is dropped), read at most
    `max_bytes` bytes (streamed: read_capped). Every problem is one `error` (a ThurnError class) naming
    `what` and the path: "cannot read position file p.json: No such file or directory", "board file b.json
    is not UTF-8 text (byte 3, line 1)", "record file r.jsonl is larger than 64 MB"."""
    shown = path_text(path)
    try:
        with open(path, "rb") as f:
            data = read_capped(f, max_bytes)
    except OSError as e:
        raise error(f"cannot read {what} {shown}: {e.strerror or e}") from None
    except (ValueError, TypeError) as e:      # e.g. a path with a NUL byte
        raise error(f"cannot read {what} {path!r}: {e}") from None
    if data is None:
        raise error(f"{what} {shown} is larger than {_size(max_bytes)}; it cannot be a {what}")
    return decode_text(data, f"{what} {shown}", error)


def decode_text(data: bytes, source: str, error=ThurnError) -> str:
    """A file's bytes as text (UTF-8, a byte-order mark dropped), else one `error` "<source> is not UTF-8
    text (byte 3, line 1)"."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        line = data.count(b"\n", 0, e.start) + 1
        raise error(f"{source} is not UTF-8 text (byte {e.start + 1}, line {line})") from None


def loads_json(text: str, source: str, error=ThurnError):
    """JSON text as Python data, or one `error` "<source> <problem>" for anything that is not plain,
    reasonable JSON: a syntax error (with line and column), nesting deeper than MAX_JSON_DEPTH, an integer
    of more than MAX_INT_DIGITS digits, NaN/Infinity or a number beyond the float range, a key given
    twice in one object, a string holding an unpaired surrogate. Never another exception type."""
    try:
        return _loads(text)
    except _Refused as e:
        raise error(f"{source} {e}") from None
    except json.JSONDecodeError as e:
        raise error(f"{source} is not valid JSON: {e.msg} at line {e.lineno}, column {e.colno}") from None
    except RecursionError:
        raise error(f"{source} is nested more than {MAX_JSON_DEPTH} levels deep") from None
    except (ValueError, TypeError, OverflowError, MemoryError) as e:
        raise error(f"{source} cannot be read as JSON: {type(e).__name__}") from None


def load_json(path, what: str, error=ThurnError, max_bytes: int = MAX_FILE_BYTES):
    """The JSON data of a file a user gives: read_text() then loads_json(), so every problem is one
    `error` naming `what` and the path (see both). Used by every loader of positions, boards and records."""
    return loads_json(read_text(path, what, error, max_bytes), f"{what} {path_text(path)}", error)


def _size(n: int) -> str:
    if n >= 2 ** 30 and n % 2 ** 30 == 0:
        return f"{n // 2 ** 30} GB"
    return f"{n // 2 ** 20} MB" if n >= 2 ** 20 else f"{n} bytes"


def _loads(text: str):
    if not isinstance(text, str):
        raise _Refused("is not text")
    _check_depth(text)
    value = json.loads(text, parse_int=_parse_int, parse_float=_parse_float, parse_constant=_parse_constant,
                       object_pairs_hook=_object)
    _check_strings(value)
    return value


def _check_depth(text: str, slice_size: int | None = None) -> None:
    """Refuses nesting deeper than MAX_JSON_DEPTH before the parser sees it (the parser recurses).

    Linear in the text's length (a 1 MB body is checked in about 0.1 s; experiments/json_depth_bench.py).
    Escape pairs are dropped before strings: outside a string a backslash is a syntax error anyway, and
    the parser stops at the first error, so only the brackets before it matter; for the same reason
    the running depth needs no floor at zero (after an unmatched closer nothing more is parsed).

    The text is checked in slices of JSON_SLICE characters, carrying what crosses a slice's end (a
    backslash waiting for its pair, a string still open, the depth): a regex pass over a whole large text
    is one C call that holds Python's lock for tens of milliseconds, during which no other thread runs (in
    the web server, not the event loop either); between slices other threads get their turn."""
    size = slice_size or JSON_SLICE
    if sum(text.count("[", i, i + size) + text.count("{", i, i + size) for i in range(0, len(text), size)) \
            <= MAX_JSON_DEPTH:
        return
    depth, skip_first, in_string = 0, False, False
    for start in range(0, len(text), size):
        part = text[start + skip_first:start + size]
        part = _ESCAPE.sub("", part)
        skip_first = part.endswith("\\")       # its pair is the next slice's first character
        if skip_first:
            part = part[:-1]
        if in_string:                           # the rest of a string opened in an earlier slice
            end = part.find('"')
            if end < 0:
                continue
            part = part[end + 1:]
        in_string = part.count('"') % 2 == 1    # after the escapes, every quote opens or closes a string
        brackets = _NOT_BRACKET.sub("", _STRING.sub("", part))
        if max(accumulate(map(_STEP.__getitem__, brackets), initial=depth)) > MAX_JSON_DEPTH:
            raise _Refused(f"is nested more than {MAX_JSON_DEPTH} levels deep")
        depth += 2 * (brackets.count("[") + brackets.count("{")) - len(brackets)


def _parse_int(s: str) -> int:
    digits = len(s) - s.startswith("-")
    if digits > MAX_INT_DIGITS:
        raise _Refused(f"holds an integer of {digits} digits (at most {MAX_INT_DIGITS} are accepted)")
    return int(s)


def _parse_float(s: str) -> float:
    x = float(s)
    if not math.isfinite(x):
        raise _Refused(f"holds the number {s[:20]}{'...' if len(s) > 20 else ''}, which is out of range")
    return x


def _parse_constant(s: str):
    raise _Refused(f"holds {s}, which is not a JSON number")


def _object(pairs: list) -> dict:
    d = dict(pairs)
    if len(d) != len(pairs):
        seen = set()
        for k, _ in pairs:
            if k in seen:
                raise _Refused(f"holds the key {short_repr(k)} twice in one object")
            seen.add(k)
    return d


def _check_strings(value) -> None:
    """Refuses strings that cannot be written out again (an unpaired surrogate such as "\\ud800")."""
    todo = [value]
    while todo:
        v = todo.pop()
        if isinstance(v, dict):
            todo.extend(v.keys())
            todo.extend(v.values())
        elif isinstance(v, list):
            todo.extend(v)
        elif isinstance(v, str) and not v.isascii():
            try:
                v.encode("utf-8")
            except UnicodeEncodeError:
                raise _Refused("holds a string that is not valid Unicode (an unpaired surrogate)") from None


def short_repr(value, limit: int = 60) -> str:
    """repr() cut to `limit` characters, for quoting a user's value in a one-line message."""
    try:
        r = repr(value)
    except (RecursionError, ValueError):
        return f"<{type(value).__name__}>"
    return r if len(r) <= limit else r[:limit - 3] + "..."

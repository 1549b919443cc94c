"""Files as the commands meet them: problems said in plain words, and no file
overwritten unless the user asked for it.

Python's own texts ("[Errno 13] Permission denied", "'utf-8' codec can't decode byte
0xe8 in position 3") name the machinery, not what to do; these say which file, what is
wrong with it, and, where it helps, what would be right.
"""

from __future__ import annotations

import errno
from pathlib import Path

from pips.core.phrase import phrase


class FileProblem(ValueError):
    """A file that cannot be read or written as asked; its one argument is the phrase
    that says so (said in the reader's language by :func:`pips.i18n.explain`)."""


def problem(path: Path, exc: OSError | UnicodeDecodeError, writing: bool = False) -> FileProblem:
    """``exc``, met reading or (with ``writing``) writing ``path``, in plain words."""
    if isinstance(exc, UnicodeDecodeError):
        return FileProblem(
            phrase(
                "{path} is not UTF-8 text (byte {byte} at position {position}): "
                "is it the right file?",
                path=path,
                byte=format(exc.object[exc.start], "#04x"),
                position=exc.start,
            )
        )
    said = {
        errno.ENOENT: phrase("{path} cannot be made there", path=path)
        if writing
        else phrase("{path} does not exist", path=path),
        errno.EISDIR: phrase("{path} is a folder, not a file", path=path),
        errno.ENOTDIR: phrase("{path}: a part of this path is a file, not a folder", path=path),
        errno.EACCES: phrase("{path}: no permission to use this file", path=path),
        errno.EPERM: phrase("{path}: no permission to use this file", path=path),
        errno.ENOSPC: phrase("{path}: the disk is full", path=path),
        errno.EROFS: phrase("{path}: the disk is read-only", path=path),
        errno.ENAMETOOLONG: phrase("{path}: the name is too long", path=path),
    }.get(exc.errno or 0)
    if said is None:
        said = phrase("{path}: {reason}", path=path, reason=exc.strerror or str(exc))
    return FileProblem(said)


def read_bytes(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except OSError as exc:
        raise problem(path, exc) from None


def read_text(path: Path) -> str:
    """A UTF-8 text file's text (a byte order mark is dropped)."""
    data = read_bytes(path)
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise problem(path, exc) from None


def may_write(path: Path, force: bool, *, appendable: bool = False) -> None:
    """Refuse to overwrite ``path`` unless ``force`` (naming ``--append`` too where the
    command can add to the file); make its folder."""
    if path.is_dir():
        raise problem(path, IsADirectoryError(errno.EISDIR, "is a folder"))
    if path.exists() and not force:
        raise FileProblem(
            phrase(
                "{path} exists: add --force to overwrite it, or --append to add to it", path=path
            )
            if appendable
            else phrase("{path} exists: add --force to overwrite it", path=path)
        )
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise problem(path.parent, exc, writing=True) from None


def write_bytes(path: Path, data: bytes, force: bool) -> None:
    """Write ``data`` to ``path`` whole or not at all (a new file beside it replaces it),
    refusing an existing file unless ``force``."""
    may_write(path, force)
    fresh = path.with_name(path.name + ".part")
    try:
        fresh.write_bytes(data)
        fresh.replace(path)
    except OSError as exc:
        fresh.unlink(missing_ok=True)
        raise problem(path, exc, writing=True) from None


def write_text(path: Path, text: str, force: bool) -> None:
    write_bytes(path, text.encode("utf-8"), force)

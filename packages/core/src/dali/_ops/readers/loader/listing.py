"""Listing a reader's dataset the way DALI does: class trees, list files, missing files.

`list_file_root` walks a ``file_root`` class tree (one class per subdirectory, labels in
lexicographic order, glob filters as DALI's fnmatch with optional case folding),
`parse_file_list` reads a ``file_list`` (``path label`` per line, spaces allowed in paths), and
`unreadable_files` finds list entries that name no file, or no regular file, listing each
directory once. Used by `readers.file` at build time, so that every such error comes before the
first batch.

Only regular files (or links to them) are samples: opening a FIFO for reading blocks until a
writer comes, and a character device (``/dev/zero``) never ends. DALI's listing skips such
entries of a class tree silently (it keeps ``DT_REG`` and ``DT_LNK`` directory entries); we skip
them too and the reader says which (`Listing.skipped`); in a list of files they are an error.
A file that turns into one after the listing is an error when it is read (`open_sample`).

Standard library only: the reader's worker processes (`_read_worker_main`) load it by path.
"""

from __future__ import annotations

import errno
import fnmatch
import os
import re
import stat
from collections.abc import Sequence
from typing import Any, NamedTuple

__all__ = [
    "DEFAULT_FILE_FILTERS",
    "Listing",
    "file_kind",
    "list_file_root",
    "name_matcher",
    "open_sample",
    "parse_file_list",
    "unreadable_files",
]

#: ``file_filters``'s default: the image and audio extensions DALI's file reader takes.
DEFAULT_FILE_FILTERS = (
    "*.jpg",
    "*.jpeg",
    "*.png",
    "*.bmp",
    "*.tif",
    "*.tiff",
    "*.pnm",
    "*.ppm",
    "*.pgm",
    "*.pbm",
    "*.jp2",
    "*.webp",
    "*.flac",
    "*.ogg",
    "*.wav",
)


def name_matcher(patterns: Sequence[str], case_sensitive: bool) -> Any:
    """A predicate on names for a list of glob patterns (DALI uses fnmatch, FNM_CASEFOLD)."""
    if case_sensitive:
        regex = re.compile("|".join(fnmatch.translate(p) for p in patterns))
        return lambda name: regex.match(name) is not None
    regex = re.compile("|".join(fnmatch.translate(p.lower()) for p in patterns))
    return lambda name: regex.match(name.lower()) is not None


def file_kind(mode: int) -> str:
    """What a file of ``os.stat`` mode ``mode`` is, in words ("a FIFO", "a socket", ...)."""
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode):
        return "a character device"
    if stat.S_ISBLK(mode):
        return "a block device"
    if stat.S_ISDIR(mode):
        return "a directory"
    return "not a regular file"


#: Flags of `open_sample`: never blocking (a FIFO opened for reading waits for a writer without
#: ``O_NONBLOCK``; on regular files it does nothing), and not inherited by child processes.
_OPEN_FLAGS = (
    os.O_RDONLY
    | getattr(os, "O_NONBLOCK", 0)
    | getattr(os, "O_CLOEXEC", 0)
    | getattr(os, "O_BINARY", 0)
)


def open_sample(path: str) -> tuple[int, os.stat_result]:
    """Open a sample's file for reading: its descriptor and ``fstat``.

    The one way the reader opens a file, in this process or a worker: it never blocks, and
    anything but a regular file (a FIFO, a device: listed as a file once, replaced since) is an
    `OSError` naming it, as a missing file is.

    Raises:
        OSError: The file cannot be opened, or is not a regular file (``errno`` EISDIR for a
            directory, EINVAL for the others, with what it is in ``strerror``).
    """
    fd = os.open(path, _OPEN_FLAGS)
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            if stat.S_ISDIR(info.st_mode):
                raise OSError(errno.EISDIR, os.strerror(errno.EISDIR), path)
            raise OSError(errno.EINVAL, f"not a regular file ({file_kind(info.st_mode)})", path)
    except BaseException:
        os.close(fd)
        raise
    return fd, info


class Listing(NamedTuple):
    """A class tree as `list_file_root` lists it."""

    #: the samples' paths ``"<class>/<file>"``, relative to the root, sorted
    paths: list[str]
    #: each sample's label (the index of its class)
    labels: list[int]
    #: how many classes (subdirectories) there are, with samples or not
    classes: int
    #: ``(relative path, what it is)`` of the entries matching the filters that are skipped
    #: because they are not regular files (FIFOs, sockets, devices, broken links)
    skipped: list[tuple[str, str]]


def _kind_of_entry(entry: os.DirEntry[str]) -> str:
    try:
        return file_kind(entry.stat().st_mode)
    except OSError:  # a link to nowhere
        return "a broken link"


def list_file_root(
    root: str,
    file_filters: Sequence[str] = DEFAULT_FILE_FILTERS,
    dir_filters: Sequence[str] | None = None,
    case_sensitive_filter: bool = False,
) -> Listing:
    """List a class tree the way DALI does.

    Every subdirectory of ``root`` (matching ``dir_filters``) is a class; its label is its
    index in lexicographic order. The regular files (or links to them) directly inside it that
    match ``file_filters`` are the samples (deeper directories are ignored; other entries are
    skipped and listed in `Listing.skipped`). The samples are sorted by their relative path
    ``"<class>/<file>"``.

    Raises:
        OSError: ``root`` cannot be listed.

    Example:
        >>> import os, tempfile
        >>> root = tempfile.mkdtemp()
        >>> os.mkdir(os.path.join(root, "cat"))
        >>> open(os.path.join(root, "cat", "a.jpg"), "wb").close()
        >>> os.mkfifo(os.path.join(root, "cat", "b.jpg"))
        >>> list_file_root(root)
        Listing(paths=['cat/a.jpg'], labels=[0], classes=1, skipped=[('cat/b.jpg', 'a FIFO')])
    """
    match_file = name_matcher(file_filters, case_sensitive_filter) if file_filters else None
    match_dir = name_matcher(dir_filters, case_sensitive_filter) if dir_filters else None
    with os.scandir(root) as it:
        classes = sorted(
            e.name for e in it if e.is_dir() and (match_dir is None or match_dir(e.name))
        )
    entries: list[tuple[str, int]] = []
    skipped: list[tuple[str, str]] = []
    for label, cls in enumerate(classes):
        with os.scandir(os.path.join(root, cls)) as it:
            for e in it:
                if e.is_dir():
                    continue
                if match_file is None or match_file(e.name):
                    # is_file() costs no system call for a plain entry (the type comes with
                    # the directory listing); it follows links, as DALI keeps them
                    if e.is_file():
                        entries.append((f"{cls}/{e.name}", label))
                    else:
                        skipped.append((f"{cls}/{e.name}", _kind_of_entry(e)))
    entries.sort()
    skipped.sort()
    return Listing([p for p, _ in entries], [label for _, label in entries], len(classes), skipped)


_LIST_LINE = re.compile(r"(.*\S)\s+(\d+)", re.DOTALL)


def parse_file_list(text: str) -> list[tuple[int, str, int]]:
    """Parse a DALI file list: one ``path label`` per line.

    Trailing whitespace is ignored, empty lines are skipped, the label is the trailing run of
    digits and the name is everything before the whitespace in front of it (inner spaces are
    allowed).

    Returns:
        ``(line_number, path, label)`` for each entry.

    Raises:
        ValueError: A line has no label (the message holds its number and text).

    Example:
        >>> parse_file_list("a b.jpg 3\\n\\nc.jpg\\t12\\n")
        [(1, 'a b.jpg', 3), (3, 'c.jpg', 12)]
    """
    out = []
    for number, raw in enumerate(text.split("\n"), 1):
        line = raw.rstrip()
        if not line:
            continue
        m = _LIST_LINE.fullmatch(line)
        if m is None:
            raise ValueError(
                f"line {number}: expected a file name followed by a label, got {raw!r}"
            )
        out.append((number, m.group(1), int(m.group(2))))
    return out


def unreadable_files(paths: Sequence[str]) -> tuple[list[int], list[tuple[int, str]]]:
    """The entries of ``paths`` that are no samples: ``(missing, not_regular)``, the indices
    of those that do not exist and ``(index, what it is)`` of those that are not regular files
    (or links to them): directories, FIFOs, sockets, devices.

    Lists each directory once instead of a ``stat`` per file, which matters for lists of a
    million files; only the entries not listed as regular files are asked about one by one.
    """
    by_dir: dict[str, list[int]] = {}
    for i, p in enumerate(paths):
        by_dir.setdefault(os.path.dirname(os.path.normpath(p)), []).append(i)
    missing: list[int] = []
    not_regular: list[tuple[int, str]] = []
    for d, indices in by_dir.items():
        try:
            with os.scandir(d or ".") as it:
                names = {e.name for e in it if e.is_file()}
        except OSError:
            names = set()
        for i in indices:
            name = os.path.basename(os.path.normpath(paths[i]))
            if name in names:
                continue
            # symlinked directories and ".." make normpath unreliable: ask the OS then
            try:
                mode = os.stat(paths[i]).st_mode
            except OSError:
                missing.append(i)
                continue
            if not stat.S_ISREG(mode):
                not_regular.append((i, file_kind(mode)))
    missing.sort()
    not_regular.sort()
    return missing, not_regular

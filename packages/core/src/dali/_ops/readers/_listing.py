"""Listing a reader's dataset the way DALI does: class trees, list files, missing files.

`list_file_root` walks a ``file_root`` class tree (one class per subdirectory, labels in
lexicographic order, glob filters as DALI's fnmatch with optional case folding),
`parse_file_list` reads a ``file_list`` (``path label`` per line, spaces allowed in paths), and
`missing_files` finds list entries that name no file, listing each directory once. Used by
`readers.file` at build time, so that every such error comes before the first batch.
"""

from __future__ import annotations

import fnmatch
import os
import re
from collections.abc import Sequence
from typing import Any

__all__ = ["DEFAULT_FILE_FILTERS", "list_file_root", "missing_files", "parse_file_list"]

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


def _matcher(patterns: Sequence[str], case_sensitive: bool) -> Any:
    """A predicate on names for a list of glob patterns (DALI uses fnmatch, FNM_CASEFOLD)."""
    if case_sensitive:
        regex = re.compile("|".join(fnmatch.translate(p) for p in patterns))
        return lambda name: regex.match(name) is not None
    regex = re.compile("|".join(fnmatch.translate(p.lower()) for p in patterns))
    return lambda name: regex.match(name.lower()) is not None


def list_file_root(
    root: str,
    file_filters: Sequence[str] = DEFAULT_FILE_FILTERS,
    dir_filters: Sequence[str] | None = None,
    case_sensitive_filter: bool = False,
) -> tuple[list[str], list[int], int]:
    """List a class tree the way DALI does.

    Every subdirectory of ``root`` (matching ``dir_filters``) is a class; its label is its
    index in lexicographic order. The files directly inside it that match ``file_filters`` are
    the samples (deeper directories are ignored). The samples are sorted by their relative
    path ``"<class>/<file>"``.

    Returns:
        ``(relative_paths, labels, number_of_classes)``.

    Raises:
        OSError: ``root`` cannot be listed.
    """
    match_file = _matcher(file_filters, case_sensitive_filter) if file_filters else None
    match_dir = _matcher(dir_filters, case_sensitive_filter) if dir_filters else None
    with os.scandir(root) as it:
        classes = sorted(
            e.name for e in it if e.is_dir() and (match_dir is None or match_dir(e.name))
        )
    entries: list[tuple[str, int]] = []
    for label, cls in enumerate(classes):
        with os.scandir(os.path.join(root, cls)) as it:
            for e in it:
                if e.is_dir():
                    continue
                if match_file is None or match_file(e.name):
                    entries.append((f"{cls}/{e.name}", label))
    entries.sort()
    return [p for p, _ in entries], [label for _, label in entries], len(classes)


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


def missing_files(paths: Sequence[str]) -> list[int]:
    """Indices of ``paths`` that are not existing files.

    Lists each directory once instead of a ``stat`` per file, which matters for lists of a
    million files.
    """
    by_dir: dict[str, list[int]] = {}
    for i, p in enumerate(paths):
        by_dir.setdefault(os.path.dirname(os.path.normpath(p)), []).append(i)
    missing = []
    for d, indices in by_dir.items():
        try:
            with os.scandir(d or ".") as it:
                names = {e.name for e in it if not e.is_dir()}
        except OSError:
            names = set()
        for i in indices:
            name = os.path.basename(os.path.normpath(paths[i]))
            # symlinked directories and ".." make normpath unreliable: ask the OS then
            if name not in names and not os.path.isfile(paths[i]):
                missing.append(i)
    return missing

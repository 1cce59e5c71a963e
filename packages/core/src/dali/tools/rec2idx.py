"""``rec2idx``: write the index file of MXNet RecordIO files (DALI's ``tools/rec2idx.py``).

`fn.readers.mxnet` lists its records at build; with an index file (``index_path``) it reads one
small text file instead of walking the part headers of the whole data, which matters for large
or remote files. This tool writes that file in MXNet's format (one ``key<TAB>offset`` line per
record, the keys numbered from 0, as DALI's script and ``MXIndexedRecordIO`` write them), so the
index works with either library, and with MXNet.

DALI's script reads the records with MXNet; this one walks the part headers without MXNet
(`dali._ops.readers.recordio.format.scan_records`, in large pieces: the data is never read
beyond the headers of large records) and checks every magic number and continuation flag, so a
file that is not RecordIO, or a truncated one, is an error naming the offset. The files may be
fsspec URLs (``s3://bucket/train.rec``), and so may the index.

Several ``.rec`` files give one index of them all, its offsets counted in the files
concatenated in the order given: the single index ``fn.readers.mxnet`` takes for several
``path`` files (DALI's script takes one file).

Usage::

    python -m dali.tools.rec2idx train.rec train.idx
    python -m dali.tools.rec2idx train-0.rec train-1.rec train.idx

Example:
    >>> import os, tempfile
    >>> from dali._testing.recordio import write_recordio
    >>> folder = tempfile.mkdtemp()
    >>> path = os.path.join(folder, "data.rec")
    >>> _ = write_recordio(path, [((0, i, i, 0), b"x" * i) for i in range(3)], index=False)
    >>> write_index(path, os.path.join(folder, "data.idx"))
    3
    >>> open(os.path.join(folder, "data.idx")).read().splitlines()
    ['0\\t0', '1\\t32', '2\\t68']
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from dali._ops.readers.recordio.format import RecordIOError, scan_records
from dali._ops.readers.recordio.index import format_index
from dali._ops.readers.recordio.stream import Concatenation
from dali._ops.readers.storage import access as _storage
from dali._progress import bar, counted

__all__ = ["main", "write_index"]


def write_index(paths: str | Sequence[str], index_path: str) -> int:
    """Write the index file of the RecordIO file(s) ``paths`` to ``index_path``.

    Args:
        paths: The ``.rec`` file, or several (one index of them all, its offsets counted in
            the files concatenated): local paths or fsspec URLs.
        index_path: The index file to write (replaced if it exists): a local path or a URL.

    Returns:
        The number of records listed.

    Raises:
        ValueError: The data is not (complete) RecordIO (`RecordIOError`, naming the file and
            the offset).
        OSError: A file cannot be read or written.
    """
    files = [paths] if isinstance(paths, str) else list(paths)
    if not files:
        raise ValueError("no RecordIO files given")
    data = Concatenation.open(files)
    try:
        with bar(data.total, f"indexing {files[0]}" + (" ..." if len(files) > 1 else "")) as update:
            offsets = scan_records(data.total, counted(data.read, update))
    except RecordIOError as e:
        raise RecordIOError(f"{data.describe(e.offset)}: {e}", e.offset) from e
    _storage.write_text(index_path, format_index(offsets))
    return len(offsets)


def main(argv: Sequence[str] | None = None) -> int:
    """The command line: ``rec2idx RECORD [RECORD ...] INDEX``; returns the exit status."""
    parser = argparse.ArgumentParser(
        prog="rec2idx",
        description="Creates the index file of MXNet RecordIO files, for fn.readers.mxnet.",
    )
    parser.add_argument(
        "record",
        nargs="+",
        help="path (or URL) of the .rec file; several: one index of them all, offsets counted "
        "in the files concatenated",
    )
    parser.add_argument("index", help="path (or URL) of the index file to write")
    parser.add_argument("-q", "--quiet", action="store_true", help="print nothing on success")
    args = parser.parse_args(argv)
    try:
        n = write_index(args.record, args.index)
    except (ValueError, OSError) as e:
        print(f"rec2idx: error: {e}", file=sys.stderr)
        return 1
    if not args.quiet:
        names = ", ".join(f"'{p}'" for p in args.record)
        print(f"rec2idx: {n} records of {names} indexed in '{args.index}'")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""``tfrecord2idx``: write the index file of a TFRecord file (DALI's ``tfrecord2idx`` script).

`fn.readers.tfrecord` lists its records at build; with an index file per TFRecord file
(``index_path``) it reads one small text file instead of walking the record headers of every
file, which matters for many or remote files. This tool writes that file in DALI's format (one
``offset size`` line per record, ``size`` counting the record's 16 bytes of framing), so the
index works with either library.

Only the record headers are read (`dali._ops.readers.tfrecord.format.scan_records`), in large
pieces, and each header's length checksum is checked: a file that is not a TFRecord, or a
truncated one, is an error naming the offset (DALI's script prints "Not a valid TFRecord file"
and keeps the index of the records before). The file may be an fsspec URL
(``s3://bucket/train-00000-of-01024``), and so may the index.

Usage::

    tfrecord2idx train-00000-of-01024 train-00000-of-01024.idx
    python -m dali.tools.tfrecord2idx train-00000-of-01024 idx/train-00000-of-01024.idx

Example:
    >>> import os, tempfile
    >>> from dali._testing.tfrecords import write_tfrecord
    >>> folder = tempfile.mkdtemp()
    >>> path = os.path.join(folder, "data.tfrecord")
    >>> _ = write_tfrecord(path, [{"label": [i]} for i in range(3)], index=False)
    >>> write_index(path, os.path.join(folder, "data.idx"))
    3
    >>> print(open(os.path.join(folder, "data.idx")).read(), end="")
    0 34
    34 34
    68 34
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from dali._ops.readers.storage import access as _storage
from dali._ops.readers.tfrecord.format import format_index, scan_records
from dali._progress import bar, counted

__all__ = ["main", "write_index"]


def write_index(path: str, index_path: str) -> int:
    """Write the index file of the TFRecord file ``path`` to ``index_path``.

    Args:
        path: The TFRecord file: a local path or an fsspec URL.
        index_path: The index file to write (replaced if it exists): a local path or a URL.

    Returns:
        The number of records listed.

    Raises:
        ValueError: The file is not a (complete) TFRecord file (`TFRecordError`, naming the
            offset).
        OSError: A file cannot be read or written.
    """
    size = _storage.size(path)
    with bar(size, f"indexing {path}") as update:
        offsets, sizes = scan_records(
            size, counted(lambda offset, n: _storage.read_range(path, offset, n), update)
        )
    text = format_index(offsets, sizes)
    _storage.write_text(index_path, text)
    return len(offsets)


def main(argv: Sequence[str] | None = None) -> int:
    """The command line: ``tfrecord2idx TFRECORD INDEX``; returns the exit status."""
    parser = argparse.ArgumentParser(
        prog="tfrecord2idx",
        description="Creates the index file of a TFRecord file, for fn.readers.tfrecord.",
    )
    parser.add_argument("tfrecord", help="path (or URL) of the TFRecord file")
    parser.add_argument("index", help="path (or URL) of the index file to write")
    parser.add_argument("-q", "--quiet", action="store_true", help="print nothing on success")
    args = parser.parse_args(argv)
    try:
        n = write_index(args.tfrecord, args.index)
    except (ValueError, OSError) as e:
        print(f"tfrecord2idx: error: {args.tfrecord}: {e}", file=sys.stderr)
        return 1
    if not args.quiet:
        print(f"tfrecord2idx: {n} records of '{args.tfrecord}' indexed in '{args.index}'")
    return 0


if __name__ == "__main__":
    sys.exit(main())

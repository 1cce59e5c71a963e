"""``wds2idx``: write the index file of a webdataset tar shard (DALI's ``tools/wds2idx.py``).

`fn.readers.webdataset` lists its shards at build; with an index file per shard
(``index_paths``) it reads one small text file instead of walking every tar header, which
matters for many or remote shards. This tool writes that file in DALI 2.4's format (v1.2: one
line per sample, ``<ext> <offset> <size> <member name>`` per component), so the index works with
either library.

The samples are the reader's (`dali._ops.readers.webdataset.index`): runs of consecutive regular,
non-hidden files sharing a key. Only the tar headers are read (`dali._ops.readers.webdataset.tar`),
never the data, and the archive may be an fsspec URL (``s3://bucket/shard.tar``).

Usage::

    python -m dali.tools.wds2idx shard-000000.tar               # writes shard-000000.idx
    python -m dali.tools.wds2idx shard-000000.tar index/000.idx

Example:
    >>> import io, os, tarfile, tempfile
    >>> folder = tempfile.mkdtemp()
    >>> tar_path = os.path.join(folder, "shard.tar")
    >>> with tarfile.open(tar_path, "w", format=tarfile.GNU_FORMAT) as tar:
    ...     for name, data in (("000.jpg", b"abc"), ("000.cls", b"7"), ("001.jpg", b"de")):
    ...         info = tarfile.TarInfo(name)
    ...         info.size = len(data)
    ...         tar.addfile(info, io.BytesIO(data))
    >>> write_index(tar_path, os.path.join(folder, "shard.idx"))
    2
    >>> print(open(os.path.join(folder, "shard.idx")).read(), end="")
    v1.2 2
    jpg 512 3 000.jpg cls 1536 1 000.cls
    jpg 2560 2 001.jpg
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from dali._ops.readers.storage import access as _storage
from dali._ops.readers.webdataset.index import format_index, scan_samples

__all__ = ["default_index_path", "main", "write_index"]


def default_index_path(tar_path: str) -> str:
    """The index beside the archive: its name up to the first dot of the base name, ``.idx``.

    A leading dot of the base name is part of the name (``.data.tar`` gives ``.data.idx``).

    Example:
        >>> default_index_path("shards/train-000.tar.gz"), default_index_path("a")
        ('shards/train-000.idx', 'a.idx')
    """
    base = tar_path.rfind("/") + 1
    dot = tar_path.find(".", base + 1)
    return (tar_path if dot < 0 else tar_path[:dot]) + ".idx"


def write_index(tar_path: str, index_path: str) -> int:
    """Write the index file of the tar shard ``tar_path`` to ``index_path``.

    Args:
        tar_path: The archive: a local path or an fsspec URL.
        index_path: The index file to write (replaced if it exists): a local path or a URL.

    Returns:
        The number of samples listed.

    Raises:
        ValueError: The archive is not a (complete) tar file, holds no samples, or has a member
            name with white space (which the format cannot hold).
        OSError: A file cannot be read or written.
    """
    samples = scan_samples(tar_path)
    text = format_index(samples)
    _storage.write_text(index_path, text)
    return len(samples)


def main(argv: Sequence[str] | None = None) -> int:
    """The command line: ``wds2idx ARCHIVE [INDEX]``; returns the exit status."""
    parser = argparse.ArgumentParser(
        prog="wds2idx",
        description="Creates a webdataset index file for use with fn.readers.webdataset.",
    )
    parser.add_argument("archive", help="path (or URL) of the .tar file")
    parser.add_argument(
        "index",
        nargs="?",
        help="path of the index file (default: the archive's name with .idx)",
    )
    parser.add_argument("-q", "--quiet", action="store_true", help="print nothing on success")
    args = parser.parse_args(argv)
    index = args.index if args.index is not None else default_index_path(args.archive)
    try:
        n = write_index(args.archive, index)
    except (ValueError, OSError) as e:
        print(f"wds2idx: error: {e}", file=sys.stderr)
        return 1
    if not args.quiet:
        print(f"wds2idx: {n} samples of '{args.archive}' indexed in '{index}'")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""RecordIO index files, and where each record of a set of ``.rec`` files lies.

MXNet's index file (written by ``MXIndexedRecordIO`` and ``im2rec.py``, or by ``rec2idx``:
`dali.tools.rec2idx`) lists one record per line as ``key<TAB>offset``: the record's key (an
integer, the image's number) and the byte offset of its first part header. Readers use only the
offsets; DALI reads the keys and drops them, and so does `parse_index`.

DALI's ``fn.readers.mxnet`` takes one index for all its ``path`` files, whose offsets count in
the files *concatenated* in ``path`` order (a single ``.rec`` file's index is the common case;
``rec2idx`` writes such an index for several files). It sorts the offsets, and a record spans
from its offset to the next one (the last to the end of the last file); records of no bytes
(an offset listed twice) are dropped. `locate` does the same and says in which file each record
starts and at which offset within it. A record may run on into the next file (a ``.rec`` file
cut into pieces): the reader then reads the pieces in turn, as DALI does.

Example:
    >>> parse_index("0\\t0\\n1\\t40\\n2\\t96\\n").tolist()
    [0, 40, 96]
    >>> records = locate(np.array([96, 0, 40, 40]), [80, 60])
    >>> records.files.tolist(), records.offsets.tolist(), records.sizes.tolist()
    ([0, 0, 1], [0, 40, 16], [40, 56, 44])
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

import numpy as np

from dali._ops.readers.recordio.format import RecordIOError

__all__ = ["Records", "format_index", "locate", "parse_index"]


def parse_index(text: str) -> np.ndarray:
    """The record offsets (int64, in file order) of an index file's ``key offset`` lines.

    Blank lines are skipped; keys may be any integers (they are not used).

    Raises:
        RecordIOError: A line that is not two integers, or a negative offset; the message
            names the line. (DALI's loader stops reading at such a line without a word.)
    """
    offsets: list[int] = []
    for number, line in enumerate(text.splitlines(), 1):
        fields = line.split()
        if not fields:
            continue
        try:
            if len(fields) != 2:
                raise ValueError
            int(fields[0])
            offset = int(fields[1])
        except ValueError:
            raise RecordIOError(
                f"line {number} is {line.strip()!r}, not `key offset` (two integers)"
            ) from None
        if offset < 0:
            raise RecordIOError(f"line {number} ({line.strip()!r}) has a negative offset")
        offsets.append(offset)
    return np.array(offsets, dtype=np.int64)


def format_index(offsets: Sequence[int] | np.ndarray, keys: Sequence[int] | None = None) -> str:
    """The text of an index file: ``key<TAB>offset`` lines (MXNet's and DALI's format).

    Args:
        offsets: Each record's offset.
        keys: Each record's key (default: 0, 1, 2... as ``rec2idx`` numbers them).
    """
    values = np.asarray(offsets, dtype=np.int64).tolist()
    names = range(len(values)) if keys is None else keys
    return "".join(f"{k}\t{o}\n" for k, o in zip(names, values))


class Records(NamedTuple):
    """The records of a set of files, in the order of the concatenated data (int64 arrays)."""

    #: where each record starts in the files concatenated
    starts: np.ndarray
    #: its size in bytes, to the next record's start (or the end of the data)
    sizes: np.ndarray
    #: the file it starts in (an index into ``path``)
    files: np.ndarray
    #: its offset within that file
    offsets: np.ndarray


def locate(starts: np.ndarray, file_sizes: Sequence[int]) -> Records:
    """The records at ``starts`` (offsets into the files concatenated), as DALI lists them.

    The offsets are sorted; each record runs to the next distinct offset, the last one to the
    end of the data; a repeated offset gives one record.

    Raises:
        RecordIOError: An offset at or past the end of the data.
    """
    ends = np.cumsum(np.asarray(file_sizes, dtype=np.int64))
    total = int(ends[-1]) if len(ends) else 0
    order = np.unique(np.asarray(starts, dtype=np.int64))  # sorted, repeats dropped
    if order.size and order[-1] >= total:
        raise RecordIOError(
            f"it lists a record at offset {int(order[-1])}, but the files hold {total} bytes in all"
        )
    sizes = np.diff(np.append(order, total))
    files = np.searchsorted(ends, order, side="right")
    first = np.concatenate([[0], ends[:-1]])
    return Records(order, sizes, files.astype(np.int64), order - first[files])

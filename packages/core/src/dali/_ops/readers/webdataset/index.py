"""The samples of a webdataset shard: from its index file, or from the tar's headers.

A webdataset sample is a run of consecutive regular files of a tar sharing a *key*: the member
name up to the first dot of its base name (``train/000123.jpg`` and ``train/000123.seg.png``
are the components ``jpg`` and ``seg.png`` of the sample ``train/000123``). A new sample starts
wherever the key changes, so the same key further on is another sample (DALI's rule, which
never holds a shard in memory to regroup it). Hidden files (base name starting with a dot) and
entries that are not regular files are not components.

An index file (DALI's ``wds2idx`` format) lists the samples so that the tar need not be
scanned::

    v1.2 <number of samples>
    <ext> <data offset> <size> <member name> <ext> <data offset> <size> <member name> ...
    ...

one line per sample, one group per component; offsets are those of the data (a multiple of
512). The older ``v1.1`` has no member names (``<ext> <offset> <size>``). A name or extension
holding white space cannot be written in either (`format_index` refuses it).

Example:
    >>> split_name("train/000123.seg.png")
    ('train/000123', 'seg.png')
    >>> text = "v1.2 2\\njpg 512 3 0.jpg cls 1536 1 0.cls\\njpg 2560 5 1.jpg\\n"
    >>> [[c.ext for c in s] for s in parse_index(text, "a.idx")]
    [['jpg', 'cls'], ['jpg']]
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import NamedTuple

from dali._ops.readers.webdataset.tar import BLOCK, Member, TarSource, parse_header, scan

__all__ = [
    "CURRENT_VERSION",
    "VERSIONS",
    "Component",
    "IndexFormatError",
    "check_against_tar",
    "format_index",
    "group_members",
    "is_hidden",
    "parse_index",
    "scan_samples",
    "split_name",
]

#: The version `format_index` writes (DALI 2.4's ``wds2idx``).
CURRENT_VERSION = "v1.2"
#: Versions read, with the number of fields of a component.
VERSIONS = {"v1.1": 3, "v1.2": 4}


class IndexFormatError(ValueError):
    """A malformed index file, or one that does not describe its tar; names file and line."""


class Component(NamedTuple):
    """One file of a sample: its extension, where its data lies in the tar, its member name."""

    ext: str
    offset: int
    size: int
    #: the member's name ("" when the index (v1.1) does not give it)
    name: str


def split_name(name: str) -> tuple[str, str]:
    """``(key, extension)`` of a member: split at the first dot of the base name.

    A name without a dot in its base name is its own key and extension (as DALI splits it), so
    ``ext=["README"]`` selects a member ``README``.
    """
    base = name.rfind("/") + 1
    dot = name.find(".", base)
    if dot < 0:
        return name, name
    return name[:dot], name[dot + 1 :]


def is_hidden(name: str) -> bool:
    """Whether the member's base name starts with a dot (``.DS_Store``, ``dir/.keep``)."""
    return name[name.rfind("/") + 1 :].startswith(".")


def group_members(members: Iterable[Member]) -> list[list[Component]]:
    """The samples of a shard: runs of consecutive regular, non-hidden members with one key."""
    samples: list[list[Component]] = []
    last_key: str | None = None
    for m in members:
        if not m.regular or is_hidden(m.name):
            continue
        key, ext = split_name(m.name)
        component = Component(ext, m.offset, m.size, m.name)
        if key != last_key:
            samples.append([component])
            last_key = key
        else:
            samples[-1].append(component)
    return samples


def scan_samples(path: str) -> list[list[Component]]:
    """The samples of the tar at ``path``, from its headers (`_wds_tar.scan`)."""
    return group_members(scan(path))


# -- index files ------------------------------------------------------------------------------


def parse_index(text: str, index_path: str) -> list[list[Component]]:
    """The samples an index file lists, in order.

    Raises:
        IndexFormatError: Naming ``index_path`` and the line: no or an unknown version, a
            count that is not positive or not the number of lines, a component with missing
            or non-numeric fields, an offset that is not a multiple of 512, a line without
            components.
    """
    lines = text.split("\n")
    head = lines[0].split()

    def fail(line: int, why: str) -> IndexFormatError:
        return IndexFormatError(f"malformed index file '{index_path}', line {line}: {why}")

    if not head:
        raise fail(1, "no version signature (expected 'v1.2 <number of samples>')")
    version = head[0]
    if version not in VERSIONS:
        raise fail(1, f"unsupported version {version!r} (supported: {', '.join(VERSIONS)})")
    if len(head) < 2:
        raise fail(1, "no sample count after the version")
    try:
        count = int(head[1])
    except ValueError:
        raise fail(1, f"the sample count {head[1]!r} is not an integer") from None
    if count <= 0:
        raise fail(1, f"the sample count must be positive, got {count}")
    fields = VERSIONS[version]
    body = lines[1:]
    while body and not body[-1].strip():  # the final newline, blank lines at the end
        body.pop()
    if len(body) != count:
        raise fail(
            1,
            f"the header announces {count} samples but {len(body)} lines follow "
            "(the index is truncated or not this one's)",
        )
    layout = "<ext> <offset> <size> <name>" if fields == 4 else "<ext> <offset> <size>"
    samples: list[list[Component]] = []
    for number, line in enumerate(body, start=2):
        tokens = line.split()
        if not tokens:
            raise fail(number, "no components in the sample")
        if len(tokens) % fields:
            raise fail(
                number,
                f"{len(tokens)} fields are not whole components: each is `{layout}` ({version})",
            )
        sample = []
        for k in range(0, len(tokens), fields):
            ext, offset, size = tokens[k : k + 3]
            try:
                off, sz = int(offset), int(size)
            except ValueError:
                raise fail(
                    number,
                    f"component {k // fields + 1} ({ext!r}): offset {offset!r} and size "
                    f"{size!r} must be integers (each component is `{layout}`)",
                ) from None
            if off < 0 or sz < 0:
                raise fail(number, f"component {ext!r}: negative offset or size")
            if off % BLOCK:
                raise fail(
                    number,
                    f"component {ext!r}: offset {off} is not a multiple of the tar block "
                    f"size ({BLOCK}); were offset and size swapped?",
                )
            name = tokens[k + 3] if fields == 4 else ""
            sample.append(Component(ext, off, sz, name))
        samples.append(sample)
    return samples


def format_index(samples: Sequence[Sequence[Component]]) -> str:
    """The text of a `CURRENT_VERSION` index file listing ``samples``.

    Raises:
        ValueError: No samples, or a member name or extension holding white space (the
            format separates fields by white space; such a shard can be read without index).
    """
    if not samples:
        raise ValueError("the archive holds no samples (no regular, non-hidden files)")
    lines = [f"{CURRENT_VERSION} {len(samples)}"]
    for sample in samples:
        parts = []
        for c in sample:
            if any(ch.isspace() for ch in c.name) or any(ch.isspace() for ch in c.ext):
                raise ValueError(
                    f"member {c.name!r} has white space in its name, which the index format "
                    "cannot hold (read the archive without an index)"
                )
            parts.append(f"{c.ext} {c.offset} {c.size} {c.name}")
        lines.append(" ".join(parts))
    return "\n".join(lines) + "\n"


def check_against_tar(
    samples: Sequence[Sequence[Component]], tar_path: str, index_path: str
) -> None:
    """Check that an index describes its tar, at the cost of two header reads.

    Every component must lie inside the file, and the headers before the first and the last
    component must be those of regular files of the sizes the index gives (an index made for
    another shard, or a shard rewritten since, fails one or the other).

    Raises:
        IndexFormatError: Naming both files and the offending line.
        OSError: The tar cannot be read.
    """
    with TarSource(tar_path) as src:
        end = src.size
        for line, sample in enumerate(samples, start=2):
            for c in sample:
                if c.offset + c.size > end:
                    raise IndexFormatError(
                        f"index file '{index_path}', line {line}: component {c.ext!r} "
                        f"({c.size} bytes at offset {c.offset}) lies outside '{tar_path}' "
                        f"({end} bytes): the index does not match the archive"
                    )
        probes = [(2, samples[0][0]), (len(samples) + 1, samples[-1][-1])]
        for line, c in probes:
            why = _header_mismatch(src.read(c.offset - BLOCK, BLOCK), c)
            if why:
                raise IndexFormatError(
                    f"index file '{index_path}', line {line}: component {c.ext!r} at offset "
                    f"{c.offset}: {why} in '{tar_path}': the index does not match the archive"
                )


def _header_mismatch(block: bytes, c: Component) -> str:
    """Why ``block`` is not the header of component ``c`` ("" when it is)."""
    if c.offset < BLOCK or len(block) < BLOCK:
        return "no tar header precedes it"
    try:
        header = parse_header(block)
    except ValueError:
        return "no tar header precedes it"
    if header is None:
        return "no tar header precedes it"
    if header.size != c.size and c.size < 8 << 30:  # (pax may override sizes of >= 8 GiB)
        return f"the member there has {header.size} bytes, the index says {c.size}"
    return ""

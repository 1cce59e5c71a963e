"""Progress bars for long builds and tools, through tqdm, shown only on a terminal.

`bar` is what a slow step (parsing a large COCO annotation file, writing an index of a large
TFRecord, tar or RecordIO file) reports its progress to. It draws a tqdm bar on standard error
when that is a terminal and tqdm is installed; otherwise (a log file, a CI job, a notebook's
captured output, no tqdm) it does nothing at all, so the step runs as fast and as quietly as
without it. Steps below `MIN_TOTAL` units draw nothing either: a bar that flashes for a few
milliseconds says nothing.

Example:
    >>> with bar(100, "reading") as update:   # not a terminal here: nothing is drawn
    ...     update(60)
    ...     update(40)
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Callable, Iterator, Sized
from typing import TypeVar

__all__ = ["MIN_TOTAL", "bar", "counted", "enabled"]

_D = TypeVar("_D", bound=Sized)

#: Below this many units (bytes, entries) no bar is drawn.
MIN_TOTAL = 8 << 20


def enabled() -> bool:
    """Whether bars are drawn: standard error is a terminal and tqdm is installed."""
    try:
        if not sys.stderr.isatty():
            return False
    except (AttributeError, ValueError):  # replaced or closed stderr
        return False
    try:
        import tqdm  # type: ignore[import-untyped,unused-ignore]  # noqa: F401
    except ImportError:
        return False
    return True


@contextlib.contextmanager
def bar(
    total: int | None, desc: str, unit: str = "B", min_total: int | None = None
) -> Iterator[Callable[[int], None]]:
    """A context whose value, called with a count, advances the bar by that much.

    Args:
        total: The units the step will report in all (None: unknown).
        desc: What the step is ("parsing instances.json").
        unit: "B" (bytes, shown as KB/MB) or a word ("annotations").
        min_total: Draw nothing for a ``total`` below this (default `MIN_TOTAL`).
    """
    if min_total is None:
        min_total = MIN_TOTAL
    if (total is not None and total < min_total) or not enabled():
        yield _nothing
        return
    from tqdm import tqdm  # type: ignore[import-untyped,unused-ignore]

    scale = unit == "B"
    with tqdm(
        total=total,
        desc=desc,
        unit=unit,
        unit_scale=scale,
        unit_divisor=1024 if scale else 1000,
        leave=False,
        file=sys.stderr,
        dynamic_ncols=True,
    ) as progress:
        yield progress.update


def _nothing(_: int) -> None:
    return None


def counted(
    read: Callable[[int, int], _D], update: Callable[[int], None]
) -> Callable[[int, int], _D]:
    """``read(offset, n)`` that also advances a bar by the bytes it returns."""

    def reading(offset: int, n: int) -> _D:
        data = read(offset, n)
        update(len(data))
        return data

    return reading

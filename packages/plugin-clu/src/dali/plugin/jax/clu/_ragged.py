"""Ragged outputs as arrays of a few fixed shapes: padding and buckets (beyond DALI).

JAX needs every batch as one array, and a jitted step recompiles for every new shape. DALI's
peekable iterator fails on a batch whose samples differ in shape and on any shape change from
batch to batch. Here an output may instead be declared:

* ``pad_to={name: shape}``: every sample is padded (at the end of each axis, with
  ``pad_value``) to ``shape``; a ``None`` extent is not padded (the samples must already
  agree on it). One shape for ever: ``element_spec`` gives it.
* ``buckets={name: [shape, ...]}``: each batch is padded to the smallest of the shapes that
  holds all its samples (the same for all the process's pipelines, so a sharded global array
  stays one shape): a handful of shapes, so a handful of compilations. ``element_spec`` gives
  ``None`` for the extents the buckets do not agree on.

A sample larger than its declared shape (or than every bucket) is an error naming the output
and the sample's shape: data is never cut. Padding copies the batch once, on its device (a GPU
batch after waiting for the pipeline's work on it: the host blocks for that batch).

Example:
    >>> import numpy as np
    >>> from dali.author import TensorListCPU
    >>> rule = Ragged(pad_to={"x": (None, 4)})
    >>> tl = TensorListCPU.wrap([np.ones((2, 3), np.uint8), np.ones((2, 1), np.uint8)])
    >>> rule.densify("x", [tl])[0].dense().shape
    (2, 2, 4)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from dali.author import TensorListCPU, TensorListGPU

__all__ = ["Ragged"]

Shape = tuple[int | None, ...]


def _shape(value: Sequence[int | None], what: str) -> Shape:
    shape = tuple(None if d is None else int(d) for d in value)
    if any(d is not None and d < 0 for d in shape):
        raise ValueError(f"{what}: extents must be non-negative or None, got {tuple(value)}")
    return shape


class Ragged:
    """The padding rules of the iterator's outputs (`pad_to` and `buckets`, by output name).

    Raises:
        ValueError: An output in both, an empty bucket list, buckets of different ranks, or
            negative extents.
    """

    def __init__(
        self,
        pad_to: Mapping[str, Sequence[int | None]] | None = None,
        buckets: Mapping[str, Sequence[Sequence[int | None]]] | None = None,
        pad_value: float = 0,
    ) -> None:
        pad_to, buckets = dict(pad_to or {}), dict(buckets or {})
        both = sorted(set(pad_to) & set(buckets))
        if both:
            raise ValueError(f"outputs {both} are given both pad_to and buckets: choose one")
        self.shapes: dict[str, list[Shape]] = {
            name: [_shape(s, f"pad_to[{name!r}]")] for name, s in pad_to.items()
        }
        for name, shapes in buckets.items():
            found = sorted(
                (_shape(s, f"buckets[{name!r}]") for s in shapes),
                key=lambda s: int(np.prod([d or 0 for d in s])),
            )
            if not found:
                raise ValueError(f"buckets[{name!r}] is empty")
            if len({len(s) for s in found}) > 1:
                raise ValueError(f"buckets[{name!r}] mixes ranks: {found}")
            self.shapes[name] = found
        self.pad_value = pad_value

    def __bool__(self) -> bool:
        return bool(self.shapes)

    def names(self) -> list[str]:
        return list(self.shapes)

    def spec_shape(self, name: str) -> Shape:
        """The per-sample shape ``element_spec`` reports: the extents all choices share."""
        shapes = self.shapes[name]
        return tuple(d if all(s[k] == d for s in shapes) else None for k, d in enumerate(shapes[0]))

    def allows(self, name: str, sample_shape: Sequence[int | None]) -> bool:
        """Whether ``sample_shape`` is one this output may come as (a declared shape)."""
        return any(
            len(s) == len(sample_shape)
            and all(d is None or d == n for d, n in zip(s, sample_shape))
            for s in self.shapes[name]
        )

    def _target(self, name: str, extents: tuple[int, ...]) -> tuple[int, ...]:
        """The smallest declared shape holding ``extents`` (the largest sample's), concrete."""
        for shape in self.shapes[name]:
            if len(shape) != len(extents):
                continue
            if all(d is None or n <= d for d, n in zip(shape, extents)):
                return tuple(n if d is None else d for d, n in zip(shape, extents))
        raise ValueError(
            f"output '{name}': samples of up to {extents} do not fit "
            + (
                f"pad_to={self.shapes[name][0]}"
                if len(self.shapes[name]) == 1
                else f"any of the buckets {self.shapes[name]}"
            )
            + ": declare a larger shape (data is never cut)"
        )

    def densify(self, name: str, batches: Sequence[Any]) -> list[Any]:
        """Every pipeline's batch of output ``name`` padded to one declared shape.

        Raises:
            ValueError: Samples of different ranks, a sample that fits no declared shape, or
                samples that differ along an extent declared ``None``.
        """
        samples = [tl.samples() for tl in batches]
        shapes = {tuple(s.shape) for batch in samples for s in batch}
        if len({len(s) for s in shapes}) > 1:
            raise ValueError(f"output '{name}': samples of different ranks: {sorted(shapes)}")
        extents = tuple(int(max(s[k] for s in shapes)) for k in range(len(next(iter(shapes)))))
        target = self._target(name, extents)
        for s in shapes:
            for k, (d, n) in enumerate(zip(self.shapes_for(name, target), s)):
                if d is None and n != target[k]:
                    raise ValueError(
                        f"output '{name}': samples differ along axis {k} ({sorted(shapes)}), "
                        "which is declared None (not padded)"
                    )
        return [self._pad(tl, batch, target) for tl, batch in zip(batches, samples)]

    def shapes_for(self, name: str, target: tuple[int, ...]) -> Shape:
        """The declared shape ``target`` was made from."""
        for shape in self.shapes[name]:
            if len(shape) == len(target) and all(
                d is None or d == n for d, n in zip(shape, target)
            ):
                return shape
        raise AssertionError(target)

    def _pad(self, tl: Any, samples: list[Any], target: tuple[int, ...]) -> Any:
        if all(tuple(s.shape) == target for s in samples):
            return tl
        if not isinstance(tl, TensorListGPU):
            return TensorListCPU.wrap(
                self._padded(np, samples, target), tl.layout(), tl.source_infos
            )
        import cupy

        event = tl.ready_event
        if event is not None:
            event.synchronize()  # synchronize! the pipeline's work on the batch must be done
        with samples[0].device:
            out = self._padded(cupy, samples, target)
        return TensorListGPU.wrap(out, tl.layout(), tl.source_infos)

    def _padded(self, xp: Any, samples: list[Any], target: tuple[int, ...]) -> Any:
        out = xp.full((len(samples), *target), self.pad_value, dtype=samples[0].dtype)
        for i, s in enumerate(samples):
            index = (i, *(slice(0, n) for n in s.shape))
            out[index] = s
        return out

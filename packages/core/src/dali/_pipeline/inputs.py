"""The external sources of a pipeline, described for the code that feeds them.

A framework plugin that feeds a pipeline from its own data (dali-tf's ``tf.data`` inputs)
needs to know which ``fn.external_source`` nodes the pipeline has: their names, whether they
have a ``source`` of their own or wait for ``feed_input``, and the ``layout`` and ``batch``
they were defined with. `external_sources` lists them, from the built pipeline.

Example:
    >>> import numpy as np
    >>> from dali import fn, pipeline_def
    >>> @pipeline_def(batch_size=2, num_threads=1, device_id=None)
    ... def pipe():
    ...     fed = fn.external_source(name="images", layout="HWC")
    ...     own = fn.external_source(lambda: np.zeros((2, 1)), batch=True)
    ...     return fed, own
    >>> [(s.name, s.has_source, s.layout, s.batch) for s in external_sources(pipe())]
    [('images', False, 'HWC', True), ('__ExternalSource_0', True, None, True)]
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from dali._ops.python.external_source import ExternalSource

if TYPE_CHECKING:
    from dali._pipeline.pipeline import Pipeline

__all__ = ["ExternalSourceInfo", "external_sources"]


@dataclass(frozen=True)
class ExternalSourceInfo:
    """One ``fn.external_source`` node of a pipeline, as it was defined."""

    #: The operator's name (``name=``, else the generated one).
    name: str
    #: Whether ``name=`` was given (feeding by name needs it).
    named: bool
    #: ``"cpu"`` or ``"gpu"``.
    device: str
    #: ``num_outputs`` as given (None: one output, not a tuple).
    num_outputs: int | None
    #: Whether it has a ``source`` of its own (False: it waits for ``feed_input``).
    has_source: bool
    #: ``layout`` as given (a str, a list with one per output, or None).
    layout: Any
    #: ``batch``: whether the source gives whole batches (DALI's default, True) or samples.
    batch: bool
    #: ``cycle`` as given (None, False, True, ``"quiet"``, ``"raise"`` ...).
    cycle: Any


def external_sources(pipeline: Pipeline) -> list[ExternalSourceInfo]:
    """Every ``fn.external_source`` of ``pipeline`` (built here if it is not), in the order
    they were defined."""
    pipeline.build()
    plan = pipeline._plan
    assert plan is not None
    found = []
    for step in plan.steps:
        if not isinstance(step.impl, ExternalSource):
            continue
        node = step.node
        args = node.scalar_args
        found.append(
            (
                node.creation_index,
                ExternalSourceInfo(
                    name=node.name,
                    named=not node.auto_named,
                    device=step.device,
                    num_outputs=args.get("num_outputs"),
                    has_source=args.get("source") is not None,
                    layout=args.get("layout"),
                    batch=bool(args.get("batch", True)),
                    cycle=args.get("cycle"),
                ),
            )
        )
    return [info for _, info in sorted(found, key=lambda f: f[0])]

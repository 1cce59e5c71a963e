"""The checkpoint document: a pipeline's consumer position as small, versioned JSON.

DALI's checkpoint is a protobuf of every reader's position and every random generator's state.
Ours holds less, because our random numbers are counter-based (a value is a pure
function of the seed, the operator, the sample and its epoch): the seed, where the consumer of
the pipeline stands (epoch, iteration, sample stream position), the state of every operator
that has one (readers: a few integers, `dali._ops.readers.loader.resume`), a fingerprint of the
graph, and the iterator's bookkeeping (``iterator_data``, a JSON string, as in DALI). It never
holds array data and is never a pickle; `Pipeline.checkpoint` returns it as ``bytes``, like
DALI, and every entry point takes ``bytes`` or ``str``.

Example:
    >>> doc = new_document(seed=7, epoch=0, iteration=2, stream=16, graph={"r": "00ff"}, ops={})
    >>> decode(encode(doc))["iter"]
    2
    >>> try:
    ...     decode(b'{"format": "dali-checkpoint", "version": 99}')
    ... except CheckpointError as e:
    ...     print(e)
    Cannot restore the checkpoint: it has version 99, this dali-core reads version 1 (written by a newer dali-core?)
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

__all__ = [
    "FORMAT",
    "VERSION",
    "CheckpointError",
    "check_graph",
    "decode",
    "encode",
    "new_document",
]

#: The document's ``format`` field: tells our checkpoints from any other JSON.
FORMAT = "dali-checkpoint"
#: The document's ``version``; a reader of version v reads version v only.
VERSION = 1

_FIELDS = {
    "seed": int,
    "epoch_idx": int,
    "iter": int,
    "stream": int,
    "graph": dict,
    "ops": dict,
}


class CheckpointError(ValueError):
    """A checkpoint that cannot be restored: not ours, truncated, another version, or of
    another pipeline (the message says which, and what differs)."""

    def __init__(self, message: str) -> None:
        super().__init__(f"Cannot restore the checkpoint: {message}")


def new_document(
    *,
    seed: int,
    epoch: int,
    iteration: int,
    stream: int,
    graph: dict[str, str],
    ops: dict[str, Any],
    iterator_data: str | None = None,
) -> dict[str, Any]:
    """A checkpoint document (`encode` makes it bytes).

    Args:
        seed: The pipeline's resolved seed (it keys every random value).
        epoch: The epoch of the next iteration the consumer gets (``epoch_idx``, DALI's name).
        iteration: That iteration's index within its epoch (``iter``, DALI's name).
        stream: The index of its first sample in the pipeline's stream of samples.
        graph: ``{operator name: identity}`` of every operator (`check_graph`).
        ops: ``{operator name: state}`` of every operator with a state.
        iterator_data: The framework iterator's state (a JSON string), or None.
    """
    doc: dict[str, Any] = {
        "format": FORMAT,
        "version": VERSION,
        "seed": seed,
        "epoch_idx": epoch,
        "iter": iteration,
        "stream": stream,
        "graph": graph,
        "ops": ops,
    }
    if iterator_data is not None:
        doc["iterator_data"] = iterator_data
    return doc


def encode(doc: Mapping[str, Any]) -> bytes:
    """The document as compact UTF-8 JSON bytes."""
    return json.dumps(doc, separators=(",", ":"), sort_keys=True).encode()


def decode(checkpoint: Any) -> dict[str, Any]:
    """Parse and check a checkpoint (``bytes``, ``bytearray``, ``memoryview`` or ``str``).

    Raises:
        CheckpointError: Not JSON (e.g. truncated), not a dali checkpoint, another version, or
            a missing or ill-typed field.
        TypeError: ``checkpoint`` is not bytes or str.
    """
    if isinstance(checkpoint, (bytearray, memoryview)):
        checkpoint = bytes(checkpoint)
    if isinstance(checkpoint, bytes):
        try:
            text = checkpoint.decode()
        except UnicodeDecodeError as e:
            raise CheckpointError(
                f"it is not UTF-8 JSON ({e}); a checkpoint of NVIDIA DALI (protobuf) cannot be "
                "read by this library"
            ) from e
    elif isinstance(checkpoint, str):
        text = checkpoint
    else:
        raise TypeError(
            f"A checkpoint is bytes or str (what `checkpoint()` returns), got "
            f"{type(checkpoint).__name__}"
        )
    if text.strip() and not text.lstrip().startswith(("{", "[")):
        raise CheckpointError(
            "it is not a dali checkpoint: dali reads its own JSON checkpoints (what "
            "`Pipeline.checkpoint()` returns), and this looks like an NVIDIA DALI checkpoint "
            "(protobuf) or another file"
        )
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as e:
        raise CheckpointError(f"it is {_why_not_json(text, e)}") from e
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        raise CheckpointError(
            f'it is JSON but not a dali checkpoint (no "format": "{FORMAT}" field)'
        )
    version = doc.get("version")
    if version != VERSION:
        newer = (
            " (written by a newer dali-core?)"
            if isinstance(version, int) and version > VERSION
            else ""
        )
        raise CheckpointError(
            f"it has version {version!r}, this dali-core reads version {VERSION}{newer}"
        )
    for name, kind in _FIELDS.items():
        value = doc.get(name)
        if not isinstance(value, kind) or isinstance(value, bool):
            raise CheckpointError(
                f"the field {name!r} is {'missing' if name not in doc else repr(value)}, "
                f"expected {kind.__name__}"
            )
    data = doc.get("iterator_data")
    if data is not None and not isinstance(data, str):
        raise CheckpointError(f"the field 'iterator_data' is {type(data).__name__}, expected str")
    return doc


def _why_not_json(text: str, error: json.JSONDecodeError) -> str:
    """ "truncated" when the text is the start of a JSON document, else "not valid JSON"."""
    where = f"{error.msg}: character {error.pos} of {len(text)}"
    if not text.strip():
        return "truncated (empty): was the file written completely?"
    if text.lstrip().startswith("{"):
        # a prefix of a document fails at its end, or in a string that runs to its end
        opened = text.count("{") + text.count("[") > text.count("}") + text.count("]")
        if error.pos >= len(text.rstrip()) or error.msg.startswith("Unterminated") or opened:
            return f"truncated ({where}): was the file written completely?"
    return f"not valid JSON ({where})"


def check_graph(saved: Mapping[str, str], current: Mapping[str, str]) -> None:
    """Raise `CheckpointError` naming the operators in which two graphs differ.

    Args:
        saved: ``{operator name: identity}`` from the checkpoint.
        current: The same of the pipeline being restored.
    """
    if dict(saved) == dict(current):
        return
    only_saved = sorted(set(saved) - set(current))
    only_here = sorted(set(current) - set(saved))
    changed = sorted(k for k in set(saved) & set(current) if saved[k] != current[k])
    parts = []
    if only_saved:
        parts.append(f"operators not in this pipeline: {only_saved}")
    if only_here:
        parts.append(f"operators of this pipeline not in the saved one: {only_here}")
    if changed:
        parts.append(f"operators whose type, arguments or inputs changed: {changed}")
    raise CheckpointError(
        "it was saved from another pipeline (" + "; ".join(parts) + "). Restore it into a "
        "pipeline defined as the saved one (the seed, batch size and sharding may differ)"
    )

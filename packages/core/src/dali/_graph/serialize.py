"""A traced graph as a versioned JSON document, and back (``Pipeline.serialize``/``deserialize``).

The document is this library's own format (DALI's is a protobuf of its C++ operators):

.. code-block:: json

    {"format": "dali.pipeline", "version": 1,
     "settings": {"batch_size": 8, "num_threads": 2, "device_id": null, "seed": 7, ...},
     "operators": [
        {"name": "Reader", "fn": "readers.file", "module": "dali._ops.readers.file",
         "device": "cpu", "auto_named": false, "index": 0, "definition": "train.py:12",
         "inputs": [], "arg_inputs": {}, "batch_source": null,
         "args": {"file_root": "/data", "random_shuffle": true},
         "outputs": [{"name": "Reader", "device": "cpu", "ndim": 1, "dtype": "UINT8",
                      "layout": null, "static_shape": [null]}, ...]},
        ...],
     "outputs": [{"op": "__Resize_1", "index": 0, "device": "gpu"}, ...]}

* ``operators`` are every traced call in creation order (the order gives each its identity,
  hence its random numbers: a deserialized pipeline draws the same as the original for the same
  seed); an input is a reference ``{"op", "index", "device"}`` to an earlier operator's output
  (``device`` "gpu" after ``.gpu()``); ``module`` is what registers the operator (a plugin's
  operators register when it is imported).
* Argument values are JSON where JSON can say them; otherwise a one-key object says what they
  are: ``{"tuple": [...]}``, ``{"dtype": "FLOAT"}`` (``types.DALIDataType``), ``{"enum":
  "DALIInterpType", "name": "INTERP_LINEAR"}`` (and ``DALIImageType``), ``{"ndarray": [...],
  "dtype": "float32", "shape": [...]}``, ``{"float": "nan"}`` (``inf``, ``-inf``), ``{"bytes":
  "<base64>"}``, named tuples (a ``tfrecord`` feature) ``{"namedtuple": "module:Name", "fields":
  {...}}``, and callables ``{"callable": "package.module:qualified.name"}``.
* A callable (a ``python_function``'s ``function``, an ``external_source``'s ``source``) is
  stored by the name it is imported by, and only when that name imports back to the same
  object: a lambda, a closure or a function defined inside another function has no such name,
  and serializing raises a `SerializationError` naming the operator and the argument.
* ``settings`` are the constructor arguments that say what the pipeline computes and how it
  runs (`SETTINGS`); ``Pipeline.deserialize(..., batch_size=...)`` overrides any of them.

Version 1 is the first; a later version that changes what a field means gets a new number,
and a document of a newer version than this library reads is refused with a message saying so.

Example:
    >>> import dali.fn as fn
    >>> from dali import Pipeline
    >>> pipe = Pipeline(batch_size=2, num_threads=1, seed=3)
    >>> with pipe:
    ...     pipe.set_outputs(fn.random.uniform(range=(0, 1), shape=[2]) * 2)
    >>> data = pipe.serialize()
    >>> data[:40]
    b'{"format": "dali.pipeline", "version": 1'
    >>> twin = Pipeline.deserialize(data)
    >>> bool((pipe.run()[0].as_array() == twin.run()[0].as_array()).all())
    True
"""

from __future__ import annotations

import base64
import enum
import importlib
import json
import math
import weakref
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from dali._dtypes import DALIDataType, DALIImageType, DALIInterpType, dali_dtype
from dali._graph.node import DataNode, OpNode
from dali._graph.schema import get_schema

__all__ = [
    "FORMAT",
    "SETTINGS",
    "VERSION",
    "SerializationError",
    "decode_value",
    "encode_value",
    "from_document",
    "to_document",
]

FORMAT = "dali.pipeline"
VERSION = 1

#: The constructor arguments a document keeps (the rest are about one process: streams,
#: affinity, memory limits, checkpoints to restore, worker processes).
SETTINGS = (
    "batch_size",
    "num_threads",
    "device_id",
    "seed",
    "exec_pipelined",
    "prefetch_queue_depth",
    "exec_async",
    "bytes_per_sample",
    "enable_memory_stats",
    "enable_checkpointing",
    "py_num_workers",
    "py_start_method",
)

_ENUMS: dict[str, type[enum.Enum]] = {
    "DALIInterpType": DALIInterpType,
    "DALIImageType": DALIImageType,
}


class SerializationError(ValueError):
    """A pipeline cannot be written as a document, or a document cannot be read."""


# -- values ------------------------------------------------------------------------------------


def _callable_name(value: Callable[..., Any]) -> str | None:
    """``module:qualname`` that imports back to ``value`` itself, or None."""
    module = getattr(value, "__module__", None)
    qualname = getattr(value, "__qualname__", None)
    if not module or not qualname or "<" in qualname:  # <lambda>, <locals>
        return None
    try:
        found = _import_callable(f"{module}:{qualname}")
    except (ImportError, AttributeError):
        return None
    return f"{module}:{qualname}" if found is value else None


def _import_callable(ref: str) -> Any:
    module, _, qualname = ref.partition(":")
    obj: Any = importlib.import_module(module)
    for part in qualname.split("."):
        obj = getattr(obj, part)
    return obj


def encode_value(value: Any, what: str) -> Any:
    """``value`` as JSON (see the module docstring); ``what`` names it in errors."""
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, DALIDataType):
        return {"dtype": value.name}
    if isinstance(value, enum.Enum):
        kind = type(value).__name__
        if kind not in _ENUMS:
            raise SerializationError(f"{what}: the enum {kind}.{value.name} cannot be serialized")
        return {"enum": kind, "name": value.name}
    if isinstance(value, (int, np.integer)):
        return int(value)
    if isinstance(value, (float, np.floating)):
        f = float(value)
        return f if math.isfinite(f) else {"float": repr(f)}
    if isinstance(value, np.bool_):
        return bool(value)
    if isinstance(value, np.ndarray):
        if value.dtype.kind not in "biuf":
            raise SerializationError(f"{what}: an array of {value.dtype} cannot be serialized")
        flat = [encode_value(v, what) for v in value.reshape(-1).tolist()]
        return {"ndarray": flat, "dtype": value.dtype.name, "shape": list(value.shape)}
    if isinstance(value, (bytes, bytearray)):
        return {"bytes": base64.b64encode(bytes(value)).decode("ascii")}
    if isinstance(value, list):
        return [encode_value(v, what) for v in value]
    if isinstance(value, tuple) and hasattr(type(value), "_fields"):
        cls = _callable_name(type(value))  # a named tuple (a tfrecord Feature, say)
        if cls is None:
            raise SerializationError(f"{what}: {type(value).__name__} cannot be imported back")
        names: tuple[str, ...] = type(value)._fields  # type: ignore[attr-defined]
        fields = {k: encode_value(getattr(value, k), what) for k in names}
        return {"namedtuple": cls, "fields": fields}
    if isinstance(value, tuple):
        return {"tuple": [encode_value(v, what) for v in value]}
    if isinstance(value, dict) and all(isinstance(k, str) for k in value):
        return {"dict": {k: encode_value(v, what) for k, v in value.items()}}
    from dali._ops.python._sources import SourceDesc

    if isinstance(value, SourceDesc):  # an external_source's `source`, as it was given
        if value.kind == "iterable":
            raise SerializationError(
                f"{what}: an iterable cannot be serialized (only where it stands, not what it "
                "is); give a callable or a generator function defined at the top of a module"
            )
        return {"source": encode_value(value.source, what), "cycle": value.cycle}
    if callable(value):
        name = _callable_name(value)
        if name is None:
            raise SerializationError(
                f"{what}: {value!r} cannot be serialized: a callable is stored by the name it "
                "is imported by, and a lambda, a closure or a function defined inside another "
                "function has none. Define it at the top level of a module."
            )
        return {"callable": name}
    raise SerializationError(f"{what}: a value of type {type(value).__name__} cannot be serialized")


def decode_value(doc: Any, what: str) -> Any:
    """The value `encode_value` wrote."""
    if isinstance(doc, list):
        return [decode_value(v, what) for v in doc]
    if not isinstance(doc, dict):
        return doc
    keys = set(doc)
    if keys == {"tuple"}:
        return tuple(decode_value(v, what) for v in doc["tuple"])
    if keys == {"namedtuple", "fields"}:
        cls = decode_value({"callable": doc["namedtuple"]}, what)
        return cls(**{k: decode_value(v, what) for k, v in doc["fields"].items()})
    if keys == {"dict"}:
        return {k: decode_value(v, what) for k, v in doc["dict"].items()}
    if keys == {"dtype"}:
        return getattr(DALIDataType, doc["dtype"])
    if keys == {"enum", "name"} and doc["enum"] in _ENUMS:
        return getattr(_ENUMS[doc["enum"]], doc["name"])
    if keys == {"ndarray", "dtype", "shape"}:
        flat = [decode_value(v, what) for v in doc["ndarray"]]
        return np.asarray(flat, dtype=doc["dtype"]).reshape(doc["shape"])
    if keys == {"float"}:
        return float(doc["float"])
    if keys == {"bytes"}:
        return base64.b64decode(doc["bytes"])
    if keys == {"source", "cycle"}:
        from dali._ops.python._sources import describe_source

        return describe_source(decode_value(doc["source"], what), doc["cycle"])
    if keys == {"callable"}:
        try:
            return _import_callable(doc["callable"])
        except (ImportError, AttributeError) as e:
            raise SerializationError(
                f"{what}: the callable {doc['callable']!r} cannot be imported ({e})"
            ) from e
    raise SerializationError(f"{what}: unreadable value {doc!r}")


# -- the graph ---------------------------------------------------------------------------------


def _ref(node: DataNode) -> dict[str, Any]:
    assert node.source is not None
    return {"op": node.source.name, "index": node.index, "device": node.device}


def _dtype_name(dtype: Any) -> str | None:
    if dtype is None:
        return None
    return dtype.name if isinstance(dtype, DALIDataType) else dali_dtype(dtype).name


def to_document(
    ops: Sequence[OpNode], outputs: Sequence[DataNode], settings: dict[str, Any]
) -> dict[str, Any]:
    """The document of a traced graph (every operator, the outputs) and the settings."""
    operators = []
    for op in ops:
        what = f"{op.display_name} ({op.name})"
        args = {}
        for key, value in op.scalar_args.items():
            args[key] = encode_value(value, f"{what}, argument `{key}`")
        operators.append(
            {
                "name": op.name,
                "fn": op.schema.fn_path,
                "module": op.schema.impl.__module__,
                "device": op.device,
                "auto_named": op.auto_named,
                "index": op.creation_index,
                "definition": op.definition,
                "inputs": [_ref(n) for n in op.inputs],
                "arg_inputs": {k: _ref(n) for k, n in op.arg_inputs.items()},
                "batch_source": None if op.batch_source is None else _ref(op.batch_source),
                "args": args,
                "outputs": [
                    {
                        "name": n.name,
                        "device": n.device,
                        "ndim": n.ndim,
                        "dtype": _dtype_name(n.dtype),
                        "layout": n.layout,
                        "static_shape": None if n.static_shape is None else list(n.static_shape),
                    }
                    for n in op.outputs
                ],
            }
        )
    return {
        "format": FORMAT,
        "version": VERSION,
        "settings": {k: encode_value(v, f"setting `{k}`") for k, v in settings.items()},
        "operators": operators,
        "outputs": [_ref(n) for n in outputs],
    }


def dumps(document: dict[str, Any]) -> bytes:
    """The document as UTF-8 JSON bytes."""
    return json.dumps(document, allow_nan=False).encode()


def loads(data: bytes | str) -> dict[str, Any]:
    """A document from `dumps`'s bytes, checked for its format and version."""
    if isinstance(data, (bytes, bytearray)) and not data.lstrip().startswith(b"{"):
        raise SerializationError(
            "this is not a serialized dali pipeline (not JSON); an NVIDIA DALI pipeline "
            "serialized to protobuf cannot be read here: serialize it with dali instead"
        )
    try:
        doc = json.loads(data)
    except ValueError as e:
        raise SerializationError(f"not a serialized dali pipeline: {e}") from e
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        raise SerializationError(f"not a serialized dali pipeline (format is not {FORMAT!r})")
    version = doc.get("version")
    if not isinstance(version, int) or version > VERSION:
        raise SerializationError(
            f"the pipeline was serialized in format version {version}; this dali reads "
            f"versions up to {VERSION}: upgrade dali-core"
        )
    return doc


def from_document(doc: dict[str, Any], pipeline: Any) -> tuple[list[OpNode], list[DataNode]]:
    """The traced graph of a document, its records belonging to ``pipeline``."""
    made: dict[str, OpNode] = {}
    owner = weakref.ref(pipeline)

    def node(ref: dict[str, Any], what: str) -> DataNode:
        op = made.get(ref["op"])
        if op is None:
            raise SerializationError(f"{what}: operator {ref['op']!r} comes after its reader")
        out: DataNode = op.outputs[ref["index"]]
        if out.device != ref["device"]:
            out = out._on(ref["device"])
        return out

    ops: list[OpNode] = []
    for entry in doc["operators"]:
        name = entry["name"]
        what = f"operator {name!r}"
        importlib.import_module(entry["module"])
        try:
            schema = get_schema(entry["fn"])
        except (KeyError, ValueError) as e:
            raise SerializationError(f"{what}: unknown operator fn.{entry['fn']} ({e})") from e
        op = OpNode(
            schema=schema,
            device=entry["device"],
            inputs=tuple(node(r, what) for r in entry["inputs"]),
            scalar_args={
                k: decode_value(v, f"{what}, argument `{k}`") for k, v in entry["args"].items()
            },
            arg_inputs={k: node(r, what) for k, r in entry["arg_inputs"].items()},
            name=name,
            auto_named=entry["auto_named"],
            pipeline=owner,
            creation_index=entry["index"],
            definition=entry.get("definition", ""),
            batch_source=None
            if entry["batch_source"] is None
            else node(entry["batch_source"], what),
        )
        for k, out in enumerate(entry["outputs"]):
            dtype = None if out["dtype"] is None else getattr(DALIDataType, out["dtype"])
            shape = out["static_shape"]
            op.outputs.append(
                DataNode(
                    out["name"],
                    out["device"],
                    op,
                    k,
                    out["ndim"],
                    dtype,
                    out["layout"],
                    static_shape=None if shape is None else tuple(shape),
                )
            )
        made[name] = op
        ops.append(op)
    outputs = [node(r, "the pipeline's outputs") for r in doc["outputs"]]
    return ops, outputs

"""Operator schemas: the one declaration from which `fn`, `ops` and argument checks come.

Every operator is declared once with :func:`register` on its implementation class. The schema
lists positional inputs, outputs and arguments (type, default, whether a per-sample DataNode is
accepted). `dali.fn` and `dali.ops` are generated from the registry, and `_graph.trace` checks
every call against the schema, so an operator never repeats its argument handling.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from dali._ops.base import Operator

__all__ = [
    "REQUIRED",
    "UNSET",
    "Arg",
    "Schema",
    "all_schemas",
    "get_schema",
    "register",
]


class _Marker:
    def __init__(self, name: str) -> None:
        self._name = name

    def __repr__(self) -> str:
        return self._name

    def __bool__(self) -> bool:
        return False


#: Default of an optional argument that has no value unless the user gives one.
UNSET: Any = _Marker("UNSET")
#: Default of an argument the user must give (checked at build, as DALI does).
REQUIRED: Any = _Marker("REQUIRED")

#: Argument types understood by the converter in `_graph.args`.
ARG_TYPES = frozenset(
    {
        "int",
        "float",
        "bool",
        "str",
        "int_vec",
        "float_vec",
        "bool_vec",
        "str_vec",
        "dtype",
        "dtype_vec",
        "image_type",
        "interp_type",
        "layout",
        "layout_vec",
        "int_or_int_vec",
        "float_or_float_vec",
        "any",
        "callable",
    }
)


@dataclass(frozen=True)
class Arg:
    """One operator argument.

    Args:
        name: The keyword name.
        type: One of ``ARG_TYPES``; decides how scalar values are converted and checked.
        default: The default value, ``UNSET`` (optional, no value) or ``REQUIRED``.
        tensor: Whether a per-sample DataNode (an "argument input") is accepted.
        doc: One line for the generated docstring.
    """

    name: str
    type: str = "any"
    default: Any = UNSET
    tensor: bool = False
    doc: str = ""

    def __post_init__(self) -> None:
        if self.type not in ARG_TYPES:
            raise ValueError(f"unknown argument type {self.type!r} for {self.name!r}")


#: Arguments every operator accepts.
COMMON_ARGS = (
    Arg("name", "str", doc="Operator name, used by reader_meta/epoch_size and feed_input."),
    Arg("device", "str", doc='"cpu", "gpu" or "mixed".'),
    Arg("preserve", "bool", default=False, doc="Keep the operator even if unused."),
    Arg("bytes_per_sample_hint", "int_or_int_vec", default=(0,), doc="Ignored (memory hint)."),
)
SEED_ARG = Arg("seed", "int", default=-1, doc="Operator seed; -1 derives it from the pipeline.")


@dataclass(frozen=True)
class Schema:
    """What an operator accepts and produces."""

    fn_path: str
    class_name: str
    impl: type[Operator]
    devices: tuple[str, ...]
    min_inputs: int
    max_inputs: int
    num_outputs: int | Callable[[Mapping[str, Any]], int]
    args: Mapping[str, Arg]
    random: bool = False
    source: bool = False
    no_prune: bool = False
    input_names: tuple[str, ...] = ()
    doc: str = ""
    extra: Mapping[str, Any] = field(default_factory=dict)

    @property
    def fn_name(self) -> str:
        return self.fn_path.rsplit(".", 1)[-1]

    @property
    def module_path(self) -> tuple[str, ...]:
        return tuple(self.fn_path.split(".")[:-1])

    @property
    def display_name(self) -> str:
        """The name used in error messages: ``dali.fn.readers.file``.

        A plugin operator with a hidden fn path sets its public name with
        ``register(..., display_name="dali.plugin.jax.fn.jax_function")``.
        """
        return self.extra.get("display_name") or f"dali.fn.{self.fn_path}"

    def outputs_for(self, scalar_args: Mapping[str, Any], num_inputs: int | None = None) -> int:
        """The number of outputs of a call with ``scalar_args`` and ``num_inputs`` positional
        inputs (None: the fewest). A schema registered with ``outputs_by_inputs=True`` has an
        ``outputs`` function of both (DALI's ``AdditionalOutputsFn``: optional inputs that add
        outputs, as ``fn.random_bbox_crop``'s labels)."""
        n = self.num_outputs
        if not callable(n):
            return n
        if self.extra.get("outputs_by_inputs"):
            given = self.min_inputs if num_inputs is None else num_inputs
            return n(scalar_args, given)  # type: ignore[call-arg]
        return n(scalar_args)


_REGISTRY: dict[str, Schema] = {}


def _class_name_for(fn_name: str) -> str:
    return "".join(part[:1].upper() + part[1:] for part in fn_name.split("_"))


def register(
    fn_path: str,
    *,
    devices: Iterable[str] = ("cpu",),
    inputs: int | tuple[int, int] = 1,
    outputs: int | Callable[[Mapping[str, Any]], int] = 1,
    args: Iterable[Arg] = (),
    random: bool = False,
    source: bool = False,
    no_prune: bool = False,
    class_name: str | None = None,
    input_names: Iterable[str] = (),
    **extra: Any,
) -> Callable[[type], type]:
    """Class decorator declaring an operator.

    Args:
        fn_path: Dotted path under ``dali.fn`` (``"readers.file"``).
        devices: Backends the class implements (``run_cpu``, ``run_gpu``, ``run_mixed``).
        inputs: Number of positional inputs, or ``(min, max)``.
        outputs: Number of outputs, or a function of the scalar arguments.
        args: The operator's own arguments (the common ones are added).
        random: The operator draws random numbers: adds ``seed`` and a per-sample RNG.
        source: The operator starts the data flow (readers, external sources); the executor
            takes the sample identity of an iteration from the first source.
        no_prune: Keep the operator even when no output depends on it.
        class_name: The ``ops`` class name; defaults to the CamelCase of the fn name.
        input_names: Names of the positional inputs, for messages and docs.
        **extra: Free-form schema data for the implementation.
    """
    lo, hi = (inputs, inputs) if isinstance(inputs, int) else inputs

    def decorate(cls: type) -> type:
        arg_map: dict[str, Arg] = {}
        for a in (*COMMON_ARGS, *args, *((SEED_ARG,) if random else ())):
            arg_map[a.name] = a
        name = class_name or _class_name_for(fn_path.rsplit(".", 1)[-1])
        schema = Schema(
            fn_path=fn_path,
            class_name=name,
            impl=cls,
            devices=tuple(devices),
            min_inputs=lo,
            max_inputs=hi,
            num_outputs=outputs,
            args=arg_map,
            random=random,
            source=source,
            no_prune=no_prune,
            input_names=tuple(input_names),
            doc=(cls.__doc__ or "").strip(),
            extra=dict(extra),
        )
        if fn_path in _REGISTRY:
            raise RuntimeError(f"operator {fn_path!r} registered twice")
        _REGISTRY[fn_path] = schema
        cls.schema = schema  # type: ignore[attr-defined]
        return cls

    return decorate


def get_schema(fn_path: str) -> Schema:
    _load_operators()
    return _REGISTRY[fn_path]


def all_schemas() -> list[Schema]:
    """Every registered schema, sorted by fn path (imports the operator modules once)."""
    _load_operators()
    return sorted(_REGISTRY.values(), key=lambda s: s.fn_path)


def _load_operators() -> None:
    from dali import _ops  # noqa: F401  (importing the package registers every operator)


def snake_case(name: str) -> str:
    """``CropMirrorNormalize`` → ``crop_mirror_normalize``."""
    return re.sub(r"(?<=[a-z0-9])([A-Z])", r"_\1", name).lower()

"""Typed stubs (``.pyi``) for `dali.fn` and `dali.ops`, generated from the operator registry.

`dali.fn` and `dali.ops` are filled at import time (`dali._graph.api`), so a type checker or an
editor that reads the source finds nothing in them. The stubs written here give every operator
the signature NVIDIA DALI's own signature generation gives it (``nvidia/dali/ops/_signatures.py``):

* positional-only inputs, each a ``DataNode`` or a constant (``ArrayLike``); optional inputs
  have a default;
* keyword-only arguments typed from the schema (``"float_vec"`` becomes
  ``Sequence[float] | float``); an argument that takes per-sample values (``tensor=True``) also
  takes a ``DataNode`` or an array; ``None`` means "not given", as it does at run time; a
  required argument has no default; defaults are written ``...`` (the docstring has them);
* the result: ``DataNode``, ``list[DataNode]`` or ``None`` by the number of outputs. Where one
  argument chooses that number (``fn.resize(..., save_attrs=True)``), one overload is written
  per result, found by asking the schema's ``outputs`` function about the argument's values;
* a last overload for multiple input sets (a list of DataNodes as an input applies the operator
  to each element and returns the list of results), as DALI writes it;
* the docstring ``help()`` shows.

An `ops` class takes every argument both in ``__init__`` and in ``__call__``, so all its
arguments are optional there and a number of outputs chosen by an argument gives the union.

Run ``python -m dali._graph.stubs`` after adding or changing an operator: it rewrites
``dali/fn/**.pyi`` and ``dali/ops/**.pyi`` next to the sources.
``tests/core/graph/test_stubs.py`` fails while the committed stubs differ from freshly generated
ones.
"""

from __future__ import annotations

import dataclasses
import inspect
import re
import sys
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from dali._graph.api import aliases, deprecation, docstring
from dali._graph.schema import REQUIRED, Arg, Schema, all_schemas

__all__ = ["ARG_ANNOTATIONS", "REGENERATE", "main", "render_stubs", "write_stubs"]

#: The command that rewrites the stubs (named in their header and in the test's failure).
REGENERATE = "python -m dali._graph.stubs"

#: The annotation of a scalar value of each schema argument type (`dali._graph.args` converts
#: exactly these: a path-like is accepted where DALI takes a string, an int where it takes an
#: enum, anything numpy reads as a dtype where it takes a data type).
ARG_ANNOTATIONS: Mapping[str, str] = {
    "int": "int",
    "float": "float",
    "bool": "bool",
    "str": "str | PathLike[str]",
    "int_vec": "Sequence[int] | int",
    "float_vec": "Sequence[float] | float",
    "bool_vec": "Sequence[bool] | bool",
    "str_vec": "Sequence[str | PathLike[str]] | str | PathLike[str]",
    "dtype": "DALIDataType | DTypeLike",
    "dtype_vec": "Sequence[DALIDataType | DTypeLike] | DALIDataType | DTypeLike",
    "image_type": "DALIImageType | int",
    "interp_type": "DALIInterpType | int",
    "layout": "str",
    "layout_vec": "Sequence[str] | str",
    "int_or_int_vec": "Sequence[int] | int",
    "float_or_float_vec": "Sequence[float] | float",
    "any": "Any",
    "callable": "Callable[..., Any]",
}

# The module each name an annotation may use is imported from.
_IMPORTS = {
    "Callable": "collections.abc",
    "Sequence": "collections.abc",
    "PathLike": "os",
    "Any": "typing",
    "Literal": "typing",
    "overload": "typing",
    "ArrayLike": "numpy.typing",
    "DTypeLike": "numpy.typing",
    "deprecated": "typing_extensions",
    "DataNode": "dali.pipeline",
    "DALIDataType": "dali.types",
    "DALIImageType": "dali.types",
    "DALIInterpType": "dali.types",
}
_STDLIB = ("collections.abc", "os", "typing")
_BUILTINS_USED = ("bool", "float", "int", "list", "str")

# A positional input, or a value of an argument that takes per-sample values besides its scalar
# type: a DataNode, or a constant that numpy reads as an array (the same for every sample).
_INPUT = "DataNode | ArrayLike"
# Listed first, as DALI lists them; strings, whatever else their schema type allows.
_FIRST_ARGS = {"device": "str", "name": "str"}
# Argument values the `outputs` function of a schema is asked about, by argument type.
_PROBES: Mapping[str, tuple[Any, ...]] = {"bool": (False, True), "int": tuple(range(9))}
# Results by number of outputs, and their order in a union.
_RESULTS = ("DataNode", "list[DataNode]", "None")


def _result(count: int) -> str:
    return "None" if count == 0 else "DataNode" if count == 1 else "list[DataNode]"


def _union(results: Iterable[str]) -> str:
    """``a | b``, in `_RESULTS`'s order; a result of its own (``stub_result``) comes first."""
    found = list(dict.fromkeys(results))
    own = [r for r in found if r not in _RESULTS]
    return " | ".join([*own, *(r for r in _RESULTS if r in found)])


@dataclass(frozen=True)
class _Outputs:
    """What an operator returns: one result, or a result chosen by one argument's value."""

    #: The result when the choosing argument is not given (the only one when there is none).
    default: str
    #: The argument that chooses, or None.
    by: str | None = None
    #: ``(values, result)`` for each result the argument's values give, default's first.
    choices: tuple[tuple[tuple[Any, ...], str], ...] = ()

    @property
    def every(self) -> str:
        """The union of every result."""
        return _union((self.default, *(r for _, r in self.choices)))


def _count(schema: Schema, args: Mapping[str, Any]) -> int | None:
    try:
        return schema.outputs_for(args)
    except Exception:  # noqa: BLE001 - any error: a value the function rejects tells nothing
        return None


def _outputs(schema: Schema) -> _Outputs:
    """Ask the schema's ``outputs`` about each bool and int argument (given alone, as a user
    call gives it) to find the one that chooses the number of outputs. A schema whose call
    returns something else says so: ``register(..., stub_result="dict[str, DataNode]")``."""
    if schema.extra.get("stub_result"):
        return _Outputs(schema.extra["stub_result"])
    if not callable(schema.num_outputs):
        return _Outputs(_result(schema.num_outputs))
    absent = _count(schema, {})
    found: list[tuple[str, dict[Any, int]]] = []
    for arg in schema.args.values():
        if arg.type not in _PROBES or arg.tensor:
            continue
        counts = {}
        for value in _PROBES[arg.type]:
            n = _count(schema, {arg.name: value})
            if n is not None:
                counts[value] = n
        if any(n != absent for n in counts.values()):
            found.append((arg.name, counts))
    if absent is None or len(found) != 1:
        return _Outputs(_union(_RESULTS))  # not known here: any result
    name, by_value = found[0]
    default = _result(absent)
    grouped: dict[str, list[Any]] = {default: []}
    for value, n in by_value.items():
        grouped.setdefault(_result(n), []).append(value)
    if len(grouped) == 1:  # the count changes, the result's type not (3 or 4 outputs: a list)
        return _Outputs(default)
    return _Outputs(default, name, tuple((tuple(vs), r) for r, vs in grouped.items()))


# -- signatures -----------------------------------------------------------------------------


@dataclass(frozen=True)
class _Param:
    name: str
    annotation: str
    #: "positional" (before ``/``), "either" (positional or keyword), "var" (``*name``) or
    #: "keyword" (after ``*``).
    kind: str
    has_default: bool = True

    def render(self) -> str:
        prefix = "*" if self.kind == "var" else ""
        default = " = ..." if self.has_default and self.kind != "var" else ""
        return f"{prefix}{self.name}: {self.annotation}{default}"


def _literal(values: Sequence[Any]) -> str:
    return f"Literal[{', '.join(repr(v) for v in values)}]"


def _arg_annotation(arg: Arg, *, optional: bool) -> str:
    annotation = _FIRST_ARGS.get(arg.name) or ARG_ANNOTATIONS[arg.type]
    if annotation == "Any":
        return annotation
    if arg.tensor:
        annotation = f"{annotation} | {_INPUT}"
    return f"{annotation} | None" if optional else annotation


def _input_name(schema: Schema, name: str) -> str:
    """An input's name, apart from the argument names (as DALI: ``shape`` -> ``shape_input``)."""
    while name in schema.args:
        name = f"_{name}" if "input" in name else f"{name}_input"
    return name


def _input_params(schema: Schema, annotation: str) -> list[_Param]:
    """Positional inputs: named when the schema names them all, else ``*inputs``."""
    names = schema.input_names
    if len(names) < schema.max_inputs:
        names = tuple(f"input_{i}" for i in range(schema.min_inputs))
    params = [
        _Param(_input_name(schema, names[i]), annotation, "positional", i >= schema.min_inputs)
        for i in range(min(len(names), schema.max_inputs))
    ]
    if schema.max_inputs > len(params):
        params.append(_Param("inputs", annotation, "var"))
    return params


def _params(
    schema: Schema,
    *,
    inputs: str | None,
    all_optional: bool,
    choice: tuple[str, str, bool] | None = None,
) -> list[_Param]:
    """The parameters of a call.

    Args:
        schema: The operator.
        inputs: The annotation of the positional inputs; None: no inputs (``ops`` ``__init__``).
        all_optional: Every argument optional (``ops``: given in ``__init__`` or ``__call__``).
        choice: ``(argument, annotation, has_default)`` replacing one argument's, for the
            overloads of a number of outputs chosen by that argument.
    """
    positional = tuple(schema.extra.get("positional_args", ()))
    params: list[_Param] = []
    if inputs is not None and not positional:
        params.extend(_input_params(schema, inputs))

    def param(arg: Arg, kind: str) -> _Param:
        required = arg.default is REQUIRED and not all_optional
        if choice is not None and choice[0] == arg.name:
            return _Param(arg.name, choice[1], kind, has_default=choice[2])
        return _Param(arg.name, _arg_annotation(arg, optional=not required), kind, not required)

    either = [param(schema.args[name], "either") for name in positional]
    # A positional parameter without a default needs every one before it without one.
    for i in range(len(either) - 1, -1, -1):
        if not either[i].has_default:
            either[:i] = [dataclasses.replace(p, has_default=False) for p in either[:i]]
            break
    params.extend(either)
    first = [schema.args[n] for n in _FIRST_ARGS if n in schema.args and n not in positional]
    rest = sorted(
        (a for a in schema.args.values() if a.name not in _FIRST_ARGS and a.name not in positional),
        key=lambda a: a.name,
    )
    params.extend(param(arg, "keyword") for arg in (*first, *rest))
    return params


def _signature_lines(params: Sequence[_Param], *, self_: bool) -> list[str]:
    lines = ["self,"] if self_ else []
    kinds = [p.kind for p in params]
    for i, p in enumerate(params):
        if p.kind == "keyword" and "var" not in kinds and (i == 0 or kinds[i - 1] != "keyword"):
            lines.append("*,")
        lines.append(p.render() + ",")
        if p.kind == "positional" and (i + 1 == len(params) or kinds[i + 1] != "positional"):
            lines.append("/,")
    return lines


def _docstring_lines(text: str) -> list[str]:
    """The lines of a docstring literal (escaped, ruff-formatted), without indentation."""
    text = text.replace("\\", "\\\\").replace('"""', '\\"\\"\\"')
    lines = [line.rstrip() for line in text.strip().splitlines()]
    if len(lines) == 1:
        space = " " if lines[0].endswith('"') else ""  # `""""` would end the literal early
        return [f'"""{lines[0]}{space}"""']
    return [f'"""{lines[0]}', *lines[1:], '"""']


def _def(
    name: str,
    params: Sequence[_Param],
    returns: str,
    doc: str,
    *,
    overload: bool,
    self_: bool = False,
) -> list[str]:
    lines = ["@overload"] if overload else []
    lines.append(f"def {name}(")
    lines += ["    " + line for line in _signature_lines(params, self_=self_)]
    lines.append(f") -> {returns}:")
    lines += ["    " + line if line else "" for line in _docstring_lines(doc)]
    return lines


# -- one operator ---------------------------------------------------------------------------


_INPUT_KINDS = ("positional", "var")


def _retype(param: _Param, annotation: str) -> _Param:
    return dataclasses.replace(param, annotation=annotation)


def _takes_input_sets(schema: Schema) -> bool:
    """Lists of DataNodes as inputs (multiple input sets) are expanded by `call_operator`; an
    operator with a call of its own (external_source, python_function) does not take them."""
    return schema.max_inputs > 0 and not {"fn", "ops_fn"} & set(schema.extra)


def _input_sets(schema: Schema, every: str) -> tuple[str, str]:
    """The input annotation and the result of the multiple-input-sets overload. With one input
    it takes only a list (so that it does not overlap the first overloads); with more, any
    input may be the list."""
    if schema.min_inputs == schema.max_inputs == 1:
        return "list[DataNode]", f"list[{every}]"
    if every == "None":
        result = "list[None] | None"
    elif every.endswith(" | None"):  # `None` last in the union, as linters want it
        result = f"{every.removesuffix(' | None')} | list[{every}] | None"
    else:
        result = f"{every} | list[{every}]"
    return f"list[DataNode] | {_INPUT}", result


def _fn_stub(schema: Schema, doc: str, *, name: str = "", deprecated_as: str = "") -> list[str]:
    """The stub of ``schema``'s fn function, or of its deprecated name ``name``."""
    outputs = _outputs(schema)
    variants: list[tuple[list[_Param], str]] = []
    if outputs.by is None:
        variants.append((_params(schema, inputs=_INPUT, all_optional=False), outputs.default))
    else:
        for values, result in outputs.choices:
            if result == outputs.default:
                choice = (outputs.by, f"{_literal(values)} | None" if values else "None", True)
            else:
                choice = (outputs.by, _literal(values), False)
            variants.append(
                (_params(schema, inputs=_INPUT, all_optional=False, choice=choice), result)
            )
        # A value not known when type checking (a bool or int variable): any result.
        variants.append((_params(schema, inputs=_INPUT, all_optional=False), outputs.every))
    if _takes_input_sets(schema):
        # The same overloads again, each taking lists.
        for params, result in list(variants):
            annotation, results = _input_sets(schema, result)
            params = [_retype(p, annotation) if p.kind in _INPUT_KINDS else p for p in params]
            variants.append((params, results))
    overload = len(variants) > 1
    lines: list[str] = []
    for params, result in variants:
        if lines:
            lines.append("")
        stub = _def(name or schema.fn_name, params, result, doc, overload=overload)
        if deprecated_as:  # (after `@overload`, as type checkers want it)
            at = 1 if overload else 0
            stub[at:at] = _deprecated(deprecated_as)
        lines += stub
    return lines


def _deprecated(message: str) -> list[str]:
    """The ``@deprecated`` decorator line(s), as ruff formats them (split past 100 columns)."""
    line = f"@deprecated({_string(message)})"
    if len(line) <= 100:
        return [line]
    return ["@deprecated(", f"    {_string(message)}", ")"]


def _string(text: str) -> str:
    """``text`` as a double-quoted Python string literal."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def _ops_stub(schema: Schema, class_name: str, doc: str, *, deprecated_as: str = "") -> list[str]:
    every = _outputs(schema).every
    lines = _deprecated(deprecated_as) if deprecated_as else []
    lines.append(f"class {class_name}:")
    lines += ["    " + line if line else "" for line in _docstring_lines(doc)]
    body = _def(
        "__init__",
        _params(schema, inputs=None, all_optional=True),
        "None",
        f"Set the arguments of `{class_name}`; the call may give any of them too.",
        overload=False,
        self_=True,
    )
    calls = [(_params(schema, inputs=_INPUT, all_optional=True), every)]
    if _takes_input_sets(schema):
        annotation, result = _input_sets(schema, every)
        calls.append((_params(schema, inputs=annotation, all_optional=True), result))
    for params, result in calls:
        call_doc = "Add the operator to the pipeline being defined; returns its outputs."
        body += _def("__call__", params, result, call_doc, overload=len(calls) > 1, self_=True)
    lines += ["    " + line if line else "" for line in body]
    return lines


# -- modules --------------------------------------------------------------------------------


def _stub_doc(schema: Schema, api: str) -> str:
    # The runtime docstring, with the operator's own text dedented (help() dedents it too).
    return docstring(dataclasses.replace(schema, doc=inspect.cleandoc(schema.doc)), api)


@dataclass
class _Module:
    """One stub file being written: a module of `dali.fn` or `dali.ops`."""

    name: str
    entries: list[list[str]] = dataclasses.field(default_factory=list)
    submodules: list[str] = dataclasses.field(default_factory=list)

    def render(self, doc: str, public: Sequence[str]) -> str:
        body = "\n".join(line for entry in self.entries for line in ("", *entry))
        used = set(re.findall(r"[A-Za-z_]\w*", _strip_docstrings(body)))
        clash = sorted(set(public) & used & set(_BUILTINS_USED))
        if clash:
            raise RuntimeError(f"{self.name}: {clash} shadow the builtins the annotations use")
        # an operator named like an annotation's type (`ops.readers.Sequence`): the type is
        # imported under a private name, and the annotations say that name
        renamed = set(public) & used & set(_IMPORTS)
        for name in renamed:
            body = re.sub(rf"\b{name}\[", f"_{name}[", body)
        head = [
            f"# Generated from the operator registry by `{REGENERATE}`; do not edit.",
            *_docstring_lines(doc),
            "",
        ]
        # isort's groups (standard library, third party, dali), each sorted by module.
        groups: tuple[list[str], list[str], list[str]] = ([], [], [])
        for module in sorted({_IMPORTS[n] for n in used if n in _IMPORTS}):
            names = ", ".join(
                f"{n} as _{n}" if n in renamed else n
                for n in sorted(n for n in used if _IMPORTS.get(n) == module)
            )
            group = 0 if module in _STDLIB else 2 if module.startswith("dali.") else 1
            groups[group].append(f"from {module} import {names}")
        # Submodules are imported `as` themselves: a stub re-exports only what it says so.
        groups[2].extend(f"from {self.name} import {sub} as {sub}" for sub in self.submodules)
        groups[2].sort(key=lambda line: (line.split()[1], line))
        for lines in groups:
            head += [*lines, ""] if lines else []
        head += ["__all__ = [", *(f'    "{n}",' for n in public), "]"]
        # a package of submodules only has no body: end at `__all__`, as ruff formats it
        return "\n".join(head) + "\n" + (body + "\n" if body else "")


def _strip_docstrings(text: str) -> str:
    return re.sub(r'"""(?:[^"\\]|\\.|"(?!""))*"""', "", text)


def _stub_path(api: str, path: tuple[str, ...], has_children: bool) -> str:
    if not path or has_children:
        return "/".join((api, *path, "__init__.pyi"))
    return "/".join((api, *path[:-1], path[-1] + ".pyi"))


def _module_at(
    modules: dict[tuple[str, ...], _Module], root_name: str, path: tuple[str, ...]
) -> _Module:
    """The stub module at ``path``, made (with its parents) on first use."""
    for depth in range(len(path) + 1):
        sub = path[:depth]
        if sub not in modules:
            modules[sub] = _Module(".".join((root_name, *sub)))
            if depth:
                modules[sub[:-1]].submodules.append(sub[-1])
    return modules[path]


def render_stubs() -> dict[str, str]:
    """Render the stub files of `dali.fn` and `dali.ops` from the operator registry.

    Returns:
        The text of each file by its path relative to the ``dali`` package directory
        (``"fn/__init__.pyi"``, ``"fn/readers.pyi"``, ``"ops/__init__.pyi"``, ...).

    Example:
        >>> stubs = render_stubs()
        >>> "def resize(" in stubs["fn/__init__.pyi"], "class File:" in stubs["ops/readers.pyi"]
        (True, True)
    """
    import dali.fn
    import dali.ops

    schemas = [s for s in all_schemas() if not s.fn_path.startswith("_")]
    files: dict[str, str] = {}
    for api, root in (("fn", dali.fn), ("ops", dali.ops)):
        modules: dict[tuple[str, ...], _Module] = {}

        for schema in schemas:
            if api == "fn":
                stub = _fn_stub(schema, _stub_doc(schema, "fn"))
            else:
                stub = _ops_stub(schema, schema.class_name, _stub_doc(schema, "ops"))
            _module_at(modules, root.__name__, schema.module_path).entries.append(stub)
        for old, schema in aliases(api):
            path, name = tuple(old.split(".")[:-1]), old.rsplit(".", 1)[-1]
            note = deprecation(api, old, schema)
            if api == "fn":
                stub = _fn_stub(schema, note, name=name, deprecated_as=note)
            else:
                stub = _ops_stub(schema, name, note, deprecated_as=note)
            _module_at(modules, root.__name__, path).entries.append(stub)
        for mod in modules.values():
            mod.submodules.sort()
        for path, module in modules.items():
            runtime = sys.modules[module.name]  # the module `_graph.api` made
            text = module.render(runtime.__doc__ or "", list(runtime.__all__))
            files[_stub_path(api, path, any(p[:-1] == path for p in modules if p))] = text
    return dict(sorted(files.items()))


def write_stubs(package_dir: Path | None = None) -> list[Path]:
    """Write the stubs into the `dali` package, removing stubs of namespaces that are gone.

    Args:
        package_dir: The ``dali`` package directory; default: the one imported.

    Returns:
        The files written.
    """
    if package_dir is None:
        package_dir = Path(__file__).resolve().parent.parent
    stubs = render_stubs()
    for api in ("fn", "ops"):
        for old in (package_dir / api).rglob("*.pyi"):
            if old.relative_to(package_dir).as_posix() not in stubs:
                old.unlink()
    written = []
    for rel, text in stubs.items():
        path = package_dir / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        written.append(path)
    return written


def main() -> None:
    """``python -m dali._graph.stubs``: rewrite the stubs, print the files written."""
    for path in write_stubs():
        print(path)


if __name__ == "__main__":
    main()

"""Generating `dali.fn` functions and `dali.ops` classes from the operator registry."""

from __future__ import annotations

import inspect
import sys
import types as pytypes
import warnings
from collections.abc import Callable
from typing import Any

from dali._graph import catalogue
from dali._graph.args import UnknownArgumentError
from dali._graph.schema import REQUIRED, UNSET, Schema, all_schemas, get_schema
from dali._graph.trace import call_operator

__all__ = ["aliases", "deprecation", "docstring", "populate_fn", "populate_ops"]


def docstring(schema: Schema, api: str) -> str:
    """The docstring of an operator's `fn` function (``api="fn"``) or `ops` class (``"ops"``)."""
    lines = [schema.doc or f"The `{schema.fn_path}` operator.", "", "Args:"]
    for arg in schema.args.values():
        if arg.default is REQUIRED:
            default = "required"
        elif arg.default is UNSET:
            default = "optional"
        else:
            default = f"default {arg.default!r}"
        per_sample = ", per-sample" if arg.tensor else ""
        lines.append(f"    {arg.name} ({arg.type}, {default}{per_sample}): {arg.doc}".rstrip())
    lines.append("")
    lines.append(
        f"Devices: {', '.join(schema.devices)}. Inputs: {schema.min_inputs}..{schema.max_inputs}."
    )
    if api == "ops":
        lines.append("Construct with scalar arguments, then call with inputs inside define_graph.")
    return "\n".join(lines)


def _signature(schema: Schema) -> inspect.Signature:
    params = [inspect.Parameter("inputs", inspect.Parameter.VAR_POSITIONAL)]
    for arg in schema.args.values():
        default = None if arg.default in (UNSET, REQUIRED) else arg.default
        params.append(inspect.Parameter(arg.name, inspect.Parameter.KEYWORD_ONLY, default=default))
    return inspect.Signature(params)


def _positional_to_kwargs(
    schema: Schema, inputs: tuple[Any, ...], kwargs: dict[str, Any]
) -> tuple[tuple[Any, ...], dict[str, Any]]:
    names = schema.extra.get("positional_args")
    if not names or not inputs:
        return inputs, kwargs
    if len(inputs) > len(names):
        raise TypeError(f"{schema.display_name} takes at most {len(names)} positional arguments")
    kwargs = dict(kwargs)
    for n, v in zip(names, inputs):
        if n in kwargs:
            raise TypeError(f"{schema.display_name} got multiple values for argument `{n}`")
        kwargs[n] = v
    return (), kwargs


def _make_fn(schema: Schema, module: str) -> Callable[..., Any]:
    custom = schema.extra.get("fn")

    def op_fn(*inputs: Any, **kwargs: Any) -> Any:
        inputs, kwargs = _positional_to_kwargs(schema, inputs, kwargs)
        if custom is not None:
            return custom(schema, inputs, kwargs)
        return call_operator(schema, inputs, kwargs)

    op_fn.__name__ = op_fn.__qualname__ = schema.fn_name
    op_fn.__module__ = module
    op_fn.__doc__ = docstring(schema, "fn")
    op_fn.__signature__ = _signature(schema)  # type: ignore[attr-defined]
    return op_fn


def deprecation(api: str, old: str, schema: Schema) -> str:
    """DALI's warning for a deprecated name ``old`` of ``schema``'s operator in ``api``."""
    text = f"WARNING: `dali.{api}.{old}` is now deprecated."
    if schema.fn_path.startswith("_"):  # no public successor: what to do instead
        return f"{text}\n{catalogue.NOTES[old]}"
    return f"{text} Use `dali.fn.{schema.fn_path}` instead."


def _make_deprecated_fn(schema: Schema, module: str, old: str) -> Callable[..., Any]:
    call = _make_fn(schema, module)
    message = deprecation("fn", old, schema)

    def op_fn(*inputs: Any, **kwargs: Any) -> Any:
        warnings.warn(message, DeprecationWarning, stacklevel=2)
        return call(*inputs, **kwargs)

    op_fn.__name__ = op_fn.__qualname__ = old.rsplit(".", 1)[-1]
    op_fn.__module__ = module
    op_fn.__doc__ = f"{message}\n\n{call.__doc__}"
    op_fn.__signature__ = _signature(schema)  # type: ignore[attr-defined]
    return op_fn


def _make_ops_class(schema: Schema, module: str, class_name: str, deprecated: str = "") -> type:
    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        if deprecated:
            warnings.warn(deprecated, DeprecationWarning, stacklevel=2)
        if args:
            names = schema.extra.get("positional_args", ())
            if len(args) > len(names):
                raise TypeError(
                    f"ops.{class_name}() takes keyword arguments only"
                    + (f" (or {', '.join(names)} positionally)" if names else "")
                )
            kwargs = {**dict(zip(names, args)), **kwargs}
        for k in kwargs:
            if k not in schema.args:
                valid = ", ".join(sorted(schema.args))
                raise UnknownArgumentError(
                    f'Argument "{k}" is not defined for operator "{schema.display_name}". '
                    f"Valid arguments are: {valid}."
                )
        self._kwargs = {k: v for k, v in kwargs.items() if v is not None}
        self._schema = schema

    def __call__(self: Any, *inputs: Any, **kwargs: Any) -> Any:
        merged = dict(self._kwargs)
        merged.update(kwargs)
        inputs, merged = _positional_to_kwargs(schema, inputs, merged)
        custom = schema.extra.get("ops_fn", schema.extra.get("fn"))
        if custom is not None:
            return custom(schema, inputs, merged)
        return call_operator(schema, inputs, merged)

    def __repr__(self: Any) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self._kwargs.items())
        return f"ops.{class_name}({args})"

    cls = type(
        class_name,
        (),
        {
            "__init__": __init__,
            "__call__": __call__,
            "__repr__": __repr__,
            "__doc__": docstring(schema, "ops"),
            "__module__": module,
            "schema": property(lambda self: self._schema),
        },
    )
    return cls


def _tree(
    root_name: str,
    namespace: dict[str, Any],
    entries: list[tuple[tuple[str, ...], str, Any]],
    api: str,
) -> None:
    """Put ``entries`` (module path, attribute name, value) into a module tree under root,
    every module answering for the NVIDIA DALI names it lacks (`_missing`)."""
    modules: dict[tuple[str, ...], pytypes.ModuleType] = {}

    def module_for(path: tuple[str, ...]) -> Any:
        if not path:
            return None
        if path not in modules:
            full = ".".join((root_name, *path))
            mod = sys.modules.get(full)
            if mod is None:
                mod = pytypes.ModuleType(full, f"`{full}` operators (generated from the registry).")
                sys.modules[full] = mod
            modules[path] = mod
            parent = module_for(path[:-1])
            if parent is None:
                namespace[path[-1]] = mod
            else:
                setattr(parent, path[-1], mod)
        return modules[path]

    for path, attr, value in entries:
        mod = module_for(path)
        target = namespace if mod is None else vars(mod)
        if attr in target:
            raise RuntimeError(f"dali.{api}: {'.'.join((*path, attr))} is defined twice")
        target[attr] = value
    namespace["__getattr__"] = _missing(api, ())
    for path, mod in modules.items():
        vars(mod)["__all__"] = sorted(k for k in vars(mod) if not k.startswith("_"))
        vars(mod)["__getattr__"] = _missing(api, path)


def aliases(api: str) -> list[tuple[str, Schema]]:
    """The deprecated names of ``api`` (``"fn"`` or ``"ops"``) whose operator is registered,
    each with its schema, in name order (`catalogue.FN_ALIASES`, `catalogue.OPS_ALIASES`)."""
    table = catalogue.FN_ALIASES if api == "fn" else catalogue.OPS_ALIASES
    out = []
    for old, fn_path in sorted(table.items()):
        try:
            out.append((old, get_schema(fn_path)))
        except KeyError:  # an operator not implemented here: reported as such (`_missing`)
            continue
    return out


def populate_fn(namespace: dict[str, Any], root_name: str) -> list[str]:
    """Fill the `dali.fn` module namespace (with DALI's deprecated names of the operators it
    has); returns the top-level public names."""
    entries = []
    for schema in all_schemas():
        if schema.fn_path.startswith("_"):
            continue
        module = ".".join((root_name, *schema.module_path))
        entries.append((schema.module_path, schema.fn_name, _make_fn(schema, module)))
    for old, schema in aliases("fn"):
        path = tuple(old.split(".")[:-1])
        module = ".".join((root_name, *path))
        entries.append((path, old.rsplit(".", 1)[-1], _make_deprecated_fn(schema, module, old)))
    _tree(root_name, namespace, entries, "fn")
    return sorted(k for k in namespace if not k.startswith("_") and k not in ("annotations",))


def populate_ops(namespace: dict[str, Any], root_name: str) -> list[str]:
    """Fill the `dali.ops` module namespace (plus DALI's deprecated names); returns the
    top-level public names."""
    entries = []
    for schema in all_schemas():
        if schema.fn_path.startswith("_"):
            continue
        module = ".".join((root_name, *schema.module_path))
        cls = _make_ops_class(schema, module, schema.class_name)
        entries.append((schema.module_path, schema.class_name, cls))
    for old, schema in aliases("ops"):
        path = tuple(old.split(".")[:-1])
        module = ".".join((root_name, *path))
        name = old.rsplit(".", 1)[-1]
        cls = _make_ops_class(schema, module, name, deprecated=deprecation("ops", old, schema))
        entries.append((path, name, cls))
    _tree(root_name, namespace, entries, "ops")
    return sorted(k for k in namespace if not k.startswith("_") and k not in ("annotations",))


def _missing(api: str, path: tuple[str, ...]) -> Callable[[str], Any]:
    """The ``__getattr__`` of the module ``api`` + ``path``: an NVIDIA DALI name that is not
    here raises `catalogue.OperatorNotImplementedError`, and a namespace of DALI's that this
    library does not have (one a later catalogue adds) is a module that answers the same way."""
    known = catalogue.dali_names(api)
    here = ".".join((f"dali.{api}", *path))
    namespaces: dict[str, pytypes.ModuleType] = {}

    def __getattr__(name: str) -> Any:
        full = ".".join((*path, name))
        if full in known:
            raise catalogue.OperatorNotImplementedError(
                f"`dali.{api}.{full}` is an NVIDIA DALI operator not implemented in dali yet "
                f"(`dali.{api}.__all__` and its submodules list the operators it has)."
            )
        if not name.startswith("__") and any(k.startswith(full + ".") for k in known):
            if name not in namespaces:
                mod = pytypes.ModuleType(
                    f"{here}.{name}", f"NVIDIA DALI's `{api}.{full}` (not implemented in dali yet)."
                )
                vars(mod)["__getattr__"] = _missing(api, (*path, name))
                vars(mod)["__all__"] = []
                namespaces[name] = mod
            return namespaces[name]
        raise AttributeError(f"module {here!r} has no attribute {name!r}")

    return __getattr__

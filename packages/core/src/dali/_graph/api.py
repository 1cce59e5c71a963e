"""Generating `dali.fn` functions and `dali.ops` classes from the operator registry."""

from __future__ import annotations

import inspect
import sys
import types as pytypes
import warnings
from collections.abc import Callable
from typing import Any

from dali._graph.args import UnknownArgumentError
from dali._graph.schema import REQUIRED, UNSET, Schema, all_schemas
from dali._graph.trace import call_operator

__all__ = ["docstring", "populate_fn", "populate_ops"]


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


def _make_ops_class(schema: Schema, module: str, class_name: str, deprecated: bool) -> type:
    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        if deprecated:
            warnings.warn(
                f"ops.{class_name} is a deprecated alias of ops."
                f"{'.'.join((*schema.module_path, schema.class_name))}",
                DeprecationWarning,
                stacklevel=2,
            )
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
) -> None:
    """Put ``entries`` (module path, attribute name, value) into a module tree under root."""
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
        if mod is None:
            namespace[attr] = value
        else:
            setattr(mod, attr, value)
    for mod in modules.values():
        vars(mod)["__all__"] = sorted(k for k in vars(mod) if not k.startswith("_"))


def populate_fn(namespace: dict[str, Any], root_name: str) -> list[str]:
    """Fill the `dali.fn` module namespace; returns the top-level public names."""
    entries = []
    for schema in all_schemas():
        if schema.fn_path.startswith("_"):
            continue
        module = ".".join((root_name, *schema.module_path))
        entries.append((schema.module_path, schema.fn_name, _make_fn(schema, module)))
    _tree(root_name, namespace, entries)
    return sorted(k for k in namespace if not k.startswith("_") and k not in ("annotations",))


def populate_ops(namespace: dict[str, Any], root_name: str) -> list[str]:
    """Fill the `dali.ops` module namespace (plus legacy aliases); returns top-level names."""
    entries = []
    for schema in all_schemas():
        if schema.fn_path.startswith("_"):
            continue
        module = ".".join((root_name, *schema.module_path))
        cls = _make_ops_class(schema, module, schema.class_name, deprecated=False)
        entries.append((schema.module_path, schema.class_name, cls))
        for alias in schema.aliases:
            entries.append(((), alias, _make_ops_class(schema, root_name, alias, deprecated=True)))
    _tree(root_name, namespace, entries)
    return sorted(k for k in namespace if not k.startswith("_") and k not in ("annotations",))

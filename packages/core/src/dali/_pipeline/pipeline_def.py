"""`@pipeline_def`: turn a graph-defining function into a pipeline factory."""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Any, overload

from dali._pipeline.pipeline import Pipeline

__all__ = ["do_not_convert", "make_pipeline_def", "pipeline_def"]

_PIPELINE_PARAMS = frozenset(
    name for name in inspect.signature(Pipeline.__init__).parameters if name != "self"
)


def do_not_convert(func: Callable[..., Any]) -> Callable[..., Any]:
    """Exclude ``func`` from the `if` conversion done by ``enable_conditionals=True``."""
    func.__dali_do_not_convert__ = True  # type: ignore[attr-defined]
    return func


def _check_ctor_kwargs(kwargs: dict[str, Any], where: str) -> None:
    for k in kwargs:
        if k not in _PIPELINE_PARAMS:
            raise TypeError(
                f"{where}: unknown argument `{k}`; it is neither a parameter of the "
                f"graph-defining function nor a Pipeline argument "
                f"({', '.join(sorted(_PIPELINE_PARAMS))})."
            )


@overload
def pipeline_def(
    fn: Callable[..., Any], *, enable_conditionals: bool = ..., **pipeline_kwargs: Any
) -> Callable[..., Pipeline]: ...


@overload
def pipeline_def(
    fn: None = None, *, enable_conditionals: bool = ..., **pipeline_kwargs: Any
) -> Callable[[Callable[..., Any]], Callable[..., Pipeline]]: ...


def pipeline_def(
    fn: Callable[..., Any] | None = None,
    *,
    enable_conditionals: bool = False,
    **pipeline_kwargs: Any,
) -> Callable[..., Pipeline] | Callable[[Callable[..., Any]], Callable[..., Pipeline]]:
    """Decorate a graph-defining function; calling it returns a `Pipeline` (not yet built).

    Keyword arguments of the call that name a parameter of the function go to the function;
    those that name a `Pipeline` constructor argument go to the constructor (call-time values
    override the decorator's). A name that is both goes to the function only.

    Args:
        fn: The graph-defining function (when used bare: ``@pipeline_def``).
        enable_conditionals: Allow Python ``if`` on per-sample scalar DataNodes.
        **pipeline_kwargs: Default `Pipeline` constructor arguments.

    Example:
        >>> import dali.fn as fn
        >>> @pipeline_def(batch_size=2, num_threads=1)
        ... def pipe(lo=0.0):
        ...     return fn.random.uniform(range=(lo, 1.0))
        >>> p = pipe(lo=0.5, seed=3)
        >>> len(p.run()[0])
        2
    """
    return make_pipeline_def(fn, enable_conditionals, pipeline_kwargs, debug=None)


def make_pipeline_def(
    fn: Callable[..., Any] | None,
    enable_conditionals: bool,
    pipeline_kwargs: dict[str, Any],
    *,
    debug: bool | None,
) -> Callable[..., Pipeline] | Callable[[Callable[..., Any]], Callable[..., Pipeline]]:
    """`pipeline_def`'s work, shared with ``dali.pipeline.experimental.pipeline_def``.

    Args:
        fn: The graph-defining function, or None (the decorator is returned).
        enable_conditionals: The default of the call's ``enable_conditionals``.
        pipeline_kwargs: Default `Pipeline` constructor arguments.
        debug: None for the stable decorator (no ``debug`` argument); a bool for the
            experimental one: the default of the call's ``debug``, which makes the pipeline
            run its definition eagerly (`dali._pipeline.debug.PipelineDebug`). As in DALI, a
            graph function with a parameter of that name gets the value too.
    """
    _check_ctor_kwargs(pipeline_kwargs, "pipeline_def")

    def decorate(func: Callable[..., Any]) -> Callable[..., Pipeline]:
        sig = inspect.signature(func)
        fn_params: set[str] = set()
        for p in sig.parameters.values():
            if p.kind == inspect.Parameter.VAR_KEYWORD:
                raise TypeError(
                    f"Using variadic keyword argument `**{p.name}` in a graph-defining function "
                    f"is not allowed."
                )
            if p.kind != inspect.Parameter.VAR_POSITIONAL:
                fn_params.add(p.name)

        @functools.wraps(func)
        def create_pipeline(*args: Any, **kwargs: Any) -> Pipeline:
            conditionals = enable_conditionals
            if "enable_conditionals" in kwargs and "enable_conditionals" not in fn_params:
                conditionals = bool(kwargs.pop("enable_conditionals"))
            debug_on = False
            if debug is not None:
                debug_on = bool(kwargs.get("debug", debug))
                if "debug" not in fn_params:
                    kwargs.pop("debug", None)
            ctor = dict(pipeline_kwargs)
            fn_kwargs: dict[str, Any] = {}
            for k, v in kwargs.items():
                if k in fn_params:
                    if k in _PIPELINE_PARAMS:
                        print(
                            f"Warning: the argument `{k}` shadows a Pipeline constructor argument "
                            f"of the same name."
                        )
                    fn_kwargs[k] = v
                elif k in _PIPELINE_PARAMS:
                    ctor[k] = v
                else:
                    raise TypeError(
                        f"{func.__name__}() got an unexpected keyword argument `{k}`: it is "
                        f"neither a parameter of the graph-defining function nor a Pipeline "
                        f"constructor argument."
                    )
            target = func
            if conditionals:
                from dali._pipeline.conditionals import convert

                target = convert(func)
            if debug_on:
                from dali._pipeline.debug import PipelineDebug

                definition = functools.partial(target, *args, **fn_kwargs)
                return PipelineDebug(definition, conditionals=conditionals, **ctor)
            pipe = Pipeline(**ctor)
            with pipe:
                outputs = target(*args, **fn_kwargs)
                if outputs is None:
                    pipe.set_outputs()
                elif isinstance(outputs, (tuple, list)):
                    pipe.set_outputs(*outputs)
                else:
                    pipe.set_outputs(outputs)
            pipe._conditionals = conditionals
            return pipe

        create_pipeline._is_pipeline_def = True  # type: ignore[attr-defined]
        return create_pipeline

    return decorate(fn) if fn is not None else decorate

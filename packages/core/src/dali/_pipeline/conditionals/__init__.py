"""``enable_conditionals=True``: Python ``if`` on a DataNode becomes a per-sample split and merge.

DALI rewrites the graph-defining function with a fork of AutoGraph. We do the same with a small
`ast` transformer (no AutoGraph, no TensorFlow). The rewritten function behaves like the
original for plain Python values; when a condition is a DataNode, *both* branches are traced:

* entering a branch opens a `_Scope` (pushed on `dali._graph.context.scope_stack`). Every
  operator traced while a scope is open is handed to `_Scope.adopt`, which replaces the inputs
  coming from outside the branch with *split* versions holding only the samples that take the
  branch (one split per node and branch, chained through nested ``if``\\ s), and gives operators
  without inputs (``fn.random.uniform()``, constants) a ``batch_source`` in the branch so that
  they produce values for exactly those samples;
* after both branches, every variable assigned in either branch is *merged*: the two per-branch
  batches are interleaved back into the original sample order. Tuples, lists and dicts are
  merged element by element; Python numbers and arrays are turned into constants first (DALI
  does the same), identical values are kept as they are;
* a variable that only one branch defines, or that holds different non-mergeable Python objects,
  becomes a placeholder that raises DALI's explanation as soon as it is used (DALI finds unused
  ones by liveness analysis and ignores them; we wait for a use).

``and``, ``or`` and ``not`` on DataNodes become element-wise logical operators (``and``/``or``
evaluate their right operand only for the samples that need it, as Python does); conditional
expressions ``a if cond else b`` and chained comparisons ``0 < x < 3`` are per-sample too.

``return`` inside an ``if`` is supported (DALI restricts it): the rest of the function is moved
into the branches so that every path ends with a ``return``, and the returned values are merged
like variables; a branch that returns nothing while the other returns a DataNode is an error
when the result is used. An ``if`` on a DataNode cannot hold a ``return`` when either is inside
a loop, a ``with`` or a ``try`` block, nor ``break``/``continue`` (a clear error at tracing).
``while`` and ``for`` over a DataNode raise a clear error.

Functions called from a converted function are converted too (when their source is available
and they are not part of `dali`, the standard library or an installed package), unless
decorated with `dali.pipeline.do_not_convert`. A function whose source cannot be read (a
lambda, the REPL) is used as is, with a warning.
The code, by concern:

* `rewrite`: the AST transform (``if`` → runtime calls, ``return`` lifting);
* `functions`: which functions are converted, and how a function object is rebuilt;
* `runtime`: what the rewritten code calls while the graph is traced;
* `scopes`: the split, which samples an operator traced in a branch sees;
* `merge`: the merge of the branches' values, and placeholders for unmergeable ones.
"""

from __future__ import annotations

import functools
import types as pytypes
import warnings
import weakref
from collections.abc import Callable
from typing import Any

from dali._graph import context
from dali._graph.node import DataNode
from dali._pipeline.conditionals.functions import ConversionError, convert_function
from dali._pipeline.conditionals.merge import Poisoned
from dali._pipeline.conditionals.scopes import Scope

__all__ = ["convert"]

#: The pipeline functions converted so far (or why they could not be).
_top_cache: weakref.WeakKeyDictionary[Any, Any] = weakref.WeakKeyDictionary()


def _check_outputs(result: Any) -> None:
    items = result if isinstance(result, (tuple, list)) else (result,)
    for item in items:
        if isinstance(item, Poisoned):
            item._raise()
        if isinstance(item, DataNode) and item.scope is not None and item.scope.parent is not None:
            raise RuntimeError(
                f"The pipeline output `{item.name}` was produced in {item.scope.describe()} and "
                f"cannot be a pipeline output: assign it to a variable in both branches so that "
                f"it is merged."
            )


def convert(func: Callable[..., Any]) -> Callable[..., Any]:
    """The graph-defining function ``func`` with ``if`` on DataNodes made per-sample.

    Args:
        func: The function given to ``@pipeline_def(enable_conditionals=True)``.

    Returns:
        A function with the same signature; call it while the pipeline is being defined.

    Example:
        >>> import numpy as np
        >>> import dali
        >>> from dali import fn
        >>> @dali.pipeline_def(batch_size=4, num_threads=1, enable_conditionals=True, seed=1)
        ... def pipe():
        ...     flip = fn.random.coin_flip()
        ...     if flip:
        ...         out = fn.random.uniform(range=(1, 2))
        ...     else:
        ...         out = fn.random.uniform(range=(-2, -1))
        ...     return flip, out
        >>> flip, out = pipe().run()
        >>> bool(np.all((out.as_array() > 0) == (flip.as_array() == 1)))
        True
    """
    target: Callable[..., Any] = func
    if not getattr(func, "__dali_do_not_convert__", False):
        reason = ""
        if not isinstance(func, pytypes.FunctionType) or func.__name__ == "<lambda>":
            reason = "it is not a plain function defined with `def`"
        else:
            hit = _top_cache.get(func)
            if hit is None:
                try:
                    hit = convert_function(func)
                except ConversionError as e:
                    hit = str(e)
                _top_cache[func] = hit
            if isinstance(hit, str):
                reason = hit
            else:
                target = hit
        if reason:
            warnings.warn(
                f"enable_conditionals=True: `{getattr(func, '__qualname__', func)}` is used as "
                f"is because {reason}; an `if` on a DataNode in it will fail.",
                stacklevel=3,
            )

    @functools.wraps(func)
    def define_graph(*args: Any, **kwargs: Any) -> Any:
        stack = context.scope_stack()
        depth = len(stack)
        stack.append(Scope(None, None, True, ""))
        try:
            result = target(*args, **kwargs)
        finally:
            del stack[depth:]
        _check_outputs(result)
        return result

    return define_graph

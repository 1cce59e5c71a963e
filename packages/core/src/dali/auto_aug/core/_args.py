"""Matching the extra keyword arguments of an augmentation call to the decorated function.

An augmentation is called as ``aug(data, magnitude_bin=..., num_magnitude_bins=..., **kwargs)``;
of ``kwargs`` it passes on only what the decorated function's signature names (after its two
positional parameters: the samples and the parameter), and it raises `MissingArgException` when
a parameter without a default is not among them. ``apply_*`` functions reject keyword arguments
that no augmentation of theirs takes (`forbid_unused_kwargs`). As DALI's
``nvidia/dali/auto_aug/core/_args.py``.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterable
from typing import Any

__all__ = [
    "MissingArgException",
    "UnusedArgException",
    "filter_extra_accepted_kwargs",
    "filter_unused_args",
    "forbid_unused_kwargs",
    "get_missing_kwargs",
    "get_num_positional_args",
    "get_required_kwargs",
]

_POSITIONAL = (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.POSITIONAL_ONLY)
_NAMED = (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)


class MissingArgException(Exception):
    """An augmentation was called without a named argument its function requires.

    Attributes:
        augmentation: The augmentation called.
        missing_args: The names of the required arguments that were not passed.
    """

    def __init__(self, message: str, augmentation: Any, missing_args: list[str]) -> None:
        super().__init__(message)
        self.augmentation = augmentation
        self.missing_args = missing_args


class UnusedArgException(Exception):
    """An ``apply_*`` call got keyword arguments that none of its augmentations takes.

    Attributes:
        unused_args: The names of those arguments.
    """

    def __init__(self, message: str, unused_args: list[str]) -> None:
        super().__init__(message)
        self.unused_args = unused_args


def _params(fun: Callable[..., Any], skip_positional: int) -> list[inspect.Parameter]:
    """``fun``'s parameters without its first ``skip_positional`` positional ones (fewer when
    it has fewer)."""
    sig = inspect.signature(fun)
    return [
        param
        for i, param in enumerate(sig.parameters.values())
        if i >= skip_positional or param.kind not in _POSITIONAL
    ]


def filter_extra_accepted_kwargs(
    fun: Callable[..., Any], kwargs: dict[str, Any], skip_positional: int = 0
) -> dict[str, Any]:
    """The entries of ``kwargs`` whose keys name a parameter of ``fun`` that can be passed by
    name (the first ``skip_positional`` positional parameters excluded)."""
    names = {p.name for p in _params(fun, skip_positional) if p.kind in _NAMED}
    return {name: value for name, value in kwargs.items() if name in names}


def get_required_kwargs(fun: Callable[..., Any], skip_positional: int = 0) -> list[str]:
    """The names of ``fun``'s parameters without defaults (the first ``skip_positional``
    positional parameters excluded)."""
    return [
        p.name
        for p in _params(fun, skip_positional)
        if p.default is inspect.Parameter.empty and p.kind in _NAMED
    ]


def get_num_positional_args(fun: Callable[..., Any]) -> int:
    """How many arguments ``fun`` can take positionally."""
    return sum(p.kind in _POSITIONAL for p in inspect.signature(fun).parameters.values())


def get_missing_kwargs(
    fun: Callable[..., Any], kwargs: dict[str, Any], skip_positional: int = 0
) -> list[str]:
    """The required parameters of ``fun`` (see `get_required_kwargs`) absent from ``kwargs``."""
    required = get_required_kwargs(fun, skip_positional=skip_positional)
    return [name for name in required if name not in kwargs]


def filter_unused_args(augmentations: Iterable[Any], kwargs: dict[str, Any]) -> list[str]:
    """The keys of ``kwargs`` that none of ``augmentations`` takes."""
    used = {
        name
        for augment in augmentations
        for name in filter_extra_accepted_kwargs(augment.op, kwargs, 2)
    }
    return [name for name in kwargs if name not in used]


def forbid_unused_kwargs(
    augmentations: Iterable[Any], kwargs: dict[str, Any], call_name: str
) -> None:
    """Raise `UnusedArgException` if any of ``kwargs`` is taken by none of ``augmentations``."""
    unused_args = filter_unused_args(augmentations, kwargs)
    if unused_args:
        subject, verb = ("kwarg", "is") if len(unused_args) == 1 else ("kwargs", "are")
        unused_kwargs_str = ", ".join(unused_args)
        raise UnusedArgException(
            f"The {call_name} got unexpected {subject}. "
            f"The {subject} `{unused_kwargs_str}` {verb} not used by any of the augmentations.",
            unused_args=unused_args,
        )

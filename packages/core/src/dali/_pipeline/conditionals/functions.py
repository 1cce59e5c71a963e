"""Converting function objects: which functions are user code, and rebuilding them rewritten.

`convert_function` parses a function's source, rewrites it with `Converter` and compiles it
so that the new code shares the original globals and closure cells. `call` (every call in
converted code goes through it) converts user functions on first use; the results are cached.
"""

from __future__ import annotations
import __future__

import ast
import copy
import functools
import inspect
import os
import sys
import sysconfig
import types as pytypes
import weakref
from typing import Any

from dali._pipeline.conditionals import runtime
from dali._pipeline.conditionals.merge import Poisoned
from dali._pipeline.conditionals.rewrite import FACTORY, RT, Converter

__all__ = ["ConversionError", "call", "convert_function", "converted"]


def converted(func: Any) -> Any:
    """Mark a function created by converted code as already converted."""
    try:
        func.__dali_converted__ = True
    except (AttributeError, TypeError):
        pass
    return func


def call(func: Any, /, *args: Any, **kwargs: Any) -> Any:
    """Every call in converted code: converts the callee first when it is user code."""
    for a in args:
        if isinstance(a, Poisoned):
            a._raise()
    for a in kwargs.values():
        if isinstance(a, Poisoned):
            a._raise()
    return _converted_callable(func)(*args, **kwargs)


class _Runtime:
    """What converted code sees as ``__dali_rt__``."""

    IfStmt = runtime.IfStmt
    if_exp = staticmethod(runtime.if_exp)
    compare = staticmethod(runtime.compare)
    not_ = staticmethod(runtime.not_)
    and_ = staticmethod(runtime.and_)
    or_ = staticmethod(runtime.or_)
    loop_test = staticmethod(runtime.loop_test)
    loop_iter = staticmethod(runtime.loop_iter)
    converted = staticmethod(converted)
    call = staticmethod(call)


_RUNTIME = _Runtime()


def _library_dirs() -> tuple[str, ...]:
    here = os.path.abspath(__file__)  # dali/_pipeline/conditionals/functions.py
    dirs = {os.path.dirname(os.path.dirname(os.path.dirname(here)))}  # the dali package
    paths = sysconfig.get_paths()
    for key in ("stdlib", "platstdlib", "purelib", "platlib"):
        if paths.get(key):
            dirs.add(os.path.abspath(paths[key]))
    for p in sys.path:
        if p and os.path.basename(p) in ("site-packages", "dist-packages"):
            dirs.add(os.path.abspath(p))
    return tuple(d.rstrip(os.sep) + os.sep for d in dirs)


_LIBRARY_DIRS = _library_dirs()
_NOT_CONVERTIBLE = inspect.CO_GENERATOR | inspect.CO_COROUTINE | inspect.CO_ASYNC_GENERATOR
_cache: weakref.WeakKeyDictionary[Any, Any] = weakref.WeakKeyDictionary()
_SAME = object()
#: The user-defined `__call__` of callable objects, per type (None: not a Python function).
_call_methods: weakref.WeakKeyDictionary[type, Any] = weakref.WeakKeyDictionary()
_NEVER_CONVERTED = (type, pytypes.BuiltinFunctionType, pytypes.MethodWrapperType, functools.partial)
#: Fields that AST constructors need from Python 3.12 on (and reject as unknown before).
_NEW_FIELDS: dict[str, Any] = {"type_params": []} if sys.version_info >= (3, 12) else {}
#: The name a converted function is compiled under (see `convert_function`).
CONVERTED = "__dali_converted_function__"
#: Library modules converted all the same (as DALI's `convert_modules`): the automatic
#: augmentations branch on DataNodes with plain `if` statements.
CONVERTED_MODULES = ("dali.auto_aug",)
_CONVERTED_PREFIXES = tuple(m + "." for m in CONVERTED_MODULES)


class ConversionError(Exception):
    pass


def _user_function(func: Any) -> bool:
    """Whether ``func`` is user code (or of `CONVERTED_MODULES`) that may be converted."""
    if not isinstance(func, pytypes.FunctionType):
        return False
    if getattr(func, "__dali_do_not_convert__", False) or getattr(
        func, "__dali_converted__", False
    ):
        return False
    if func.__name__ == "<lambda>" or hasattr(func, "__wrapped__"):
        return False
    if func.__code__.co_flags & _NOT_CONVERTIBLE:
        return False
    module = func.__module__ or ""
    if module in CONVERTED_MODULES or module.startswith(_CONVERTED_PREFIXES):
        return True
    if module == "dali" or module.startswith("dali."):
        return False
    filename = os.path.abspath(func.__code__.co_filename)
    return not filename.startswith(_LIBRARY_DIRS)


def _converted_callable(func: Any) -> Any:
    """``func`` or its converted version (cached)."""
    if isinstance(func, pytypes.MethodType):
        inner = _converted_callable(func.__func__)
        return func if inner is func.__func__ else pytypes.MethodType(inner, func.__self__)
    if not isinstance(func, pytypes.FunctionType):
        if isinstance(func, _NEVER_CONVERTED):
            return func
        call_method = _call_methods.get(type(func), _SAME)
        if call_method is _SAME:
            call_method = inspect.getattr_static(type(func), "__call__", None)
            if not isinstance(call_method, pytypes.FunctionType):
                call_method = None
            _call_methods[type(func)] = call_method
        if call_method is None:
            return func
        inner = _converted_callable(call_method)
        return func if inner is call_method else pytypes.MethodType(inner, func)
    hit = _cache.get(func)
    if hit is None:
        hit = _SAME
        if _user_function(func):
            try:
                hit = convert_function(func)
            except ConversionError:
                pass
        if not getattr(func, "__dali_converted__", False):  # (those are many and short-lived)
            _cache[func] = hit  # (`_SAME`, not `func`: a value must not keep its weak key alive)
    return func if hit is _SAME else hit


def _future_flags(func: pytypes.FunctionType) -> int:
    return func.__code__.co_flags & __future__.annotations.compiler_flag


def _parse_function(func: pytypes.FunctionType) -> tuple[ast.FunctionDef, str]:
    try:
        lines, first = inspect.getsourcelines(func)
        filename = inspect.getsourcefile(func) or func.__code__.co_filename
    except (OSError, TypeError) as e:
        raise ConversionError(f"its source code is not available ({e})") from None
    source = "".join(lines)
    offset = first - 1
    if source[:1] in (" ", "\t"):
        # a nested function or a method: parse it inside a block rather than dedenting (which
        # fails on multi-line strings that are less indented than the code)
        source = "if 1:\n" + source
        offset -= 1
    try:
        tree = ast.parse(source, filename=filename)
    except SyntaxError as e:
        raise ConversionError(f"its source code cannot be parsed ({e})") from None
    node: ast.AST = tree.body[0]
    if isinstance(node, ast.If):
        node = node.body[0]
    if not isinstance(node, ast.FunctionDef) or node.name != func.__name__:
        raise ConversionError("its source code could not be located")
    ast.increment_lineno(node, offset)
    return node, filename


def _find_code(code: pytypes.CodeType, name: str) -> pytypes.CodeType | None:
    for const in code.co_consts:
        if isinstance(const, pytypes.CodeType) and const.co_name == name:
            return const
    return None


def convert_function(func: pytypes.FunctionType) -> pytypes.FunctionType:
    """A new function with the rewritten code, the same globals and the same closure cells."""
    node, filename = _parse_function(func)
    node.decorator_list = []  # already applied to `func`
    converter = Converter(filename)
    converter.depth = 0
    new_node = converter.visit(node)
    assert isinstance(new_node, ast.FunctionDef)
    # Compiled under a private name: a `def` of the function's own name in the factory would
    # make a recursive call (`f` calling `f`, a global or a cell of the enclosing function)
    # read an unbound factory local instead; the code object gets its name back below.
    new_node.name = CONVERTED

    # The rewritten function is compiled inside a factory whose parameters are the original
    # free variables (and the runtime), so that they compile as closure variables; the code
    # object is then bound to the original closure cells, which keeps `nonlocal` updates shared.
    freevars = [v for v in func.__code__.co_freevars if v != "__class__"]
    holder: ast.stmt = new_node
    qual = func.__qualname__.split(".")
    cls_name = qual[-2] if len(qual) > 1 and qual[-2] != "<locals>" else None
    if cls_name is not None:
        # compiling inside a class of the same name keeps private-name mangling and `super()`
        holder = ast.ClassDef(
            name=cls_name, bases=[], keywords=[], body=[new_node], decorator_list=[], **_NEW_FIELDS
        )
    factory = ast.FunctionDef(
        name=FACTORY,
        args=ast.arguments(
            posonlyargs=[],
            args=[ast.arg(arg=v) for v in [*freevars, RT]],
            vararg=None,
            kwonlyargs=[],
            kw_defaults=[],
            kwarg=None,
            defaults=[],
        ),
        body=[holder, ast.Pass()],
        decorator_list=[],
        returns=None,
        **_NEW_FIELDS,
    )
    module = ast.Module(body=[factory], type_ignores=[])
    ast.copy_location(factory, new_node)
    if cls_name is not None:
        ast.copy_location(holder, new_node)
    ast.fix_missing_locations(module)
    try:
        code = compile(module, filename, "exec", flags=_future_flags(func), dont_inherit=True)
    except SyntaxError as e:
        raise ConversionError(f"the rewritten code does not compile ({e})") from None
    factory_code = _find_code(code, FACTORY)
    assert factory_code is not None
    parent = _find_code(factory_code, cls_name) if cls_name is not None else factory_code
    new_code = _find_code(parent, CONVERTED) if parent is not None else None
    if new_code is None:
        raise ConversionError("the rewritten code could not be found")
    new_code = new_code.replace(co_name=func.__name__)
    if sys.version_info >= (3, 11):
        new_code = new_code.replace(co_qualname=func.__code__.co_qualname)

    cells = dict(zip(func.__code__.co_freevars, func.__closure__ or ()))
    closure = []
    for name in new_code.co_freevars:
        if name == RT:
            closure.append(pytypes.CellType(_RUNTIME))
        elif name in cells:
            closure.append(cells[name])
        else:
            raise ConversionError(f"the free variable {name!r} has no binding")
    new = pytypes.FunctionType(
        new_code, func.__globals__, func.__name__, func.__defaults__, tuple(closure) or None
    )
    new.__kwdefaults__ = copy.copy(func.__kwdefaults__)
    new.__qualname__ = func.__qualname__
    new.__module__ = func.__module__
    new.__doc__ = func.__doc__
    new.__annotations__ = func.__annotations__
    new.__dict__.update(func.__dict__)
    new.__dali_converted__ = True  # type: ignore[attr-defined]
    return new

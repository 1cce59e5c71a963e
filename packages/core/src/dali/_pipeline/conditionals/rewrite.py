"""The AST transform: a graph-defining function rewritten so that conditions may be DataNodes.

`Converter` turns ``if`` statements, conditional expressions, ``and``/``or``/``not``, chained
comparisons, loop conditions and every call into calls of the runtime helpers, reached in the
rewritten code through the name `RT` (see `dali._pipeline.conditionals.runtime`). ``return``
inside an ``if`` is lifted first: the rest of the function moves into the branches and the
returned values are assigned to `RET`, merged like any other variable.
"""

from __future__ import annotations

import ast
import copy
from collections.abc import Iterator
from typing import Any

__all__ = ["FACTORY", "RET", "RT", "Converter"]

RT = "__dali_rt__"
RET = "__dali_return__"
FACTORY = "__dali_factory__"
#: Calls that depend on the caller's frame and must not be routed through `call`.
_FRAME_CALLS = frozenset(
    {"super", "locals", "globals", "vars", "dir", "eval", "exec", "breakpoint", "__import__"}
)


def _rt(attr: str) -> ast.expr:
    return ast.Attribute(value=ast.Name(id=RT, ctx=ast.Load()), attr=attr, ctx=ast.Load())


def _rt_call(attr: str, *args: ast.expr) -> ast.Call:
    return ast.Call(func=_rt(attr), args=list(args), keywords=[])


def _const(v: Any) -> ast.expr:
    return ast.Constant(value=v)


def _thunk(expr: ast.expr) -> ast.Lambda:
    no_args = ast.arguments(
        posonlyargs=[], args=[], vararg=None, kwonlyargs=[], kw_defaults=[], kwarg=None, defaults=[]
    )
    return ast.Lambda(args=no_args, body=expr)


def _is_generated(name: str) -> bool:
    return name.startswith("__dali_") and name.endswith("__") and name != RET


def _walk_scope(nodes: list[ast.AST]) -> Iterator[ast.AST]:
    """Every node under ``nodes`` that belongs to the same function scope."""
    stack = list(reversed(nodes))
    while stack:
        node = stack.pop()
        yield node
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            # the decorators and defaults are evaluated in this scope, not the body
            inner: list[ast.AST] = list(node.decorator_list)
            if not isinstance(node, ast.ClassDef):
                inner += [*node.args.defaults, *(d for d in node.args.kw_defaults if d)]
            else:
                inner += [*node.bases, *(k.value for k in node.keywords)]
            stack.extend(reversed(inner))
            continue
        if isinstance(node, ast.Lambda):
            stack.extend(reversed([*node.args.defaults, *(d for d in node.args.kw_defaults if d)]))
            continue
        if isinstance(node, (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)):
            # only walrus targets leak out of a comprehension
            stack.extend(n for n in ast.walk(node) if isinstance(n, ast.NamedExpr))
            if node.generators:
                stack.append(node.generators[0].iter)
            continue
        stack.extend(reversed(list(ast.iter_child_nodes(node))))


def _assigned_names(stmts: list[ast.stmt]) -> list[str]:
    """Names bound (or deleted) by ``stmts`` in the current scope, in order of appearance."""
    names: dict[str, None] = {}
    for node in _walk_scope(list(stmts)):
        if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            names[node.id] = None
        elif isinstance(node, ast.NamedExpr):
            names[node.target.id] = None
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names[node.name] = None
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            for alias in node.names:
                if alias.name != "*":
                    names[alias.asname or alias.name.split(".")[0]] = None
        elif isinstance(node, (ast.ExceptHandler, ast.MatchAs, ast.MatchStar)) and node.name:
            names[node.name] = None
        elif isinstance(node, ast.MatchMapping) and node.rest:
            names[node.rest] = None
    return [n for n in names if not _is_generated(n)]


def _unsupported_in_branch(stmts: list[ast.stmt]) -> str | None:
    """What in a branch prevents tracing both branches (control flow leaving the branch)."""

    def visit(node: ast.AST, in_loop: bool) -> str | None:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            return None
        if isinstance(node, ast.Return):
            return (
                "this `return` statement (a `return` under an `if` on a DataNode is converted "
                "only when neither is inside a loop, a `with` or a `try` block)"
            )
        if isinstance(node, (ast.Break, ast.Continue)) and not in_loop:
            return "`break` or `continue` statements"
        if isinstance(node, (ast.Yield, ast.YieldFrom, ast.Await)):
            return "`yield` or `await`"
        loop = in_loop or isinstance(node, (ast.For, ast.While, ast.AsyncFor))
        for child in ast.iter_child_nodes(node):
            found = visit(child, loop)
            if found:
                return found
        return None

    for s in stmts:
        found = visit(s, False)
        if found:
            return found
    return None


# -- return lifting --------------------------------------------------------------------------


def _has_liftable_return(stmts: list[ast.stmt]) -> bool:
    """Whether a ``return`` is reachable through ``if`` statements only."""
    for s in stmts:
        if isinstance(s, ast.If) and (_contains_return(s.body) or _contains_return(s.orelse)):
            return True
    return False


def _contains_return(stmts: list[ast.stmt]) -> bool:
    """Whether ``stmts`` hold a ``return`` directly or under ``if`` statements only."""
    for s in stmts:
        if isinstance(s, ast.Return):
            return True
        if isinstance(s, ast.If) and (_contains_return(s.body) or _contains_return(s.orelse)):
            return True
    return False


def _lift(stmts: list[ast.stmt]) -> list[ast.stmt]:
    """Move the code following an ``if`` that returns into its branches.

    Afterwards, every path through an ``if`` containing a ``return`` ends with a ``return``.
    ``stmts`` must end with a ``return``.
    """
    out: list[ast.stmt] = []
    for i, s in enumerate(stmts):
        if isinstance(s, ast.Return):
            out.append(s)
            return out  # what follows is unreachable
        if isinstance(s, ast.If) and _has_liftable_return([s]):
            rest = stmts[i + 1 :]
            s.body = _lift(s.body + rest)
            s.orelse = _lift(s.orelse + copy.deepcopy(rest))
            out.append(s)
            return out
        out.append(s)
    return out


def _returns_to_assignments(stmts: list[ast.stmt]) -> None:
    for i, s in enumerate(stmts):
        if isinstance(s, ast.Return):
            value = s.value if s.value is not None else _const(None)
            stmts[i] = ast.copy_location(
                ast.Assign(targets=[ast.Name(id=RET, ctx=ast.Store())], value=value), s
            )
        elif isinstance(s, ast.If):
            _returns_to_assignments(s.body)
            _returns_to_assignments(s.orelse)


def _lift_returns(func: ast.FunctionDef) -> None:
    """Rewrite ``return`` inside ``if`` into one merged return value (see module doc)."""
    if not _has_liftable_return(func.body):
        return
    body = list(func.body)
    if not isinstance(body[-1], ast.Return):
        body.append(ast.copy_location(ast.Return(value=None), body[-1]))
    body = _lift(body)
    last = body[-1]
    if isinstance(last, ast.If):
        _returns_to_assignments([last])
        body.append(ast.copy_location(ast.Return(value=ast.Name(id=RET, ctx=ast.Load())), last))
    func.body = body


def _is_do_not_convert(node: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    for d in node.decorator_list:
        target = d.func if isinstance(d, ast.Call) else d
        name = target.attr if isinstance(target, ast.Attribute) else getattr(target, "id", "")
        if name == "do_not_convert":
            return True
    return False


def _is_generator(node: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    return any(isinstance(n, (ast.Yield, ast.YieldFrom)) for n in _walk_scope(list(node.body)))


class Converter(ast.NodeTransformer):
    """Rewrites one function (and the functions nested in it)."""

    def __init__(self, filename: str) -> None:
        self.filename = filename
        self.counter = 0
        self.depth = 0

    def where(self, node: ast.AST) -> str:
        return f"{self.filename}:{getattr(node, 'lineno', '?')}"

    # -- scopes ----------------------------------------------------------------------------
    def visit_FunctionDef(self, node: ast.FunctionDef) -> ast.AST:
        if _is_do_not_convert(node) or _is_generator(node):
            return node
        _lift_returns(node)
        self.depth += 1
        try:
            self.generic_visit(node)
        finally:
            self.depth -= 1
        if self.depth > 0:
            node.decorator_list.append(_rt("converted"))
        return node

    def visit_AsyncFunctionDef(self, node: ast.AsyncFunctionDef) -> ast.AST:
        return node

    def visit_ClassDef(self, node: ast.ClassDef) -> ast.AST:
        return node  # methods are converted when called

    # -- expressions -----------------------------------------------------------------------
    def visit_Call(self, node: ast.Call) -> ast.AST:
        self.generic_visit(node)
        if isinstance(node.func, ast.Name) and node.func.id in _FRAME_CALLS:
            return node
        new = ast.Call(func=_rt("call"), args=[node.func, *node.args], keywords=node.keywords)
        return ast.copy_location(new, node)

    def visit_BoolOp(self, node: ast.BoolOp) -> ast.AST:
        self.generic_visit(node)
        if _has_walrus(node.values[1:]):
            return node  # a lambda would change where the walrus binds
        fn = "and_" if isinstance(node.op, ast.And) else "or_"
        new = _rt_call(fn, _const(self.where(node)), node.values[0], *map(_thunk, node.values[1:]))
        return ast.copy_location(new, node)

    def visit_UnaryOp(self, node: ast.UnaryOp) -> ast.AST:
        self.generic_visit(node)
        if isinstance(node.op, ast.Not):
            return ast.copy_location(_rt_call("not_", node.operand), node)
        return node

    def visit_Compare(self, node: ast.Compare) -> ast.AST:
        self.generic_visit(node)
        if len(node.ops) < 2 or _has_walrus(node.comparators):
            return node
        # `a < b < c` is `a < b and b < c` (b evaluated once): per sample for DataNodes
        ops = ast.Tuple(elts=[_const(type(op).__name__) for op in node.ops], ctx=ast.Load())
        new = _rt_call(
            "compare", _const(self.where(node)), node.left, ops, *map(_thunk, node.comparators)
        )
        return ast.copy_location(new, node)

    def visit_IfExp(self, node: ast.IfExp) -> ast.AST:
        self.generic_visit(node)
        if _has_walrus([node.body, node.orelse]):
            return node
        new = _rt_call(
            "if_exp", node.test, _thunk(node.body), _thunk(node.orelse), _const(self.where(node))
        )
        return ast.copy_location(new, node)

    # -- statements ------------------------------------------------------------------------
    def visit_While(self, node: ast.While) -> ast.AST:
        self.generic_visit(node)
        node.test = ast.copy_location(
            _rt_call("loop_test", node.test, _const(self.where(node))), node.test
        )
        return node

    def visit_For(self, node: ast.For) -> ast.AST:
        self.generic_visit(node)
        node.iter = ast.copy_location(
            _rt_call("loop_iter", node.iter, _const(self.where(node))), node.iter
        )
        return node

    def visit_If(self, node: ast.If) -> list[ast.stmt]:
        self.generic_visit(node)
        self.counter += 1
        var = f"__dali_if_{self.counter}__"
        names = _assigned_names(node.body + node.orelse)
        unsupported = _unsupported_in_branch(node.body + node.orelse)

        def load() -> ast.expr:
            return ast.Name(id=var, ctx=ast.Load())

        def method(name: str, *args: ast.expr) -> ast.Call:
            return ast.Call(
                func=ast.Attribute(value=load(), attr=name, ctx=ast.Load()),
                args=list(args),
                keywords=[],
            )

        def when_traced(stmts: list[ast.stmt]) -> ast.stmt:
            return ast.If(
                test=ast.Attribute(value=load(), attr="traced", ctx=ast.Load()),
                body=stmts,
                orelse=[],
            )

        def read_all() -> list[ast.stmt]:
            # `try: v.set(i, x) except NameError: pass` for every name: unbound names stay unset
            return [
                ast.Try(
                    body=[ast.Expr(method("set", _const(i), ast.Name(id=n, ctx=ast.Load())))],
                    handlers=[
                        ast.ExceptHandler(
                            type=ast.Name(id="NameError", ctx=ast.Load()),
                            name=None,
                            body=[ast.Pass()],
                        )
                    ],
                    orelse=[],
                    finalbody=[],
                )
                for i, n in enumerate(names)
            ]

        def assign_all(call: ast.expr) -> ast.stmt:
            target = ast.Tuple(
                elts=[ast.Name(id=n, ctx=ast.Store()) for n in names], ctx=ast.Store()
            )
            return ast.Assign(targets=[target], value=call)

        out: list[ast.stmt] = [
            ast.Assign(
                targets=[ast.Name(id=var, ctx=ast.Store())],
                value=_rt_call(
                    "IfStmt",
                    node.test,
                    ast.Tuple(elts=[_const(n) for n in names], ctx=ast.Load()),
                    _const(self.where(node)),
                    _const(unsupported),
                ),
            )
        ]
        if names:
            out.append(when_traced([*read_all(), ast.Expr(method("save_before"))]))

        def branch(flag: bool, stmts: list[ast.stmt]) -> ast.stmt:
            # `try/finally` closes the branch's scope even when an exception leaves it
            closing = ast.Try(
                body=stmts + ([when_traced(read_all())] if names else []),
                handlers=[],
                orelse=[],
                finalbody=[ast.Expr(method("leave", _const(flag)))],
            )
            return ast.If(test=method("enter", _const(flag)), body=[closing], orelse=[])

        out.append(branch(True, list(node.body)))
        if node.orelse:
            restore = [when_traced([assign_all(method("restore"))])] if names else []
            out.append(branch(False, restore + list(node.orelse)))
        if names:
            out.append(when_traced([assign_all(method("merge"))]))
        for stmt in out:
            ast.copy_location(stmt, node)
        return [ast.fix_missing_locations(s) for s in out]


def _has_walrus(nodes: list[ast.expr]) -> bool:
    return any(isinstance(n, ast.NamedExpr) for e in nodes for n in ast.walk(e))

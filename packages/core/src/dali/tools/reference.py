"""The operator reference: a Markdown page per `dali.fn` namespace, generated from the registry.

Every operator is declared once (`dali._graph.schema.register`): its docstring, backends,
inputs, outputs and arguments (type, default, whether per-sample values are accepted). This
module turns those declarations into the pages users look ``fn.<op>`` up in, as they would in
NVIDIA DALI's operator reference, so the reference cannot drift from the code:
``python -m dali.tools.reference`` rewrites ``docs/reference/`` and a test checks that the
committed pages are current.

* ``docs/reference/fn.md`` holds the top-level operators, ``fn.readers.md`` the readers, one
  page per namespace of the registry (``fn.experimental.readers.md`` included);
* each operator has its call (inputs by name), its `ops` class, its backends, its docstring
  (reST literal blocks and doctests become code blocks), its number of outputs, its arguments
  in a table, and the deprecated NVIDIA DALI names that call it (`dali._graph.catalogue`);
* ``docs/reference/index.md`` links the pages, every operator with its summary, and DALI's
  deprecated names.

Operators whose fn path starts with ``_`` (arithmetic, conditionals, `DataNode.shape()`) are
internal and have no entry.

Example:
    >>> text = pages()["fn.md"]
    >>> "## fn.resize" in text and "| `resize_x` | float |" in text
    True
"""

from __future__ import annotations

import argparse
import enum
import inspect
import re
import sys
import textwrap
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from dali._graph.schema import Arg, Schema

__all__ = ["PAGES", "anchor", "main", "namespaces", "page_name", "pages"]

#: The folder the pages are written to, from the repository root.
PAGES = Path("docs") / "reference"

#: The command that rewrites the pages (named in their header and in the test's failure).
REGENERATE = "python -m dali.tools.reference"

_DEVICE_WORDS = {"cpu": "CPU", "gpu": "GPU", "mixed": "mixed"}

#: How each schema argument type reads in the table (the words of DALI's reference).
_TYPE_WORDS: Mapping[str, str] = {
    "int": "int",
    "float": "float",
    "bool": "bool",
    "str": "str",
    "int_vec": "int or list of int",
    "float_vec": "float or list of float",
    "bool_vec": "bool or list of bool",
    "str_vec": "str or list of str",
    "dtype": "DALIDataType",
    "dtype_vec": "DALIDataType or list of DALIDataType",
    "image_type": "DALIImageType",
    "interp_type": "DALIInterpType",
    "layout": "layout str",
    "layout_vec": "layout str or list of layout str",
    "int_or_int_vec": "int or list of int",
    "float_or_float_vec": "float or list of float",
    "any": "any",
    "callable": "callable",
}

# Argument values an `outputs` function is asked about, to name the arguments that choose the
# number of outputs (as `dali._graph.stubs` finds its overloads).
_PROBES: Mapping[str, tuple[Any, ...]] = {"bool": (False, True), "int": tuple(range(9))}

# Argument types whose values are `dali.types` enums (a default may be given by number).
_ENUMS = {"dtype": "DALIDataType", "image_type": "DALIImageType", "interp_type": "DALIInterpType"}

_DIRECTIVE = re.compile(r"^\.\. (\w+)::\s*(.*)$")
_BULLET = re.compile(r"^[-*] ")


# -- the registry, by namespace ---------------------------------------------------------------


def namespaces() -> dict[str, list[Schema]]:
    """The public operators by namespace (``""``: top level, ``"readers"``, ...), both sorted."""
    import dali.fn  # noqa: F401 - registers every operator
    from dali._graph.schema import all_schemas

    out: dict[str, list[Schema]] = {}
    for schema in all_schemas():
        if schema.fn_path.startswith("_"):
            continue
        out.setdefault(".".join(schema.module_path), []).append(schema)
    return {ns: sorted(out[ns], key=lambda s: s.fn_path) for ns in sorted(out)}


def page_name(namespace: str) -> str:
    """The file of a namespace's page: ``fn.md``, ``fn.readers.md``."""
    return ".".join(("fn", namespace) if namespace else ("fn",)) + ".md"


def anchor(fn_path: str) -> str:
    """The anchor of an operator's heading (``## fn.resize``), as MkDocs' ``toc`` makes it:
    the heading's word characters, lower-cased."""
    return re.sub(r"[^\w\s-]", "", f"fn.{fn_path}").strip().lower()


# -- Markdown ---------------------------------------------------------------------------------


def _code(text: str) -> str:
    """``text`` as one inline code span, whatever backticks it holds."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def _escape_prose(text: str, *, cell: bool) -> str:
    """Escape what Markdown would misread outside code spans: ``<`` (HTML) and, in a table
    cell, ``|`` (a column break; Python-Markdown keeps those inside code spans)."""
    out = []
    i = 0
    while i < len(text):
        run = re.match(r"`+", text[i:])
        if run:
            ticks = run.group(0)
            end = text.find(ticks, i + len(ticks))
            while end != -1 and text[end + len(ticks) : end + len(ticks) + 1] == "`":
                end = text.find(ticks, end + len(ticks) + 1)
            if end != -1:  # a code span: as it is
                out.append(text[i : end + len(ticks)])
                i = end + len(ticks)
                continue
            out.append(ticks.replace("`", "\\`"))  # an unmatched backtick: literal
            i += len(ticks)
            continue
        char = text[i]
        out.append("&lt;" if char == "<" else "\\|" if char == "|" and cell else char)
        i += 1
    return "".join(out)


def _cell(text: str) -> str:
    return _escape_prose(" ".join(text.split()), cell=True)


def _docstring(doc: str) -> list[str]:
    """A docstring as Markdown: prose kept, reST literal blocks (``::``) and indented blocks
    (doctests: ``pycon``) fenced, ``.. warning::`` directives quoted, bullet lists separated
    from the paragraph before them."""
    lines = [line.rstrip() for line in inspect.cleandoc(doc).splitlines()]
    out: list[str] = []
    in_list = False
    i = 0

    def indented_block() -> list[str]:
        nonlocal i
        block = []
        while i < len(lines) and (
            lines[i].startswith(" ")
            or (not lines[i].strip() and i + 1 < len(lines) and lines[i + 1].startswith(" "))
        ):
            block.append(lines[i])
            i += 1
        return textwrap.dedent("\n".join(block)).splitlines()

    def blank() -> None:
        if out and out[-1]:
            out.append("")

    while i < len(lines):
        line = lines[i]
        directive = _DIRECTIVE.match(line)
        if directive:
            i += 1
            body = " ".join([directive.group(2), *(x.strip() for x in indented_block())]).strip()
            blank()
            word = directive.group(1).capitalize()
            out += [f"> **{word}:** {_escape_prose(body, cell=False)}", ""]
            in_list = False
        elif line.startswith(" ") and not in_list:
            block = indented_block()
            lang = "pycon" if block[0].startswith(">>>") else "text"
            blank()
            out += [f"```{lang}", *block, "```", ""]
        elif not line.strip():
            blank()
            in_list = False
            i += 1
        else:
            if _BULLET.match(line) and not in_list:
                blank()
                in_list = True
            if line.endswith("::"):
                line = line[:-1].rstrip(" :") + (":" if line.strip() != "::" else "")
            if line:
                out.append(_escape_prose(line, cell=False))
            i += 1
    while out and not out[-1]:
        out.pop()
    return out


# -- one operator -----------------------------------------------------------------------------


def _input_names(schema: Schema) -> list[str]:
    """The call's positional inputs: the schema's names (apart from the argument names, as
    DALI writes ``shape_input``), ``input`` for a single one, else numbered; ``*inputs`` for a
    variable number, ``=None`` on optional ones."""
    names = list(schema.input_names)
    if len(names) < schema.max_inputs:
        if schema.max_inputs == 1:
            names = ["input"]
        else:
            names = [f"input_{i}" for i in range(schema.min_inputs)]
    params = []
    for i, name in enumerate(names[: schema.max_inputs]):
        while name in schema.args:
            name = f"_{name}" if "input" in name else f"{name}_input"
        params.append(name if i < schema.min_inputs else f"{name}=None")
    if schema.max_inputs > len(params):
        params.append("*inputs")
    return params


def signature(schema: Schema) -> str:
    """``fn.resize(input, /, **kwargs)``: inputs by name, then the required arguments."""
    from dali._graph.schema import REQUIRED

    positional = list(schema.extra.get("positional_args", ()))
    params = [] if positional else _input_names(schema)
    if params and not params[-1].startswith("*"):
        params.append("/")
    # An optional one before a required one has no default (it is given by position).
    last = max(
        (i for i, p in enumerate(positional) if schema.args[p].default is REQUIRED), default=-1
    )
    params += [p if i <= last else f"{p}=None" for i, p in enumerate(positional)]
    required = [
        a.name for a in schema.args.values() if a.default is REQUIRED and a.name not in positional
    ]
    if required:
        params += (["*"] if not any(p.startswith("*") for p in params) else []) + required
    params.append("**kwargs")
    return f"fn.{schema.fn_path}({', '.join(params)})"


def _default(arg: Arg) -> str:
    from dali._graph.schema import REQUIRED, UNSET

    if arg.default is REQUIRED:
        return "required"
    if arg.default is UNSET:
        return "—"

    enum_type = _ENUMS.get(arg.type)

    def word(value: Any) -> str:
        if enum_type is not None and type(value) is int:  # an enum given by its number
            value = getattr(__import__("dali.types").types, enum_type)(value)
        if isinstance(value, enum.Enum):
            return f"{type(value).__name__}.{value.name}"
        if isinstance(value, (list, tuple)):
            items = ", ".join(word(v) for v in value)
            return (
                f"[{items}]" if isinstance(value, list) else f"({items}{',' * (len(value) == 1)})"
            )
        return repr(value)

    return _code(word(arg.default))


def _count(schema: Schema, args: Mapping[str, Any], inputs: int | None = None) -> int | None:
    try:
        return schema.outputs_for(args, inputs)
    except Exception:  # noqa: BLE001 - a value the function rejects tells nothing
        return None


def outputs(schema: Schema) -> str:
    """How many outputs a call returns, and which arguments (or inputs) choose it."""
    if schema.extra.get("stub_result"):
        return f"{_code(schema.extra['stub_result'])}."
    if not callable(schema.num_outputs):
        return f"{schema.num_outputs}."
    absent = _count(schema, {})
    by = []
    for arg in sorted(schema.args.values(), key=lambda a: a.name):
        if arg.type in _PROBES and not arg.tensor:
            counts = {_count(schema, {arg.name: v}) for v in _PROBES[arg.type]} - {None}
            if counts - {absent}:
                by.append(_code(arg.name))
    if schema.extra.get("outputs_by_inputs"):
        inputs = {_count(schema, {}, n) for n in range(schema.min_inputs, schema.max_inputs + 1)}
        if len(inputs - {None}) > 1:
            by.append("the number of inputs")
    text = f"{absent} by default" if absent is not None else "chosen by the arguments"
    return f"{text}; set by {', '.join(by)}." if by else f"{text}."


def _summary(schema: Schema) -> str:
    """The docstring's first paragraph, on one line."""
    return " ".join(inspect.cleandoc(schema.doc).split("\n\n")[0].split())


def operator(schema: Schema, deprecated: Sequence[str] = ()) -> list[str]:
    """The entry of one operator: heading, call, facts, docstring, arguments."""
    ops_path = ".".join(("ops", *schema.module_path, schema.class_name))
    backends = ", ".join(_DEVICE_WORDS[d] for d in schema.devices)
    lines = [
        f"## fn.{schema.fn_path}",
        "",
        "```python",
        signature(schema),
        "```",
        "",
        f"- **ops class:** {_code(ops_path)}",
        f"- **backends:** {backends}",
        f"- **inputs:** {_inputs_text(schema)}",
        f"- **outputs:** {outputs(schema)}",
    ]
    if deprecated:
        lines.append(
            "- **deprecated NVIDIA DALI names:** " + ", ".join(_code(d) for d in deprecated)
        )
    lines += [
        "",
        *_docstring(schema.doc),
        "",
        "**Arguments**",
        "",
        "| argument | type | default | per-sample | doc |",
    ]
    lines.append("|---|---|---|---|---|")
    for arg in sorted(schema.args.values(), key=lambda a: a.name):
        lines.append(
            f"| {_code(arg.name)} | {_TYPE_WORDS[arg.type]} | {_default(arg)} | "
            f"{'yes' if arg.tensor else 'no'} | {_cell(arg.doc)} |"
        )
    lines.append("")
    return lines


def _inputs_text(schema: Schema) -> str:
    lo, hi = schema.min_inputs, schema.max_inputs
    if schema.extra.get("positional_args"):
        return (
            "none ("
            + ", ".join(_code(a) for a in schema.extra["positional_args"])
            + " may be given by position)"
        )
    count = f"{lo}" if lo == hi else f"{lo} to {hi}"
    return "none" if hi == 0 else count


# -- the pages --------------------------------------------------------------------------------


def _deprecated_names() -> dict[str, list[str]]:
    """fn path -> DALI's deprecated names that call it (``fn.image_decoder``, ``ops.FileReader``)."""
    from dali._graph.api import aliases

    out: dict[str, list[str]] = {}
    for api in ("fn", "ops"):
        for old, schema in aliases(api):
            out.setdefault(schema.fn_path, []).append(f"{api}.{old}")
    return out


def _header(title: str, intro: Sequence[str]) -> list[str]:
    return [
        f"# {title}",
        "",
        f"Generated by `{REGENERATE}` from the operator registry; do not edit.",
        *intro,
        "",
    ]


def pages() -> dict[str, str]:
    """Every page's text by file name (``index.md``, ``fn.md``, ``fn.readers.md``, ...)."""
    by_namespace = namespaces()
    deprecated = _deprecated_names()
    out: dict[str, str] = {}
    for ns, schemas in by_namespace.items():
        title = ".".join(("fn", ns) if ns else ("fn",))
        lines = _header(
            f"`{title}`",
            [
                f"{len(schemas)} operators of `dali.{title}` (`dali.ops` has each as a class).",
                "An argument that is per-sample also takes a `DataNode`: one value per sample.",
            ],
        )
        for schema in schemas:
            lines += operator(schema, deprecated.get(schema.fn_path, ()))
        out[page_name(ns)] = "\n".join(lines)
    out["index.md"] = _index(by_namespace)
    return out


def _index(by_namespace: Mapping[str, Sequence[Schema]]) -> str:
    from dali._graph.api import aliases, deprecation

    total = sum(len(s) for s in by_namespace.values())
    lines = _header(
        "API reference",
        [
            f"The {total} operators of `dali.fn` (and their `dali.ops` classes), a page per",
            "namespace: each operator's call, backends, outputs and arguments. What NVIDIA DALI",
            "2.4 has that this library lacks: [Compatibility](../compatibility.md).",
            "",
            "| namespace | operators |",
            "|---|---|",
            *(
                f"| [`{page_name(ns)[:-3]}`]({page_name(ns)}) | {len(s)} |"
                for ns, s in by_namespace.items()
            ),
            "",
            "## Operators",
            "",
            "| operator | backends | summary |",
            "|---|---|---|",
        ],
    )
    schemas = sorted((s for ss in by_namespace.values() for s in ss), key=lambda s: s.fn_path)
    for schema in schemas:
        link = f"{page_name('.'.join(schema.module_path))}#{anchor(schema.fn_path)}"
        backends = ", ".join(_DEVICE_WORDS[d] for d in schema.devices)
        lines.append(
            f"| [`fn.{schema.fn_path}`]({link}) | {backends} | {_cell(_summary(schema))} |"
        )
    lines += [
        "",
        "## Deprecated names",
        "",
        "NVIDIA DALI's deprecated names call the operator they name, with DALI's warning.",
        "",
        "| name | instead |",
        "|---|---|",
    ]
    for api in ("fn", "ops"):
        for old, schema in aliases(api):
            if schema.fn_path.startswith("_"):
                instead = _cell(deprecation(api, old, schema).split("\n", 1)[1])
            else:
                link = f"{page_name('.'.join(schema.module_path))}#{anchor(schema.fn_path)}"
                instead = f"[`fn.{schema.fn_path}`]({link})"
            lines.append(f"| `{api}.{old}` | {instead} |")
    lines.append("")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    """Write the pages (``--check``: exit 1 if the committed ones differ instead)."""
    parser = argparse.ArgumentParser(
        prog=REGENERATE, description="Writes docs/reference/ from the operator registry."
    )
    parser.add_argument("--root", default=".", help="the repository root")
    parser.add_argument("--check", action="store_true", help="only check the committed pages")
    args = parser.parse_args(argv)
    folder = Path(args.root) / PAGES
    texts = pages()
    if args.check:
        present = {p.name for p in folder.glob("*.md")} if folder.is_dir() else set()
        stale = sorted(
            name
            for name in present | texts.keys()
            if name not in texts
            or name not in present
            or (folder / name).read_text() != texts[name]
        )
        if stale:
            print(
                f"{folder} is out of date ({', '.join(stale)}): run {REGENERATE}", file=sys.stderr
            )
            return 1
        return 0
    folder.mkdir(parents=True, exist_ok=True)
    for path in sorted(folder.glob("*.md")):
        if path.name not in texts:
            path.unlink()
    for name, text in sorted(texts.items()):
        (folder / name).write_text(text)
    print(f"wrote {len(texts)} pages to {folder}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

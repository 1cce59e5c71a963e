"""The author API (`dali.author`): its names, an operator written with it alone, the batch
methods' contract, and the rules that keep plugins and operators on it."""

from __future__ import annotations

import ast
import doctest
import pathlib

import dali.author
import numpy as np
import pytest
from dali import fn
from dali.author import (
    Arg,
    Operator,
    TensorCPU,
    TensorListCPU,
    TensorListGPU,
    call_operator,
    get_schema,
    register,
)
from dali.pipeline import pipeline_def
from parity import cpu_gpu, device_id, to_device

_SRC = pathlib.Path(__file__).resolve().parents[2] / "packages"
_CORE = _SRC / "core" / "src" / "dali"
_JAX = _SRC / "plugin-jax" / "src" / "dali"
_CLU = _SRC / "plugin-clu" / "src" / "dali" / "plugin" / "jax" / "clu"
_TORCH = _SRC / "plugin-torch" / "src" / "dali" / "plugin" / "pytorch"
_TF = _SRC / "plugin-tf" / "src" / "dali" / "plugin" / "tf"

#: The storage and internal methods of the batch and sample classes: only `dali._tensors` may
#: touch them (the author API is their public face).
_TENSOR_PRIVATE = frozenset(
    {
        "_array",
        "_as_gpu",
        "_contiguous_flat",
        "_dense",
        "_dense_arr",
        "_derived",
        "_device",
        "_event",
        "_flat_buf",
        "_flat_shapes",
        "_host_samples",
        "_lazy_shapes",
        "_layout",
        "_make",
        "_make_flat",
        "_ndim",
        "_np_dtype",
        "_sample_list",
        "_sample_tensor",
        "_samples",
        "_slist",
        "_source_info",
        "_tensor_type",
        "_wrap",
        "_xp",
    }
)

#: Underscore names that cross modules on purpose: DALI's own public name of the iterator base.
_CROSS_MODULE_ALLOWED = {
    ("dali.plugin._iterator_core", "_DaliBaseIterator"),
}


def test_names_and_order():
    assert dali.author.__all__ == sorted(dali.author.__all__)
    expected = {
        "REQUIRED",
        "Arg",
        "BaseIterator",
        "BatchMeta",
        "CheckpointError",
        "ExternalSourceInfo",
        "LastBatchPolicy",
        "Operator",
        "OperatorError",
        "PythonFunction",
        "PythonSource",
        "SampleFailure",
        "SerializationError",
        "TensorCPU",
        "TensorGPU",
        "TensorListCPU",
        "TensorListGPU",
        "Workspace",
        "call_operator",
        "external_sources",
        "get_schema",
        "register",
        "require_framework",
    }
    assert set(dali.author.__all__) == expected
    for name in expected:
        assert getattr(dali.author, name) is not None
    from dali.plugin.base_iterator import _DaliBaseIterator

    assert dali.author.BaseIterator is _DaliBaseIterator  # DALI's name stays
    assert dali.author.TensorListCPU is dali.tensors.TensorListCPU


# -- an operator written with the author API alone ----------------------------------------------


@register(
    "_test_author.scale",
    devices=("cpu", "gpu"),
    args=[Arg("factor", "float", default=2.0)],
    display_name="test_author.scale",
)
class _Scale(Operator):
    """Multiplies every sample by ``factor`` (dense batches in one operation)."""

    def run_cpu(self, ws):
        tl = ws.inputs[0]
        factor = tl.np_dtype.type(self.arg("factor"))
        dense = tl.dense()
        if dense is not None:
            return type(tl).wrap(dense * factor, tl.layout(), tl.source_infos)
        out = [s * factor for s in tl.samples()]
        return type(tl).wrap(out, tl.layout(), dtype=tl.np_dtype, ndim=tl.sample_ndim)

    run_gpu = run_cpu


def _scale(x, factor=None):
    return call_operator(get_schema("_test_author.scale"), (x,), {"factor": factor})


def _samples(shapes):
    return [np.arange(np.prod(s), dtype=np.int32).reshape(s) for s in shapes]


_SHAPES = {"uniform": [(2, 3), (2, 3)], "ragged": [(2, 3), (1, 3)]}


def _run_scale(shapes, device):
    @pipeline_def(batch_size=len(shapes), num_threads=1, device_id=device_id(device))
    def pipe():
        data = fn.external_source(lambda: _samples(shapes), layout="HW")
        return _scale(to_device(data, device), factor=3)

    return pipe().run()


@pytest.mark.parametrize("kind", sorted(_SHAPES))
def test_operator_on_cpu(kind):
    (out,) = _run_scale(_SHAPES[kind], "cpu")
    assert isinstance(out, TensorListCPU) and out.layout() == "HW"
    for got, want in zip(out.samples(), _samples(_SHAPES[kind])):
        np.testing.assert_array_equal(got, want * 3)
    assert out.np_dtype == np.int32


@pytest.mark.parametrize("kind", sorted(_SHAPES))
@cpu_gpu()
def test_operator_cpu_gpu(kind, device):
    return _run_scale(_SHAPES[kind], device)


# -- the batch methods ----------------------------------------------------------------------


def test_wrap_dense_is_held_as_is():
    arr = np.arange(12, dtype=np.uint8).reshape(2, 2, 3)
    tl = TensorListCPU.wrap(arr, "HW", ["a", "b"])
    assert tl.held_dense is arr and tl.dense() is arr  # no copy
    assert tl.np_dtype == np.uint8 and tl.sample_ndim == 2 and type(tl.sample_ndim) is int
    assert tl.layout() == "HW" and tl.source_infos == ["a", "b"]
    samples = tl.samples()
    assert all(np.shares_memory(s, arr) for s in samples)  # views
    assert tl.samples() is samples  # made once
    assert tl[1].source_info() == "b"
    assert tl.flat() is None
    assert tl.derived is None


def test_wrap_list_ragged_and_uniform():
    a, b = np.zeros((2, 3), np.float32), np.ones((1, 3), np.float32)
    ragged = TensorListCPU.wrap([a, b])
    assert ragged.held_dense is None and ragged.dense() is None
    assert ragged.samples()[0] is a and ragged.samples()[1] is b  # as given
    assert ragged.shape() == [(2, 3), (1, 3)]

    c = np.ones((2, 3), np.float32)
    uniform = TensorListCPU.wrap((a, c))
    assert uniform.held_dense is None  # `held_dense` never stacks
    dense = uniform.dense()  # `dense` does, once
    assert dense.shape == (2, 2, 3) and uniform.held_dense is dense
    assert all(np.shares_memory(s, dense) for s in uniform.samples())


def test_wrap_empty_list_takes_dtype_and_ndim():
    tl = TensorListCPU.wrap([], "HWC", dtype=np.uint8, ndim=3)
    assert len(tl) == 0 and tl.np_dtype == np.uint8 and tl.sample_ndim == 3
    assert TensorListCPU.wrap([]).np_dtype == np.float32


def test_wrap_flat_makes_views_when_asked():
    flat = np.arange(9, dtype=np.int16)
    tl = TensorListCPU.wrap_flat(flat, [(2, 3), (1, 3)], "HW")
    buf, shapes = tl.flat()
    assert buf is flat and shapes == [(2, 3), (1, 3)]
    assert tl.sample_ndim == 2 and tl.dense() is None
    first, second = tl.samples()
    assert np.shares_memory(first, flat) and second.tolist() == [[6, 7, 8]]
    assert TensorListCPU.wrap_flat(np.zeros(0, np.uint8), [], ndim=3).sample_ndim == 3


def test_source_infos_and_derived_are_settable():
    tl = TensorListCPU.wrap(np.zeros((2, 1)))
    assert tl.source_infos is None
    tl.source_infos = ["x", "y"]
    assert [t.source_info() for t in tl] == ["x", "y"]
    tl.derived = {"jpeg_header_rows": 1}
    assert tl.derived == {"jpeg_header_rows": 1}


def test_tensor_wrap_and_array():
    arr = np.ones((2, 2), np.float32)
    t = TensorCPU.wrap(arr, "HW", "file.jpg")
    assert t.array is arr and t.layout() == "HW" and t.source_info() == "file.jpg"


@pytest.mark.gpu
def test_gpu_batch_methods():
    import cupy

    host = TensorListCPU.wrap([np.zeros((2, 3), np.uint8), np.ones((1, 3), np.uint8)], "HW")
    gpu = host.to_gpu()
    assert isinstance(gpu, TensorListGPU) and gpu.layout() == "HW"
    assert all(isinstance(s, cupy.ndarray) for s in gpu.samples())
    assert gpu.ready_event is None
    event = cupy.cuda.Event()
    gpu.ready_event = event
    assert gpu.ready_event is event and gpu[0].ready_event is event
    dense = TensorListGPU.wrap(cupy.zeros((2, 4), cupy.float32))
    assert dense.held_dense is dense.dense() and dense.sample_ndim == 1
    assert TensorCPU.wrap(np.ones(3, np.int32)).to_gpu().array.get().tolist() == [1, 1, 1]


# -- the rules ------------------------------------------------------------------------------


def _modules(root):
    for path in sorted(root.rglob("*.py")):
        yield path, ast.parse(path.read_text(), str(path))


def _module_name(path):
    rel = path.relative_to(path.parents[len(path.relative_to(_SRC).parts) - 3])
    return ".".join(rel.with_suffix("").parts).removesuffix(".__init__")


def _doctest_trees(tree):
    """The doctest examples of every docstring in ``tree``, each parsed."""
    nodes = [tree, *ast.walk(tree)]
    parser = doctest.DocTestParser()
    for node in nodes:
        if not isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        doc = ast.get_docstring(node)
        for example in parser.get_examples(doc or ""):
            try:
                yield ast.parse(example.source)
            except SyntaxError:
                continue


def _namedtuple_make(node):
    """``Row._make``: namedtuple's public constructor, on a class that is not a batch."""
    value = node.value
    return (
        node.attr == "_make"
        and isinstance(value, ast.Name)
        and value.id[:1].isupper()
        and "TensorList" not in value.id
    )


def _private_tensor_uses(tree):
    """``x._name`` (x not self) and ``getattr(x, "_name")`` for the batches' private names."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr in _TENSOR_PRIVATE:
            on_self = isinstance(node.value, ast.Name) and node.value.id == "self"
            if not on_self and not _namedtuple_make(node):
                yield node.lineno, node.attr
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id in ("getattr", "hasattr", "setattr")
            and len(node.args) >= 2
            and isinstance(node.args[1], ast.Constant)
            and node.args[1].value in _TENSOR_PRIVATE
        ):
            yield node.lineno, node.args[1].value
        elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("dali._tensors"):
            for alias in node.names:
                if alias.name.startswith("_"):
                    yield node.lineno, alias.name


def test_only_tensors_touches_batch_internals():
    found = []
    for root in (_CORE, _JAX, _TORCH, _TF):
        for path, tree in _modules(root):
            if "_tensors" in path.relative_to(root).parts:
                continue
            for sub in (tree, *_doctest_trees(tree)):
                found += [
                    f"{path.relative_to(_SRC)}:{ln}: .{name}"
                    for ln, name in _private_tensor_uses(sub)
                ]
    assert not found, "use the author API (dali.author) instead:\n" + "\n".join(found)


def test_plugin_jax_imports_only_public_modules():
    found = []
    for path, tree in _modules(_JAX):
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                if node.module.startswith("dali.plugin.jax"):
                    continue  # its own modules
                names = [node.module] + [
                    f"{node.module}.{a.name}" for a in node.names if a.name.startswith("_")
                ]
            else:
                continue
            for name in names:
                if (
                    name == "dali._"
                    or name.startswith("dali._")
                    or "._" in name.removeprefix("dali.")
                ):
                    found.append(f"{path.relative_to(_SRC)}:{node.lineno}: {name}")
    assert not found, "dali-jax must use dali.author and the public modules:\n" + "\n".join(found)


def _dali_imports(tree):
    """``(line, module, names)`` of every absolute import of a ``dali`` module in ``tree``
    (for ``import a.b``: the module ``a.b`` and no names)."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] == "dali":
                    yield node.lineno, alias.name, []
        elif (
            isinstance(node, ast.ImportFrom)
            and node.level == 0
            and (node.module or "").split(".")[0] == "dali"
        ):
            yield node.lineno, str(node.module), [a.name for a in node.names]


@pytest.mark.parametrize(
    ("own", "root"),
    [("dali.plugin.jax.clu", _CLU), ("dali.plugin.pytorch", _TORCH), ("dali.plugin.tf", _TF)],
)
def test_plugin_imports_no_private_module_of_another_distribution(own, root):
    """dali-clu builds on dali-core and dali-jax through their public modules (`dali.author`,
    `dali.plugin.jax.iterator`, ...), dali-torch on dali-core's: no ``dali._*``, no
    ``dali.plugin.jax._*``, no underscore name out of them; the plugin's own ``_*`` modules
    are its own."""
    modules = list(_modules(root))
    assert modules, f"no sources of {own} under {root}"
    found = []
    for path, tree in modules:
        for line, module, names in _dali_imports(tree):
            if module == own or module.startswith(own + "."):
                continue
            private = [module] if any(p.startswith("_") for p in module.split(".")) else []
            private += [f"{module}.{n}" for n in names if n.startswith("_")]
            found += [f"{path.relative_to(_SRC)}:{line}: {name}" for name in private]
    assert not found, f"{own} must use the public modules of dali:\n" + "\n".join(found)


def test_no_underscore_names_imported_across_modules():
    """An underscore *module* may be imported by its family; an underscore *name* stays in its
    module (a name another module needs is public there)."""
    found = []
    for root in (_CORE, _JAX):
        for path, tree in _modules(root):
            here = _module_name(path)
            for node in ast.walk(tree):
                if not (isinstance(node, ast.ImportFrom) and node.module and node.level == 0):
                    continue
                if not node.module.startswith("dali"):
                    continue
                same_package = here.rsplit(".", 1)[0] == node.module.rsplit(".", 1)[0]
                for alias in node.names:
                    name = alias.name
                    if not name.startswith("_") or name.startswith("__"):
                        continue
                    if (node.module, name) in _CROSS_MODULE_ALLOWED:
                        continue
                    target = _CORE.parent.joinpath(*node.module.split("."), name)
                    if target.with_suffix(".py").exists() or target.is_dir():
                        continue  # a module of the package
                    if same_package and here.startswith("dali._tensors"):
                        continue  # the batch package's own modules
                    found.append(f"{path.relative_to(_SRC)}:{node.lineno}: {node.module}.{name}")
    assert not found, "make these names public in their modules:\n" + "\n".join(found)

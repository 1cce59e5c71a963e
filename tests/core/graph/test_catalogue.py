"""NVIDIA DALI's operator names (`dali._graph.catalogue`): what `dali.fn` and `dali.ops` answer
for the names they do not implement, and DALI's deprecated names of the ones they do."""

from __future__ import annotations

import inspect
import warnings
from pathlib import Path

import dali
import numpy as np
import pytest
from dali import fn, ops
from dali._graph import api as api_module
from dali._graph import catalogue
from dali._graph.api import aliases
from dali._graph.schema import all_schemas


def _public(api: str) -> set[str]:
    paths = set()
    for s in all_schemas():
        if s.fn_path.startswith("_"):
            continue
        paths.add(s.fn_path if api == "fn" else ".".join((*s.module_path, s.class_name)))
    return paths


def _lookup(root: object, path: str) -> object:
    obj = root
    for part in path.split("."):
        obj = getattr(obj, part)
    return obj


@pytest.mark.parametrize("api", ["fn", "ops"])
def test_every_operator_here_is_one_of_dalis(api: str) -> None:
    # (DALI's deprecated operators of their own, readers.sequence, are DALI's too)
    if api == "fn":
        assert _public(api) <= catalogue.DALI_FN | catalogue.DEPRECATED_FN
    else:
        assert _public(api) <= catalogue.DALI_OPS | catalogue.DEPRECATED_OPS


def _missing(api: str) -> list[str]:
    here = _public(api) | {old for old, _ in aliases(api)}
    return sorted(catalogue.dali_names(api) - here)


@pytest.mark.parametrize("path", _missing("fn"))
def test_a_dali_fn_operator_not_here_says_so(path: str) -> None:
    # (DALI's deprecated ssd_random_crop, which NVIDIA DALI 2.4 still lists)
    with pytest.raises(catalogue.OperatorNotImplementedError) as e:
        _lookup(fn, path)
    assert str(e.value).startswith(
        f"`dali.fn.{path}` is an NVIDIA DALI operator not implemented in dali yet"
    )
    assert isinstance(e.value, AttributeError)  # `hasattr` and `getattr(..., default)` work
    parent, _, name = path.rpartition(".")
    assert not hasattr(_lookup(fn, parent) if parent else fn, name)


@pytest.mark.parametrize("path", _missing("ops"))
def test_a_dali_ops_class_not_here_says_so(path: str) -> None:
    with pytest.raises(catalogue.OperatorNotImplementedError, match=rf"`dali\.ops\.{path}` is"):
        _lookup(ops, path)


def test_a_dali_operator_not_here_says_so(monkeypatch: pytest.MonkeyPatch) -> None:
    # an operator that a later catalogue adds, at the top level and in a namespace, and DALI's
    # old name of it, answer as DALI's name, as AttributeErrors (`hasattr` and `getattr(...,
    # default)` work)
    names = frozenset({"readers.future", "readers.Future", "future_reader", "FutureReader"})
    monkeypatch.setattr(catalogue, "dali_names", lambda api: names)
    for api, where, name in (
        ("fn", ("readers",), "future"),
        ("ops", ("readers",), "Future"),
        ("fn", (), "future_reader"),
        ("ops", (), "FutureReader"),
    ):
        path = ".".join((*where, name))
        with pytest.raises(catalogue.OperatorNotImplementedError) as e:
            api_module._missing(api, where)(name)
        assert str(e.value).startswith(
            f"`dali.{api}.{path}` is an NVIDIA DALI operator not implemented in dali yet"
        )
        assert isinstance(e.value, AttributeError)


def test_the_missing_names_cover_dalis_catalogue() -> None:
    """Every one of DALI's 136 operators is either here or reported as missing."""
    assert len(catalogue.DALI_FN) == 136
    assert len(_missing("fn")) + len(_public("fn") & catalogue.DALI_FN) >= 136


def test_a_name_dali_does_not_have_is_a_plain_attribute_error() -> None:
    for root, name in ((fn, "no_such_operator"), (ops, "NoSuchOperator"), (fn.readers, "nope")):
        with pytest.raises(AttributeError) as e:
            getattr(root, name)
        assert not isinstance(e.value, catalogue.OperatorNotImplementedError)
        assert f"has no attribute '{name}'" in str(e.value)


def test_dalis_namespaces_missing_here_are_modules_that_say_so(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # every namespace of DALI 2.4 exists here; one that a catalogue adds answers as DALI's name
    monkeypatch.setattr(catalogue, "dali_names", lambda api: frozenset({"future.op"}))
    lookup = api_module._missing("fn", ())
    future = lookup("future")
    assert lookup("future") is future and future.__all__ == []
    with pytest.raises(catalogue.OperatorNotImplementedError, match=r"fn\.future\.op"):
        future.op  # noqa: B018
    with pytest.raises(AttributeError, match="has no attribute 'nope'"):
        future.nope  # noqa: B018


@pytest.mark.parametrize("api", ["fn", "ops"])
def test_every_deprecated_name_warns_as_dali_does_and_is_its_operator(api: str) -> None:
    root = fn if api == "fn" else ops
    found = aliases(api)
    assert len(found) >= 15
    for old, schema in found:
        obj = _lookup(root, old)
        successor = (
            "\nUse `DataNode.shape()` instead."
            if schema.fn_path.startswith("_")
            else f" Use `dali.fn.{schema.fn_path}` instead."
        )
        expected = f"WARNING: `dali.{api}.{old}` is now deprecated.{successor}"
        if api == "fn":
            assert list(inspect.signature(obj).parameters) == ["inputs", *schema.args]
            with pytest.warns(DeprecationWarning) as record, pytest.raises(Exception):  # noqa: B017
                obj(bad_argument=1)  # the warning comes first, then the call fails
        else:
            with pytest.warns(DeprecationWarning) as record:
                obj()
        assert str(record[0].message) == expected, old


def test_deprecated_names_give_their_operators_batches(image_tree: Path) -> None:
    def run(new: bool) -> list[np.ndarray]:
        pipe = dali.Pipeline(batch_size=3, num_threads=1, device_id=None, seed=11)
        with pipe, warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            if new:
                jpegs, labels = fn.readers.file(file_root=str(image_tree))
                images = fn.decoders.image(jpegs)
                values = fn.random.uniform(range=(0, 1)), fn.random.coin_flip()
                shape = images.shape()
            else:
                jpegs, labels = fn.file_reader(file_root=str(image_tree))
                images = fn.image_decoder(jpegs)
                values = fn.uniform(range=(0, 1)), fn.coin_flip()
                shape = fn.shapes(images)
            pipe.set_outputs(images, labels, *values, shape)
        out = [np.concatenate([np.ravel(s) for s in tl]) for tl in pipe.run()]
        pipe.close()
        return out

    for a, b in zip(run(True), run(False)):
        np.testing.assert_array_equal(a, b)


def test_the_catalogue_is_nvidia_dalis() -> None:
    """Where NVIDIA DALI is installed (the conformance environment): its public names."""
    real = pytest.importorskip("nvidia.dali")
    import types

    from nvidia.dali import backend

    def walk(mod: object, prefix: str, root: str, keep: object) -> dict[str, str]:
        out = {}
        for name in dir(mod):
            value = getattr(mod, name, None)
            if name.startswith("_") or value is None:
                continue
            if isinstance(value, types.ModuleType):
                if value.__name__.startswith(root) and "hidden" not in name:
                    out.update(walk(value, f"{prefix}{name}.", root, keep))
            elif keep(value):
                schema = getattr(value, "_schema_name", None) or getattr(value, "schema_name", None)
                if schema:
                    out[prefix + name] = schema
        return out

    def public(table: dict[str, str]) -> set[str]:
        return {k for k, s in table.items() if not backend.GetSchema(s).IsDeprecated()}

    fns = walk(real.fn, "", "nvidia.dali.fn", callable)
    classes = walk(real.ops, "", "nvidia.dali.ops", lambda v: isinstance(v, type))
    assert public(fns) == catalogue.DALI_FN
    assert public(classes) | {"ExternalSource"} == catalogue.DALI_OPS
    deprecated = set(fns) - public(fns)
    assert deprecated == set(catalogue.FN_ALIASES) | catalogue.DEPRECATED_FN

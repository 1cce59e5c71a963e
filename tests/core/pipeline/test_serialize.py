"""Pipeline.serialize / Pipeline.deserialize: the document, errors, and a round trip of every
conformance pipeline (their external sources fed with ``feed_input``, so no Python callback)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import dali
import numpy as np
import pytest
from dali import Pipeline, fn, pipeline_def, types
from dali._graph.serialize import SerializationError

CONFORMANCE = Path(__file__).resolve().parents[2] / "conformance"


def double(x):
    """A module-level function: serializable by reference."""
    return x * 2


def batch_of(info):
    """A module-level batch callback of an external source (BatchInfo: iteration, epoch)."""
    return [np.full((2,), info.iteration * 10 + k, np.int32) for k in range(3)]


def samples_forever():
    """A module-level generator function of an external source (a batch per step)."""
    k = 0
    while True:
        yield [np.array([k, -k], np.int64)] * 3
        k += 1


def _simple(**kw):
    @pipeline_def(batch_size=3, num_threads=1, device_id=None, seed=11, **kw)
    def pipe():
        x = fn.random.uniform(range=(0, 10), shape=[4], name="u")
        y = fn.cast(x, dtype=types.INT16) + 1
        z = fn.python_function(x, function=double, name="py")
        return y, z, fn.random.coin_flip(probability=0.25)

    return pipe()


def _same(a, b, iters=3):
    for _ in range(iters):
        for x, y in zip(a.run(), b.run()):
            assert x.layout() == y.layout() and x.dtype == y.dtype
            for s, t in zip(x.as_cpu().samples(), y.as_cpu().samples()):
                np.testing.assert_array_equal(np.asarray(s), np.asarray(t))


def test_round_trip_gives_the_same_batches_and_keeps_settings(tmp_path):
    original = _simple(prefetch_queue_depth=3)
    data = original.serialize(filename=tmp_path / "p.json")
    assert (tmp_path / "p.json").read_bytes() == data
    doc = json.loads(data)
    assert doc["format"] == "dali.pipeline" and doc["version"] == 1
    assert doc["settings"]["batch_size"] == 3 and doc["settings"]["seed"] == 11
    py = next(op for op in doc["operators"] if op["name"] == "py")
    assert py["args"]["function"] == {"callable": f"{__name__}:double"}
    twin = Pipeline.deserialize(filename=tmp_path / "p.json")
    assert twin.max_batch_size == 3 and twin.prefetch_queue_depth == 3
    _same(_simple(prefetch_queue_depth=3), twin)


def test_keyword_arguments_override_the_settings():
    twin = Pipeline.deserialize(_simple().serialize(), batch_size=2, seed=5)
    assert twin.max_batch_size == 2 and twin.seed == 5
    assert [len(o) for o in twin.run()] == [2, 2, 2]


def test_a_random_seed_is_kept():
    """A pipeline without a seed draws with a random one: the document keeps that one."""

    @pipeline_def(batch_size=2, num_threads=1, device_id=None)
    def pipe():
        return fn.random.normal(shape=[3])

    p = pipe()
    _same(p, Pipeline.deserialize(p.serialize()), iters=1)


def test_lambda_and_closure_are_refused_naming_the_operator():
    def local(x):
        return x

    for function in (lambda x: x, local):

        @pipeline_def(batch_size=2, num_threads=1, device_id=None)
        def pipe(function=function):
            return fn.python_function(fn.random.uniform(shape=[2]), function=function, name="f")

        with pytest.raises(SerializationError, match=r"\(f\), argument `function`.*lambda"):
            pipe().serialize()


def test_external_source_without_a_callback_is_fed_after_deserialize():
    @pipeline_def(batch_size=2, num_threads=1, device_id=None, exec_pipelined=False)
    def pipe():
        return fn.external_source(name="x", dtype=types.FLOAT) * 3

    twin = Pipeline.deserialize(pipe().serialize())
    twin.feed_input("x", [np.ones((2,), np.float32), np.zeros((1,), np.float32)])
    (out,) = twin.run()
    assert [s.tolist() for s in out.as_cpu().samples()] == [[3.0, 3.0], [0.0]]


def test_external_sources_with_a_module_level_callback_round_trip():
    @pipeline_def(batch_size=3, num_threads=1, device_id=None, seed=4)
    def pipe():
        a = fn.external_source(source=batch_of, batch_info=True, name="a")
        b = fn.external_source(source=samples_forever, name="b")
        return a + 1, b

    doc = json.loads(pipe().serialize())
    a = next(op for op in doc["operators"] if op["name"] == "a")
    assert a["args"]["source"] == {"source": {"callable": f"{__name__}:batch_of"}, "cycle": None}
    _same(pipe(), Pipeline.deserialize(pipe().serialize()), iters=4)


def test_an_iterable_source_is_refused_naming_the_operator():
    @pipeline_def(batch_size=2, num_threads=1, device_id=None)
    def pipe():
        return fn.external_source(source=[[np.zeros(2)] * 2], cycle=True, name="it")

    with pytest.raises(SerializationError, match=r"\(it\), argument `source`.*an iterable"):
        pipe().serialize()


def test_conditionals_round_trip():
    @pipeline_def(batch_size=6, num_threads=1, device_id=None, seed=2, enable_conditionals=True)
    def pipe():
        x = fn.random.uniform(range=(0, 1), shape=[2])
        if x[0] > 0.5:
            y = x * 10
        else:
            y = fn.random.normal(shape=[2])
        return y

    _same(pipe(), Pipeline.deserialize(pipe().serialize()))


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"\x08\x01\x12\x04name", "NVIDIA DALI pipeline serialized to protobuf"),
        (b'{"format": "dali.pipeline", "version": 99}', "format version 99.*upgrade"),
        (b'{"format": "other"}', "not a serialized dali pipeline"),
        (b"{oops", "not a serialized dali pipeline"),
    ],
)
def test_bad_documents(data, message):
    with pytest.raises(SerializationError, match=message):
        Pipeline.deserialize(data)


def test_unknown_operator_or_callable():
    doc = json.loads(_simple().serialize())
    doc["operators"][0]["fn"] = "no.such_operator"
    with pytest.raises(SerializationError, match=r"unknown operator fn\.no\.such_operator"):
        Pipeline.deserialize(json.dumps(doc).encode())
    doc = json.loads(_simple().serialize())
    py = next(op for op in doc["operators"] if op["name"] == "py")
    py["args"]["function"] = {"callable": "no_such_module:f"}
    with pytest.raises(SerializationError, match="'no_such_module:f' cannot be imported"):
        Pipeline.deserialize(json.dumps(doc).encode())


def test_values_round_trip():
    from dali._graph.serialize import decode_value, encode_value

    values = [
        None,
        True,
        3,
        -2.5,
        float("nan"),
        float("inf"),
        "HWC",
        [1, [2, 3.5]],
        (1, 2),
        {"cpu_size": 2, "gpu_size": 3},
        types.FLOAT,
        types.INTERP_CUBIC,
        types.YCbCr,
        np.arange(6, dtype=np.float32).reshape(2, 3),
        np.int64(7),
        b"\x00\xffab",
        double,
    ]
    for v in values:
        back = decode_value(json.loads(json.dumps(encode_value(v, "v"))), "v")
        if isinstance(v, np.ndarray):
            assert back.dtype == v.dtype and np.array_equal(back, v)
        elif isinstance(v, float) and np.isnan(v):
            assert np.isnan(back)
        else:
            assert back == v and type(back) is type(v if not isinstance(v, np.integer) else 0)


# -- every conformance pipeline ----------------------------------------------------------------


def _conformance():
    sys.path.insert(0, str(CONFORMANCE))
    try:
        import cases

        for topic in sorted(CONFORMANCE.glob("cases_*.py")):
            __import__(topic.stem)
    finally:
        sys.path.remove(str(CONFORMANCE))
    return cases


def _build(cases, case, ctx):
    """The case's pipeline as run.py builds it, every `Ext` an external_source fed by name."""
    pipe = Pipeline(
        batch_size=case.batch_size or ctx.batch_size_of(case),
        num_threads=2,
        device_id=None,
        seed=case.seed,
        exec_pipelined=False,
    )
    feeds = {}
    with pipe:
        nodes = []
        for k, spec in enumerate(case.inputs):
            if isinstance(spec, cases.Ext):
                name = f"__ext{k}"
                feeds[name] = ctx.batches(spec)
                kw = {"layout": spec.layout} if spec.layout else {}
                nodes.append(fn.external_source(name=name, **kw))
            else:
                nodes.append(spec.node(fn, types, ctx))
        out = case.graph(fn, types, *nodes)
        pipe.set_outputs(*(out if isinstance(out, (list, tuple)) else (out,)))
    pipe.build()
    return pipe, feeds


def _outputs(pipe, feeds, it):
    for name, batches in feeds.items():
        pipe.feed_input(name, batches[it % len(batches)])
    return [[np.asarray(s) for s in o.as_cpu().samples()] for o in pipe.run()]


@pytest.fixture(scope="module")
def conformance(tmp_path_factory):
    """The conformance cases, their generated inputs, and the topics whose inputs need an
    optional package that is not installed (topic module -> the ImportError's words)."""
    cases = _conformance()
    root = tmp_path_factory.mktemp("conformance")
    cases.Context.generate(root)  # the images; each topic's files are written when first asked
    ctx = cases.Context(root)
    unavailable = {}
    for name, make in cases.GENERATORS.items():
        try:
            ctx.folder(name)
        except ImportError as e:  # e.g. soundfile, lmdb or fitsio (extras) not installed
            unavailable[make.__module__] = str(e)
    return cases, ctx, unavailable


def _topics():
    return ["cases", *sorted(p.stem for p in CONFORMANCE.glob("cases_*.py"))]


@pytest.mark.parametrize("topic", _topics())
def test_every_conformance_pipeline_round_trips(topic, conformance):
    cases, ctx, unavailable = conformance
    if topic in unavailable:
        pytest.skip(f"{topic}'s inputs need an optional package: {unavailable[topic]}")
    ran, eligible, failed, refused = 0, 0, 0, []
    for case in cases.CASES:
        module = getattr(case.graph, "__module__", "")
        if module != topic or case.driver is not None or case.expect_error:
            continue  # (a driver builds its own pipelines: it is not a graph to serialize)
        eligible += 1
        try:
            original, feeds = _build(cases, case, ctx)
        except Exception:  # noqa: BLE001 - a case this library rejects is not about serializing
            failed += 1
            continue
        try:
            data = original.serialize()
        except SerializationError as e:
            refused.append(f"{case.name}: {e}")
            continue
        twin = Pipeline.deserialize(data)
        fresh, _ = _build(cases, case, ctx)  # a twin of the original, from its first batch
        for it in range(case.iters):
            try:
                want = _outputs(fresh, feeds, it)
            except Exception:  # noqa: BLE001 - cases that fail at run time compare nothing
                break
            got = _outputs(twin, feeds, it)
            for a, b in zip(want, got, strict=True):
                for x, y in zip(a, b, strict=True):
                    assert x.dtype == y.dtype and x.shape == y.shape, case.name
                    np.testing.assert_array_equal(x, y, err_msg=case.name)
        ran += 1
        for p in (original, twin, fresh):
            p.close()
    # a case's arguments are data: only a Python callable in a case may keep it out
    assert all("cannot be serialized" in r for r in refused), refused
    assert len(refused) <= max(2, ran // 10), refused
    assert failed <= eligible // 10, f"{failed} of {eligible} pipelines of {topic} did not build"
    assert ran or eligible == len(refused) + failed, f"no pipeline of {topic} ran"


def test_module_version_matches_package():
    assert dali.__version__

"""Conformance cases of `fn.readers.webdataset` against real DALI 2.4 (see README.md).

The shards are `dali._testing.webdataset`'s (written into the ``webdataset`` folder): a dataset
of 20 samples over 3 shards (JPEG, ``.cls`` missing from every fifth sample, ``.json`` from
every seventh; a directory entry and a hidden file in each shard) with its index files (made by
`dali.tools.wds2idx`), and the edge-case archives and index files.

Compared: the samples and their order, the bytes, dtypes, shapes, layouts and ``source_info`` of
every output, ``reader_meta`` and ``epoch_size`` (sharding, padding), with and without index
files, and that both libraries raise on the error cases. Known differences: DALI 2.4 scans
hidden files inside directories as samples and makes an empty sample of a leading hidden file
(both contrary to its documentation and to its own ``wds2idx``), cannot read pax headers (the
default format of Python's `tarfile`), and skips every sample with ``"skip"`` when a component
serves two outputs.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from cases import (
    GENERATORS,
    Case,
    Iters,
    Ty,
    Value,
    _short,
    add,
    epoch_problems,
    structure_problems,
)

N = 20
SHARDS = 3


def _generate(folder: Path) -> None:
    from dali._testing import webdataset

    webdataset.make_wds_dataset(folder / "ds", n=N, shards=SHARDS)
    webdataset.make_wds_edge_cases(folder / "edge")


GENERATORS["webdataset"] = _generate

WDS = Value(lambda c: c.folder("webdataset"), "wds")


def _wds(kw: dict[str, Any], tars: list[str] | None, indices: list[str] | None) -> Callable:
    """A graph reading ``fn.readers.webdataset(**kw)``; ``tars`` under ``edge/`` (None: the
    dataset's shards), ``indices`` likewise (None: no index; ``["ds"]``: the dataset's)."""

    def graph(fn: Any, types: Any, root: str) -> Any:
        base = Path(root)
        args = {k: (v.resolve(types) if isinstance(v, Ty) else v) for k, v in kw.items()}
        if "dtypes" in args:
            args["dtypes"] = [t.resolve(types) if isinstance(t, Ty) else t for t in args["dtypes"]]
        if tars is None:
            args["paths"] = [str(base / "ds" / f"shard-{s:06d}.tar") for s in range(SHARDS)]
        else:
            args["paths"] = [str(base / "edge" / t) for t in tars]
        if indices == ["ds"]:
            args["index_paths"] = [str(base / "ds" / f"shard-{s:06d}.idx") for s in range(SHARDS)]
        elif indices is not None:
            args["index_paths"] = [str(base / "edge" / i) for i in indices]
        out = fn.readers.webdataset(**args)
        return tuple(out) if isinstance(out, list) else out

    return graph


def wds_case(
    kw: dict[str, Any],
    *,
    tars: list[str] | None = None,
    indices: list[str] | None = None,
    batch_size: int = 4,
    iters: int = 1,
    suffix: str = "",
    **opts: Any,
) -> Case:
    shown = dict(kw)
    if tars is not None:
        shown["paths"] = tars
    if indices is not None:
        shown["index_paths"] = indices
    name = "readers.webdataset(" + ", ".join(f"{k}={_short(v)}" for k, v in shown.items())
    name += f") b{batch_size}{suffix}"
    outputs = len(kw.get("ext", ()))
    opts.setdefault("source_info", tuple(range(outputs)))
    return Case(
        name=name,
        graph=_wds(kw, tars, indices),
        inputs=(WDS,),
        batch_size=batch_size,
        iters=iters,
        **opts,
    )


ALL = ["jpg", "cls", "json"]

# -- the dataset: order, bytes, source_info, with and without index files ----------------------
for idx in (["ds"], None):
    add(
        wds_case({"ext": ALL, "name": "Reader"}, indices=idx, batch_size=6, iters=4, meta="Reader"),
        wds_case({"ext": ["jpg", "cls;json"]}, indices=idx, batch_size=5, iters=4),
        wds_case({"ext": ["json;cls", "jpg"]}, indices=idx, batch_size=7, iters=3),
        wds_case(
            {"ext": ["jpg", "cls"], "missing_component_behavior": "skip", "name": "Reader"},
            indices=idx,
            batch_size=4,
            iters=5,
            meta="Reader",
        ),
        wds_case(
            {"ext": ["jpg", "json"], "missing_component_behavior": "Empty"},
            indices=idx,
            batch_size=8,
            iters=3,
        ),
        wds_case(
            {"ext": ["jpg", "cls"], "missing_component_behavior": "error"},
            indices=idx,
            expect_error=True,
        ),
    )
add(
    wds_case({"ext": ["jpg"], "dont_use_mmap": True, "read_ahead": True}, batch_size=3, iters=3),
    wds_case({"ext": ["cls", "cls"]}, indices=["ds"], batch_size=4, iters=2),
    wds_case(
        {"ext": ["cls", "cls;json"], "missing_component_behavior": "skip"},
        indices=["ds"],
        batch_size=4,
        iters=2,
        known="DALI 2.4 counts a sample's components, not its outputs: a component taken by two "
        "outputs leaves it one short, so 'skip' drops every sample (and then fails, no samples "
        "left); dali skips the samples that miss an output",
    ),
    wds_case({"ext": ["JSON"], "case_sensitive_extensions": False}, batch_size=4, iters=2),
)

# sharding, padding, sticking: the stream and reader_meta/epoch_size
for shards, shard_id, batch in ((2, 0, 6), (2, 1, 4), (3, 2, 5), (4, 3, 3)):
    for pad in (False, True):
        for stick in (False, True):
            add(
                wds_case(
                    {
                        "ext": ["jpg", "cls"],
                        "num_shards": shards,
                        "shard_id": shard_id,
                        "pad_last_batch": pad,
                        "stick_to_shard": stick,
                        "name": "Reader",
                    },
                    indices=["ds"],
                    batch_size=batch,
                    iters=6,
                    meta="Reader",
                )
            )


# -- shuffling: the orders differ by design; compare content --------------------


def _pairs(iters: Iters) -> list[tuple[bytes, bytes]]:
    return [(j.tobytes(), c.tobytes()) for it in iters for j, c in zip(*[o.samples for o in it])]


def _archive_of(info: str) -> tuple[str, int]:
    tar, offset, _ = info.split(":")
    return tar, int(offset)


def _shuffled_check(
    epoch: int, whole_archives: bool = False
) -> Callable[[Iters, Iters], list[str]]:
    """Same structure; every epoch of ``epoch`` samples holds each sample once (with
    ``whole_archives``: each archive read whole and in order), in both libraries, and every
    (jpg, cls) pair is one of the dataset's."""

    def predicate(iters: Iters) -> list[str]:
        infos = [i for it in iters for i in (it[0].infos or [])]
        return epoch_problems(infos, epoch, _archive_of if whole_archives else None)

    def check(ours: Iters, theirs: Iters) -> list[str]:
        problems = structure_problems(ours, theirs)
        problems += [f"dali: {p}" for p in predicate(ours)]
        problems += [f"real DALI: {p}" for p in predicate(theirs)]
        truth = dict(_pairs(theirs))
        for jpg, cls in _pairs(ours):
            if jpg in truth and truth[jpg] != cls:
                problems.append("a JPEG comes with another label than in DALI")
        return problems

    return check


add(
    wds_case(
        {"ext": ["jpg", "cls"], "random_shuffle": True, "initial_fill": 6},
        indices=["ds"],
        batch_size=5,
        iters=12,
        check=_shuffled_check(N),
    ),
    wds_case(
        {"ext": ["jpg", "cls"], "shuffle_after_epoch": True, "name": "Reader"},
        indices=["ds"],
        batch_size=5,
        iters=12,
        meta="Reader",
        check=_shuffled_check(N, whole_archives=True),
    ),
    wds_case(
        {"ext": ["jpg", "cls"], "shuffle_after_epoch": True, "random_shuffle": True,
         "initial_fill": 3},
        indices=["ds"],
        batch_size=4,
        iters=10,
        check=_shuffled_check(N),
    ),
)  # fmt: skip

# -- edge-case archives -----------------------------------------------------------------------
add(
    wds_case({"ext": ["jpg", "cls"]}, tars=["case.tar"], batch_size=3, iters=2),
    wds_case(
        {"ext": ["jpg", "cls"], "case_sensitive_extensions": False},
        tars=["case.tar"],
        batch_size=3,
        iters=2,
    ),
    wds_case(
        {"ext": ["JPG;Cls", "cls"], "case_sensitive_extensions": False},
        tars=["case.tar"],
        batch_size=3,
    ),
    wds_case(
        {"ext": ["left.png", "right.png", "cls"]}, tars=["multi_dot.tar"], batch_size=3, iters=2
    ),
    wds_case(
        {"ext": ["left.png", "right.png", "cls"]},
        tars=["multi_dot.tar"],
        indices=["multi_dot_v11.idx"],
        batch_size=3,
        suffix=" [v1.1 index: source_info without names]",
    ),
    wds_case(
        {"ext": ["left.png;right.png"]},
        tars=["multi_dot.tar"],
        indices=["multi_dot.idx"],
        batch_size=3,
    ),
    wds_case({"ext": ["cls;json", "json;cls"]}, tars=["both.tar"], batch_size=3, iters=2),
    wds_case({"ext": ["jpg", "lnk"]}, tars=["special.tar"], batch_size=2, iters=2),
    wds_case({"ext": ["jpg", "cls"]}, tars=["regroup.tar"], batch_size=3, iters=2),
    wds_case({"ext": ["README", "jpg"]}, tars=["no_dot.tar"], batch_size=3, iters=2),
    wds_case({"ext": ["jpg", "cls"]}, tars=["zero_size.tar"], batch_size=2, iters=2),
    wds_case({"ext": ["jpg", "cls"]}, tars=["gnu_long.tar"], batch_size=2, iters=2),
    wds_case(
        {"ext": ["jpg", "cls"]},
        tars=["gnu_long.tar"],
        indices=["gnu_long.idx"],
        batch_size=2,
        iters=2,
    ),
    wds_case({"ext": ["jpg", "cls"]}, tars=["ustar.tar"], batch_size=2),
    wds_case({"ext": ["jpg"]}, tars=["spaces.tar"], batch_size=2),
    wds_case(
        {"ext": ["jpg", "cls"]},
        tars=["hidden.tar", "regroup.tar", "case.tar"],
        indices=None,
        batch_size=4,
        iters=3,
        known="DALI 2.4 scans a hidden file inside a directory ('sub/.keep') as a sample of key "
        "'sub/' (its wds2idx and its documentation skip it); dali skips every hidden file",
    ),
    wds_case(
        {"ext": ["jpg"]},
        tars=["hidden_first.tar"],
        batch_size=3,
        known="DALI 2.4 makes an empty first sample of a shard whose first member is hidden; "
        "dali skips the hidden file",
    ),
    wds_case(
        {"ext": ["jpg", "cls"]},
        tars=["pax.tar"],
        batch_size=4,
        known="DALI 2.4 (libtar) does not read pax headers (Python's default tar format): it "
        "loses long names and misreads the samples; dali reads them",
    ),
    wds_case(
        {"ext": ["f32", "i16", "f64"], "dtypes": [Ty("FLOAT"), Ty("INT16"), Ty("FLOAT64")]},
        tars=["typed.tar"],
        batch_size=2,
        iters=2,
    ),
    wds_case(
        {"ext": ["f32", "i16"], "dtypes": [Ty("UINT64"), Ty("UINT16")]},
        tars=["typed.tar"],
        indices=["typed.idx"],
        batch_size=2,
    ),
)

# -- errors both libraries raise --------------------------------------------------------------
add(
    wds_case({"ext": ["odd"], "dtypes": [Ty("INT16")]}, tars=["typed.tar"], expect_error=True),
    wds_case({"ext": ["f32"], "dtypes": [Ty("BOOL")]}, tars=["typed.tar"], expect_error=True),
    wds_case(
        {"ext": ["f32", "i16"], "dtypes": [Ty("FLOAT")]}, tars=["typed.tar"], expect_error=True
    ),
    wds_case({"ext": ["jpg"], "missing_component_behavior": "ignore"}, expect_error=True),
    wds_case({"ext": ["jpg"]}, tars=["missing.tar"], expect_error=True),
    wds_case({"ext": ["jpg"]}, tars=["not_tar.tar"], expect_error=True),
    wds_case({"ext": ["jpg"]}, tars=["truncated_header.tar"], expect_error=True),
    wds_case({"ext": ["jpg"]}, tars=["truncated_data.tar"], expect_error=True, iters=2),
    wds_case({"ext": ["jpg"]}, tars=["empty.tar"], expect_error=True),
    wds_case({"ext": ["jpg"]}, tars=[], expect_error=True),
    wds_case(
        {"ext": ["jpg"]},
        tars=["multi_dot.tar", "case.tar"],
        indices=["multi_dot.idx"],
        expect_error=True,
    ),
    wds_case({"ext": ["jpg", "cls"], "num_shards": 30, "shard_id": 0}, expect_error=True),
)
for bad in ("bad_version.idx", "bad_offset.idx", "short.idx", "bad_field.idx", "nope.idx"):
    add(wds_case({"ext": ["jpg"]}, tars=["multi_dot.tar"], indices=[bad], expect_error=True))

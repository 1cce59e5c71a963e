"""Run every conformance case through real NVIDIA DALI 2.4 and through `dali`, and compare.

Each case of ``cases.py`` is a graph function ``graph(fn, types, *inputs)`` that receives a
library's ``fn`` and ``types`` modules, so the very same code builds a pipeline in
``nvidia.dali`` and in ``dali``. Both pipelines run on the CPU (``device_id=None``) with the
same batch size, seed and inputs; their outputs are compared sample by sample: layout, dtype,
shape, then values within the case's tolerance (see README.md).

Real DALI runs in a child process (it can crash on some inputs; a crash then fails one case,
not the run) while `dali` runs here, so the two halves of a case run in parallel.

Usage::

    PYTHONPATH=packages/core/src python tests/conformance/run.py [-k SUBSTRING] [-v] [--list]

The last line of the output is ``N passed, M failed``. Known differences (documented, deliberate)
are listed separately and counted in neither; the exit status is 1 when M > 0.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import sys
import tempfile
import threading
import time
import traceback
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import cases as _cases

# The cases of each topic beyond cases.py (`cases_<topic>.py`: readers, detection...) add
# themselves to `_cases.CASES`, and their files to `_cases.GENERATORS`, when imported.
for _topic in sorted(Path(__file__).resolve().parent.glob("cases_*.py")):
    __import__(_topic.stem)

#: Seconds one library may spend on one case before the case fails.
CASE_TIMEOUT = 120.0


@dataclass
class Out:
    """One output of one iteration, as plain data (picklable across the process boundary)."""

    layout: str
    dtype: str
    samples: list[np.ndarray]
    infos: list[str] | None = None


@dataclass
class Result:
    """What one library produced for one case: outputs per iteration, or an error."""

    iters: list[list[Out]] = field(default_factory=list)
    meta: Any = None
    error: str | None = None
    seconds: float = 0.0

    # the child process sends plain tuples: classes of a __main__ module do not unpickle
    # reliably in another process (run.py may be run as __main__ or through runpy)
    def to_plain(self) -> tuple[Any, ...]:
        iters = [[(o.layout, o.dtype, o.samples, o.infos) for o in it] for it in self.iters]
        return iters, self.meta, self.error, self.seconds

    @classmethod
    def from_plain(cls, plain: tuple[Any, ...]) -> Result:
        iters, meta, error, seconds = plain
        return cls([[Out(*o) for o in it] for it in iters], meta, error, seconds)


def _dtype_name(dt: Any) -> str:
    return getattr(dt, "name", str(dt)).split(".")[-1]


def _collect(outputs: tuple[Any, ...], with_info: bool) -> list[Out]:
    outs = []
    for tl in outputs:
        samples = [np.array(tl.at(i)) for i in range(len(tl))]
        infos = [str(tl[i].source_info()) for i in range(len(tl))] if with_info else None
        outs.append(Out(str(tl.layout() or ""), _dtype_name(tl.dtype), samples, infos))
    return outs


def _error_text(exc: BaseException) -> str:
    lines = [ln.strip() for ln in str(exc).splitlines() if ln.strip()]
    # DALI's messages are a banner, the traceback of the pipeline definition, then the cause
    # after "encountered:", then noise lines ("Current pipeline object is no longer valid.")
    if "encountered:" in lines:
        lines = lines[lines.index("encountered:") + 1 :]
    lines = [ln for ln in lines if "no longer valid" not in ln] or lines
    # ours: where (operator, sample), the definition's traceback, then the cause, last
    text = " ".join(lines[:2] + lines[2:][-1:])
    return f"{type(exc).__name__}: {text[:500]}"


def run_case(lib: Any, case: _cases.Case, ctx: _cases.Context) -> Result:
    """Build and run ``case`` with ``lib`` (the ``nvidia.dali`` or the ``dali`` package)."""
    res = Result()
    start = time.perf_counter()
    pipe = None
    try:
        if case.driver is not None:
            res.meta = case.driver(lib, lambda out: res.iters.append(_collect(out, False)))
            res.seconds = time.perf_counter() - start
            return res
        pipe = lib.Pipeline(
            batch_size=case.batch_size or ctx.batch_size_of(case),
            num_threads=2,
            device_id=None,
            seed=case.seed,
        )
        with pipe:
            nodes = [spec.node(lib.fn, lib.types, ctx) for spec in case.inputs]
            out = case.graph(lib.fn, lib.types, *nodes)
            if not isinstance(out, (list, tuple)):
                out = (out,)
            pipe.set_outputs(*out)
        pipe.build()
        for _ in range(case.iters):
            res.iters.append(_collect(pipe.run(), bool(case.source_info)))
        if case.meta:
            meta = pipe.reader_meta(case.meta)
            res.meta = {k: int(v) for k, v in sorted(meta.items())}
            res.meta["epoch_size()"] = int(pipe.epoch_size(case.meta))
    except Exception as e:  # noqa: BLE001 - any failure of the library is a result to compare
        res.error = _error_text(e)
        res.iters = []
    finally:
        del pipe
    res.seconds = time.perf_counter() - start
    return res


# -- the real-DALI side, in a child process -------------------------------------------------


def _dali_worker(conn: Any, root: str) -> None:
    """Child process: import real DALI and run the cases named on ``conn``."""
    import nvidia.dali as ndali
    import nvidia.dali.fn
    import nvidia.dali.types  # noqa: F401

    ctx = _cases.Context(root)
    by_name = {c.name: c for c in _cases.CASES}
    conn.send("ready")
    while True:
        name = conn.recv()
        if name is None:
            return
        conn.send(run_case(ndali, by_name[name], ctx).to_plain())


class DaliProcess:
    """A child process running real DALI; restarted after a crash or a timeout."""

    def __init__(self, root: str) -> None:
        self._root = root
        self._mp = multiprocessing.get_context("spawn")
        self._proc: Any = None
        self._conn: Any = None

    def _start(self) -> None:
        parent, child = self._mp.Pipe()
        self._proc = self._mp.Process(target=_dali_worker, args=(child, self._root), daemon=True)
        self._proc.start()
        child.close()
        self._conn = parent
        if not parent.poll(300) or parent.recv() != "ready":
            raise RuntimeError("the real-DALI worker process did not start")

    def submit(self, name: str) -> None:
        if self._proc is None or not self._proc.is_alive():
            self._start()
        self._conn.send(name)

    def result(self, timeout: float) -> Result:
        try:
            if self._conn.poll(timeout):
                return Result.from_plain(self._conn.recv())
            error = f"timed out after {timeout:.0f} s"
        except (EOFError, OSError):
            error = "crashed"
        self._proc.join(1)
        code = self._proc.exitcode
        if code is None:  # still running: a hang; end it (our own child, by its handle)
            self._proc.kill()
            self._proc.join()
        else:
            error = f"crashed (exit code {code})"
        self._proc = None
        return Result(error=f"real DALI {error}")

    def close(self) -> None:
        if self._proc is not None and self._proc.is_alive():
            self._conn.send(None)
            self._proc.join(10)
            if self._proc.is_alive():
                self._proc.kill()


# -- our side, with a timeout -----------------------------------------------------------------


def _run_ours(case: _cases.Case, ctx: _cases.Context) -> Result:
    import dali
    import dali.fn
    import dali.types

    box: list[Result] = []
    thread = threading.Thread(target=lambda: box.append(run_case(dali, case, ctx)), daemon=True)
    thread.start()
    thread.join(CASE_TIMEOUT)
    if not box:
        return Result(error=f"dali timed out after {CASE_TIMEOUT:.0f} s")
    return box[0]


# -- comparison -------------------------------------------------------------------------------


def _within(
    a: np.ndarray, b: np.ndarray, atol: float, rtol: float, float_exact: bool
) -> tuple[int, float, Any]:
    """Compare ``a`` (ours) with ``b`` (DALI): values beyond tolerance, max difference, first one.

    NaN equals NaN and an infinity equals the same infinity.
    """
    a, b = np.atleast_1d(a), np.atleast_1d(b)
    if a.size == 0:
        return 0, 0.0, None
    if a.dtype == bool or b.dtype == bool:
        bad = a != b
        diff = bad.astype(np.float64)
    else:
        fa, fb = a.astype(np.float64), b.astype(np.float64)
        same = (np.isnan(fa) & np.isnan(fb)) | (np.isinf(fa) & (fa == fb))
        with np.errstate(invalid="ignore"):
            diff = np.where(same, 0.0, np.abs(fa - fb))
        diff = np.where(np.isnan(diff), np.inf, diff)
        limit = atol + rtol * np.where(np.isfinite(fb), np.abs(fb), 0.0)
        if float_exact and np.issubdtype(b.dtype, np.floating):
            # "exact" for floats: a few units in the last place of the sample's magnitude,
            # because two correct implementations may order float operations differently
            finite = np.abs(fb[np.isfinite(fb)])
            magnitude = max(1.0, float(finite.max())) if finite.size else 1.0
            limit = limit + 4 * float(np.finfo(b.dtype).eps) * magnitude
        bad = diff > limit
    worst = float(diff.max())
    if not bad.any():
        return 0, worst, None
    first = tuple(int(i) for i in np.argwhere(bad)[0])
    return int(np.count_nonzero(bad)), worst, first


def compare(case: _cases.Case, ours: Result, theirs: Result) -> tuple[list[str], float]:
    """Problems found comparing ``ours`` with ``theirs`` (empty: they conform); the max diff."""
    if case.expect_error:
        problems = []
        if theirs.error is None:
            problems.append("real DALI did not raise (the case expects an error)")
        if ours.error is None:
            problems.append(f"dali did not raise; real DALI: {theirs.error}")
        return problems, 0.0
    if ours.error or theirs.error:
        problems = []
        if theirs.error:
            problems.append(f"real DALI: {theirs.error}")
        if ours.error:
            problems.append(f"dali: {ours.error}")
        return problems, 0.0
    if case.check is not None:
        return case.check(ours.iters, theirs.iters), 0.0
    problems: list[str] = []
    if ours.meta != theirs.meta:
        problems.append(f"reader_meta: dali {ours.meta} != DALI {theirs.meta}")
    worst = 0.0
    labels = case.labels
    for it, (o_outs, t_outs) in enumerate(zip(ours.iters, theirs.iters)):
        if len(o_outs) != len(t_outs):
            problems.append(f"iter {it}: {len(o_outs)} outputs, DALI {len(t_outs)}")
            continue
        for k, (o, t) in enumerate(zip(o_outs, t_outs)):
            where = f"iter {it} out {labels[k] if labels else k}"
            if o.layout != t.layout:
                problems.append(f"{where}: layout {o.layout!r}, DALI {t.layout!r}")
            if o.dtype != t.dtype:
                problems.append(f"{where}: dtype {o.dtype}, DALI {t.dtype}")
            if len(o.samples) != len(t.samples):
                problems.append(f"{where}: {len(o.samples)} samples, DALI {len(t.samples)}")
                continue
            if case.source_info and k in case.source_info and o.infos != t.infos:
                problems.append(f"{where}: source_info {o.infos}, DALI {t.infos}")
            for s, (a, b) in enumerate(zip(o.samples, t.samples)):
                if a.shape != b.shape:
                    problems.append(f"{where} sample {s}: shape {a.shape}, DALI {b.shape}")
                    continue
                n_bad, diff, first = _within(a, b, case.atol, case.rtol, case.float_exact)
                if n_bad and n_bad <= case.outliers * a.size and diff <= case.outlier_atol:
                    n_bad = 0  # a few isolated values within the stated outlier allowance
                worst = max(worst, diff)
                if n_bad:
                    fa, fb = np.atleast_1d(a)[first], np.atleast_1d(b)[first]
                    problems.append(
                        f"{where} sample {s}: max |diff| {diff:g}, {n_bad} of {a.size} values "
                        f"beyond tolerance; first at {first}: dali {fa!r}, DALI {fb!r}"
                    )
    if len(ours.iters) != len(theirs.iters):
        problems.append(f"{len(ours.iters)} iterations, DALI {len(theirs.iters)}")
    return problems, worst


# -- main -------------------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("-k", action="append", default=[], help="run cases whose name has this")
    parser.add_argument("-v", "--verbose", action="store_true", help="print timings too")
    parser.add_argument("--list", action="store_true", help="list the cases and exit")
    args = parser.parse_args(argv)

    selected = [c for c in _cases.CASES if not args.k or any(k in c.name for k in args.k)]
    if args.list:
        for c in selected:
            print(c.name)
        return 0

    t0 = time.perf_counter()
    passed: list[str] = []
    failed: list[tuple[str, list[str]]] = []
    known: list[tuple[str, str, list[str]]] = []
    with tempfile.TemporaryDirectory(prefix="dali-conformance-") as root:
        os.environ["DALI_CACHE_DIR"] = os.path.join(root, "cache")  # not the user's ~/.cache
        _cases.Context.generate(root)
        ctx = _cases.Context(root)
        worker = DaliProcess(root)
        print(f"{len(selected)} cases; images in {root} ({time.perf_counter() - t0:.1f} s)")
        try:
            for case in selected:
                if case.dali_skip is None:
                    worker.submit(case.name)
                ours = _run_ours(case, ctx)
                if case.dali_skip is None:
                    theirs = worker.result(CASE_TIMEOUT)
                    problems, worst = compare(case, ours, theirs)
                else:
                    theirs = Result()
                    problems = _cases.check_reference(case, ours, ctx)
                    worst = 0.0
                timing = (
                    f"  [{ours.seconds:.2f}s / DALI {theirs.seconds:.2f}s]" if args.verbose else ""
                )
                if case.dali_skip is not None:
                    status = "KNOWN" if not problems else "FAIL"
                    note = f"real DALI not run: {case.dali_skip}"
                    if problems:
                        failed.append((case.name, problems))
                    else:
                        known.append((case.name, note, []))
                    print(f"{status:5} {case.name}  ({note}){timing}")
                elif not problems:
                    passed.append(case.name)
                    extra = f"  (max diff {worst:g})" if worst else ""
                    print(f"PASS  {case.name}{extra}{timing}")
                elif case.known is not None and ours.error is None:
                    known.append((case.name, case.known, problems))
                    print(f"KNOWN {case.name}  ({case.known}){timing}")
                    for p in problems[:3]:
                        print(f"        {p}")
                else:
                    failed.append((case.name, problems))
                    print(f"FAIL  {case.name}{timing}")
                    for p in problems[:4]:
                        print(f"        {p}")
                    if len(problems) > 4:
                        print(f"        ... {len(problems) - 4} more")
                sys.stdout.flush()
        except KeyboardInterrupt:
            print("interrupted")
        except Exception:  # noqa: BLE001 - report the harness failure, then the summary
            traceback.print_exc()
            failed.append(("<harness>", ["the conformance runner itself failed"]))
        finally:
            worker.close()

    print()
    print(f"time: {time.perf_counter() - t0:.0f} s")
    if known:
        print(f"{len(known)} known differences (counted neither as passed nor as failed):")
        for name, reason, problems in known:
            print(f"  {name}: {reason}")
            for p in problems[:1]:
                print(f"      {p}")
    if failed:
        print(f"{len(failed)} failures:")
        for name, problems in failed:
            print(f"  {name}: {problems[0]}")
    print(f"{len(passed)} passed, {len(failed)} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

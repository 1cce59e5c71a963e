"""The compatibility page (docs/compatibility.md) is generated and current."""

from __future__ import annotations

from pathlib import Path

import pytest
from dali._graph import catalogue
from dali.tools import compatibility

REPO = Path(__file__).resolve().parents[2]


def test_the_committed_page_is_current():
    assert (REPO / compatibility.PAGE).read_text() == compatibility.page(), (
        "docs/compatibility.md is out of date: run `python -m dali.tools.compatibility`"
    )
    assert compatibility.main(["--root", str(REPO), "--check"]) == 0


def test_every_dali_operator_has_a_status():
    rows = compatibility.table()
    assert [r[0] for r in rows] == sorted(catalogue.DALI_FN)
    assert len(rows) == 136
    for path, _theirs, mine, status in rows:
        assert status.split(":")[0].split(" +")[0] in ("present", "partial", "missing"), path
        assert (status == "missing") == (mine == "—"), path


def test_devices_of_dali_are_its_own():
    assert set(catalogue.DALI_DEVICES) == catalogue.DALI_FN
    assert all(
        devs and set(devs) <= {"cpu", "gpu", "mixed"} for devs in catalogue.DALI_DEVICES.values()
    )


def test_devices_match_nvidia_dali_where_installed():
    pytest.importorskip("nvidia.dali")
    from nvidia.dali.ops import _registry

    cpu, gpu, mixed = _registry.cpu_ops(), _registry.gpu_ops(), _registry.mixed_ops()
    from nvidia.dali import fn as real_fn

    for path, devices in catalogue.DALI_DEVICES.items():
        obj = real_fn
        for part in path.split("."):
            obj = getattr(obj, part)
        schema = obj._schema_name
        want = tuple(
            d for d, reg in (("cpu", cpu), ("gpu", gpu), ("mixed", mixed)) if schema in reg
        )
        assert devices == want, path


def test_a_stale_page_is_reported(tmp_path, capsys):
    (tmp_path / "docs").mkdir()
    (tmp_path / compatibility.PAGE).write_text("old")
    assert compatibility.main(["--root", str(tmp_path), "--check"]) == 1
    assert "out of date" in capsys.readouterr().err

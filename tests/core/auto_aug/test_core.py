"""`dali.auto_aug.core`: the `@augmentation` decorator (custom augmentations), `signed_bin`,
`Policy`, `select`, and the errors DALI raises for bad setups and calls."""

from __future__ import annotations

import dali
import numpy as np
import pytest
from dali import fn, types
from dali.auto_aug import augmentations as a
from dali.auto_aug import auto_augment, core, rand_augment, trivial_augment
from dali.auto_aug.core import Policy, augmentation, select, signed_bin
from dali.auto_aug.core._args import MissingArgException, UnusedArgException


def _source(batch):
    """An external_source giving ``batch`` (a list of samples) at every iteration."""
    return fn.external_source(source=lambda: batch, batch=True)


def run(func, *args, batch=(0.0, 1.0, 2.0, 3.0), conditionals=False, **kwargs):
    """``func(*args, data, **kwargs)`` on float32 scalars ``batch``; the output values."""
    values = [np.float32(v) for v in batch]

    @dali.pipeline_def(
        batch_size=len(values),
        num_threads=1,
        device_id=None,
        seed=2,
        enable_conditionals=conditionals,
    )
    def pipe():
        data = fn.external_source(source=lambda: values, batch=True)
        kw = {k: _source(v) if isinstance(v, list) else v for k, v in kwargs.items()}
        return func(*args, data, **kw)

    (out,) = pipe().run()
    return [np.asarray(out.at(i)).tolist() for i in range(len(out))]


# -- @augmentation -----------------------------------------------------------------------------


def test_custom_augmentation_magnitudes_follow_the_bin():
    @augmentation(mag_range=(10, 50))
    def add(data, value):
        return data + value

    assert add.name == "add" and add.mag_range == (10, 50) and not add.randomly_negate
    # linspace(10, 50, 5) = 10, 20, 30, 40, 50
    assert run(add, magnitude_bin=2, num_magnitude_bins=5) == [30.0, 31.0, 32.0, 33.0]
    bins = [np.int32(b) for b in (0, 1, 3, 4)]
    assert run(add, magnitude_bin=bins, num_magnitude_bins=5) == [10.0, 21.0, 42.0, 53.0]


def test_custom_augmentation_mag_to_param_and_extra_arguments():
    @augmentation(mag_range=(0, 1), mag_to_param=lambda m: np.array([m, 2 * m], np.float32))
    def scale(data, factors, offset=0.0):
        return data * factors[1] + offset

    out = run(scale, magnitude_bin=1, num_magnitude_bins=2, offset=5.0, unused=7)
    assert out == [5.0, 7.0, 9.0, 11.0]  # factors [1, 2]; `unused` is not passed on


def test_custom_augmentation_random_negation_with_signed_bins():
    @augmentation(mag_range=(1, 3), randomly_negate=True)
    def add(data, value):
        return data + value

    signs = [np.int32(s) for s in (0, 1, 0, 1)]
    bins = [np.int32(b) for b in (0, 0, 2, 2)]

    def graph(data, bins, signs):
        return add(data, magnitude_bin=signed_bin(bins, signs), num_magnitude_bins=3)

    # magnitudes 1, 2, 3; sign 1 negates
    assert run(graph, bins=bins, signs=signs) == [1.0, 0.0, 5.0, 0.0]


def test_augmentation_without_magnitudes_gets_none():
    seen = []

    @augmentation
    def double(data, param):
        seen.append(param)
        return data * 2

    assert run(double) == [0.0, 2.0, 4.0, 6.0] and seen == [None]
    assert double.mag_range is None and double.param_device == "cpu"


def test_augmentation_method_updates_the_setup():
    renamed = a.rotate.augmentation(name="spin", mag_range=(0, 90), randomly_negate=False)
    assert (renamed.name, renamed.mag_range, renamed.randomly_negate) == ("spin", (0, 90), False)
    assert renamed.op is a.rotate.op and a.rotate.name == "rotate"
    assert "spin" in repr(renamed) and "mag_range=(0, 90)" in repr(renamed)

    class MyAugmentation(core._Augmentation):
        pass

    mine = a.invert.augmentation(augmentation_cls=MyAugmentation)
    assert isinstance(mine, MyAugmentation)
    assert isinstance(augmentation(lambda d, _: d, augmentation_cls=MyAugmentation), MyAugmentation)


def test_param_device_auto_follows_the_data():
    @augmentation(mag_range=(0, 1), param_device="auto")
    def add(data, value):
        assert value.device == data.device
        return data + value

    assert run(add, magnitude_bin=1, num_magnitude_bins=2) == [1.0, 2.0, 3.0, 4.0]


def test_select_applies_the_chosen_augmentation_per_sample():
    ops = [augmentation(lambda d, _, k=k: d * 0 + 10 * k, name=f"op{k}") for k in range(5)]
    picks = [np.int32(k) for k in (4, 0, 2, 3)]

    def graph(data, picks):
        return select(ops, picks, data=data)

    assert run(graph, picks=picks, conditionals=True) == [40.0, 0.0, 20.0, 30.0]


def test_core_exports_dalis_names():
    assert sorted(core.__all__) == core.__all__
    assert set(core.__all__) == {"Policy", "_Augmentation", "augmentation", "select", "signed_bin"}


# -- errors: @augmentation and calls ------------------------------------------------------------


def test_decorator_errors():
    with pytest.raises(Exception, match="is not callable"):
        augmentation(42)
    with pytest.raises(Exception, match="already decorated Augmentation"):
        augmentation(a.rotate)
    with pytest.raises(Exception, match="must accept at least two"):
        augmentation(lambda data: data)


def test_call_errors():
    @augmentation(mag_range=(0, 1))
    def add(data, value, needed):
        return data + value

    with pytest.raises(Exception, match="`num_magnitude_bins` argument is missing"):
        run(add, magnitude_bin=0, needed=1)
    with pytest.raises(Exception, match="requires `magnitude_bin` parameter"):
        run(add, num_magnitude_bins=3, needed=1)
    with pytest.raises(MissingArgException, match="requires following named argument") as e:
        run(add, magnitude_bin=0, num_magnitude_bins=3)
    assert e.value.missing_args == ["needed"] and e.value.augmentation is add
    explicit = add.augmentation(mag_range=np.array([1.0, 2.0, 3.0]))
    with pytest.raises(Exception, match=r"has nd\.array of length 3"):
        run(explicit, magnitude_bin=0, num_magnitude_bins=4, needed=1)
    bad_range = add.augmentation(mag_range=(0, 1, 2))
    with pytest.raises(Exception, match="must be a tuple of \\(low, high\\)"):
        run(bad_range, magnitude_bin=0, num_magnitude_bins=4, needed=1)


def test_mag_to_param_errors():
    ragged = a.identity.augmentation(mag_range=(0, 2), mag_to_param=lambda m: [0] * int(m + 1))
    with pytest.raises(Exception, match="arrays of the same type and shape"):
        run(ragged, magnitude_bin=[np.int32(0)] * 4, num_magnitude_bins=3)

    def node_param(m):
        return types.Constant(np.float32(m), device="cpu")

    with_node = a.identity.augmentation(mag_range=(0, 2), mag_to_param=node_param)
    with pytest.raises(Exception, match="returned `DataNode`"):
        run(with_node, magnitude_bin=0, num_magnitude_bins=3)


def test_signed_bin_errors():
    with pytest.raises(Exception, match="must be an int or _DataNode"):
        signed_bin(1.5)

    def graph(data):
        signs = fn.random.uniform(values=[0, 1], dtype=types.INT32)
        return signed_bin(3, signs, seed=1).signed_magnitude_idx + data

    with pytest.raises(Exception, match="cannot be specified together"):
        run(graph)


# -- Policy ------------------------------------------------------------------------------------


def test_policy_validation():
    rotate, invert = a.rotate, a.invert
    with pytest.raises(Exception, match="`num_magnitude_bins` must be a positive integer"):
        Policy("p", 0, [[(rotate, 0.5, 1)]])
    with pytest.raises(Exception, match="must be a list or tuple of sub policies"):
        Policy("p", 11, {(rotate, 0.5, 1)})
    with pytest.raises(Exception, match="Each sub policy must be a list or tuple"):
        Policy("p", 11, [[(rotate, 0.5, 1)], 3])
    with pytest.raises(Exception, match="specified as a triple"):
        Policy("p", 11, [[(rotate, 0.5)]])
    with pytest.raises(Exception, match="must be an instance of Augmentation"):
        Policy("p", 11, [[(lambda d, p: d, 0.5, 1)]])
    with pytest.raises(Exception, match="must be a number from `\\[0, 1\\]` range"):
        Policy("p", 11, [[(rotate, 1.5, 1)]])
    with pytest.raises(Exception, match="magnitude bin is required"):
        Policy("p", 11, [[(rotate, 0.5, None)]])
    with pytest.raises(Exception, match="must be an integer from `\\[0, 10\\]` range"):
        Policy("p", 11, [[(rotate, 0.5, 11)]])
    with pytest.warns(UserWarning, match="probability 0"):
        Policy("p", 11, [[(rotate, 0.0, 1)]])
    with pytest.warns(UserWarning, match="will be ignored"):
        Policy("p", 11, [[(invert, 0.5, 3)]])


def test_policy_renames_augmentations_that_share_a_name():
    small = a.rotate.augmentation(mag_range=(0, 10))
    big = a.rotate.augmentation(mag_range=(0, 90))
    policy = Policy("two rotations", 11, [[(small, 0.5, 1)], [(big, 0.5, 2), (small, 1.0, 3)]])
    assert sorted(policy.augmentations) == ["0__rotate", "1__rotate"]
    assert policy.augmentations["1__rotate"].mag_range == (0, 90)
    text = repr(policy)
    assert text.startswith("Policy(name='two rotations', num_magnitude_bins=11")
    assert "('1__rotate', 0.5, 2)" in text


# -- errors: the schemes ------------------------------------------------------------------------


def _images(func, *args, **kwargs):
    img = np.zeros((8, 8, 3), np.uint8)

    @dali.pipeline_def(batch_size=2, num_threads=1, device_id=None, enable_conditionals=True)
    def pipe():
        data = fn.external_source(source=lambda: [img, img], batch=True, layout="HWC")
        kw = {k: (data.shape() if v == "shape" else v) for k, v in kwargs.items()}
        return func(*args, data, **kw)

    return pipe().run()


@pytest.mark.parametrize(
    "func,args,kwargs,match",
    [
        (rand_augment.rand_augment, (), {"n": -1, "m": 3}, "`n` must be a non-negative integer"),
        (rand_augment.rand_augment, (), {"n": 1, "m": 31}, "`\\[0, 30\\]` range. Got 31"),
        (rand_augment.rand_augment, (), {"n": 1, "m": 2, "num_magnitude_bins": 0}, "positive"),
        (rand_augment.rand_augment, (), {"n": 1, "m": 2, "excluded": ["nope"]}, "`nope` was"),
        (rand_augment.apply_rand_augment, ([],), {"n": 1, "m": 2}, "cannot be empty, unless"),
        (trivial_augment.trivial_augment_wide, (), {"num_magnitude_bins": 0}, "positive"),
        (trivial_augment.trivial_augment_wide, (), {"excluded": ["x"]}, "TrivialAugmentWide"),
        (trivial_augment.apply_trivial_augment, ([],), {}, "cannot be empty"),
        (auto_augment.auto_augment, (), {"policy_name": "imagenet"}, "`policy_name` must be"),
        (
            auto_augment.auto_augment,
            (),
            {"policy_name": "reduced_image_net", "shape": "shape"},
            "does not contain any augmentations that rely on the image shape",
        ),
        (
            auto_augment.auto_augment,
            (),
            {"shape": "shape", "max_translate_abs": 10},
            "`max_translate_abs` cannot be used with image shapes",
        ),
        (
            auto_augment.auto_augment,
            (),
            {"max_translate_rel": 0.5},
            "`max_translate_rel` cannot be used without image shapes",
        ),
        (
            auto_augment.apply_auto_augment,
            (Policy("empty", 11, []),),
            {},
            "Cannot run empty policy",
        ),
        (
            rand_augment.apply_rand_augment,
            ([a.rotate, a.invert],),
            {"n": 1, "m": 2, "num_magnitude_bins": 5, "shape": "shape"},
            "The kwarg `shape` is not used",
        ),
        (
            trivial_augment.apply_trivial_augment,
            ([a.translate_x],),
            {},
            "requires `shape` argument that describes image shape",
        ),
    ],
)
def test_scheme_errors(func, args, kwargs, match):
    with pytest.raises(Exception, match=match):
        _images(func, *args, **kwargs)


def test_unused_kwargs_exception_lists_them():
    with pytest.raises(UnusedArgException) as e:
        _images(rand_augment.apply_rand_augment, [a.invert], n=1, m=2, a=1, b=2)
    assert e.value.unused_args == ["a", "b"]
    assert "The kwargs `a, b` are not used" in str(e.value)


def test_use_shape_must_be_a_bool():
    with pytest.raises(Exception, match="`use_shape` is a flag"):
        rand_augment.get_rand_augment_suite(use_shape=np.array([1, 2]))


def test_translation_limits_per_axis():
    policy = auto_augment.get_svhn_policy(max_translate_abs=(10, 20))
    assert policy.augmentations["translate_x"].mag_range == (0, 20)
    assert policy.augmentations["translate_y"].mag_range == (0, 10)

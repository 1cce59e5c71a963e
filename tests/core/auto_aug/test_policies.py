"""RandAugment, TrivialAugment and AutoAugment: which augmentations they choose, with which
probabilities and magnitudes (statistics over many samples, with marker augmentations that
record what was applied), the predefined suites and policies, determinism, CPU/GPU parity."""

from __future__ import annotations

import itertools
import math
from collections import Counter

import dali
import numpy as np
import pytest
from dali import fn, types
from dali._testing.images import photo
from dali.auto_aug import augmentations as a
from dali.auto_aug import auto_augment, rand_augment, trivial_augment
from dali.auto_aug.core import Policy, augmentation
from parity import cpu_gpu, device_id, to_device

IMAGES = [photo(40, 48 + 4 * i, np.random.default_rng(10 + i)) for i in range(4)]


def run_scalars(func, *args, batch_size=512, iters=2, seed=1234, **kwargs):
    """``func(*args, zeros, **kwargs)`` on a batch of float32 zeros (one scalar per sample),
    with conditionals; all the samples of ``iters`` iterations as one float64 array.

    (``func`` is called from the pipeline function itself, not through a lambda: the calls in a
    lambda are not converted for conditionals.)"""

    @dali.pipeline_def(
        batch_size=batch_size, num_threads=1, device_id=None, seed=seed, enable_conditionals=True
    )
    def pipe():
        zeros = types.Constant(np.float32(0), device="cpu")
        return func(*args, zeros, **kwargs)

    p = pipe()
    values = []
    for _ in range(iters):
        (out,) = p.run()
        values += [float(np.asarray(out.at(i))) for i in range(len(out))]
    return np.array(values)


def run_images(func, *args, images=IMAGES, seed=7, device="cpu", iters=1, raw=False, **kwargs):
    """``func(*args, images, **kwargs)`` (HWC uint8) with conditionals; the output samples of
    each iteration as arrays (``raw``: the first iteration's outputs as returned). ``kwargs``
    values ``"shape"`` become the images' shapes."""

    @dali.pipeline_def(
        batch_size=len(images),
        num_threads=2,
        device_id=device_id(device),
        seed=seed,
        enable_conditionals=True,
    )
    def pipe():
        data = fn.external_source(source=lambda: images, batch=True, layout="HWC")
        kw = {k: (data.shape() if v == "shape" else v) for k, v in kwargs.items()}
        return func(*args, to_device(data, device), **kw)

    p = pipe()
    runs = [p.run() for _ in range(iters)]
    if raw:
        return runs[0]
    return [[np.asarray(o.at(i)) for i in range(len(o))] for (o,) in runs]


def assert_frequency(count, total, p, what=""):
    """``count`` of ``total`` draws is within 5 standard deviations of probability ``p``."""
    sigma = math.sqrt(p * (1 - p) / total)
    freq = count / total
    assert abs(freq - p) <= 5 * sigma + 1e-12, f"{what}: frequency {freq:.4f}, expected {p:.4f}"


def marker(code, mag_range=None, randomly_negate=None):
    """An augmentation appending a digit pair to a number: ``100 * x + code (+ parameter)``."""

    def mark(data, param):
        return data * 100 + code + (0 if param is None else param)

    return augmentation(
        mark, mag_range=mag_range, randomly_negate=randomly_negate, name=f"mark{code}"
    )


def digits(value, n):
    """The last ``n`` digit pairs of ``value``, first applied first."""
    v = round(value)
    pairs = []
    while v:
        pairs.append(v % 100)
        v //= 100
    return tuple(reversed(pairs))[-n:] if pairs else ()


# -- RandAugment --------------------------------------------------------------------------------


def test_rand_augment_draws_n_operations_uniformly_and_independently():
    augs = [marker(10 * (k + 1)) for k in range(4)]
    values = run_scalars(rand_augment.apply_rand_augment, augs, n=2, m=5)
    seqs = [digits(v, 2) for v in values]
    assert all(len(s) == 2 for s in seqs)
    total = len(seqs)
    for step in range(2):
        counts = Counter(s[step] for s in seqs)
        assert set(counts) == {10, 20, 30, 40}
        for code in counts:
            assert_frequency(counts[code], total, 1 / 4, f"step {step} op {code}")
    pairs = Counter(seqs)
    assert len(pairs) == 16  # with repetition: every ordered pair occurs
    for pair in itertools.product((10, 20, 30, 40), repeat=2):
        assert_frequency(pairs[pair], total, 1 / 16, f"pair {pair}")


def test_rand_augment_uses_bin_m_and_random_signs():
    # magnitudes linspace(0, 30, 31) = bin; m = 7: ±7 per step
    signed = marker(50, mag_range=(0, 30), randomly_negate=True)
    values = run_scalars(rand_augment.apply_rand_augment, [signed], n=3, m=7)
    # every step appends the digit pair 50 - 7 or 50 + 7
    signs = []
    for v in values:
        pairs = digits(v, 3)
        assert len(pairs) == 3 and set(pairs) <= {43, 57}
        signs += [pair == 57 for pair in pairs]
    assert_frequency(sum(signs), len(signs), 0.5, "positive sign")


def test_rand_augment_with_one_operation_per_sample():
    augs = [marker(10), marker(20), marker(30)]
    values = run_scalars(rand_augment.apply_rand_augment, augs, n=1, m=0)
    counts = Counter(round(v) for v in values)
    assert set(counts) == {10, 20, 30}
    for code in counts:
        assert_frequency(counts[code], len(values), 1 / 3, f"op {code}")


def test_rand_augment_n_zero_returns_the_input_with_a_warning():
    with pytest.warns(Warning, match="n=0"):
        values = run_scalars(
            rand_augment.apply_rand_augment, [marker(10)], n=0, m=0, batch_size=4, iters=1
        )
    assert (values == 0).all()


def test_rand_augment_suite_names_and_ranges():
    suite = rand_augment.get_rand_augment_suite()
    names = [aug.name for aug in suite]
    assert names == [
        "translate_x",
        "translate_y",
        "shear_x",
        "shear_y",
        "rotate",
        "brightness",
        "contrast",
        "color",
        "sharpness",
        "posterize",
        "solarize",
        "equalize",
        "auto_contrast",
        "identity",
    ]
    assert suite[0].op is a.translate_x_no_shape.op and suite[0].mag_range == (0, 100)
    shaped = rand_augment.get_rand_augment_suite(use_shape=True, max_translate_rel=(0.1, 0.2))
    assert shaped[0].op is a.translate_x.op and shaped[0].mag_range == (0, 0.2)
    assert shaped[1].mag_range == (0, 0.1)
    non_monotonic = rand_augment.get_rand_augment_non_monotonic_suite()
    assert non_monotonic[5].mag_range == (0.1, 1.9) and not non_monotonic[5].randomly_negate


def test_rand_augment_single_operation_suites_are_exact():
    """With one augmentation of the suite, the result is that one, with bin ``m``."""
    suite = {aug.name: aug for aug in rand_augment.get_rand_augment_suite()}
    (outs,) = run_images(rand_augment.apply_rand_augment, [suite["posterize"]], n=2, m=20)
    # (8, 4) in 31 bins: bin 20 keeps round(8 - 4 * 20 / 30) = 5 bits; twice is once
    for out, img in zip(outs, IMAGES):
        np.testing.assert_array_equal(out, img & 0b11111000)
    (outs,) = run_images(rand_augment.apply_rand_augment, [suite["solarize"]], n=1, m=30)
    for out, img in zip(outs, IMAGES):
        np.testing.assert_array_equal(out, 255 - img)  # threshold 0: everything inverted


def test_rand_augment_excluded():
    names = [aug.name for aug in rand_augment.get_rand_augment_suite()]
    (outs,) = run_images(
        rand_augment.rand_augment,
        n=1,
        m=30,
        excluded=[n for n in names if n != "rotate"],
        images=IMAGES * 4,
    )
    for out, img in zip(outs, IMAGES * 4):
        assert not np.array_equal(out, img)  # rotated by ±30°
    # as DALI: `fill_value` and `interp_type` are passed on, and an excluded geometry leaves
    # no augmentation that takes them
    others = [n for n in names if n != "solarize"]
    with pytest.raises(Exception, match="`fill_value, interp_type` are not used"):
        run_images(rand_augment.rand_augment, n=1, m=3, excluded=others)


@pytest.mark.parametrize("monotonic_mag", [True, False])
def test_rand_augment_runs_the_whole_suite(monotonic_mag):
    runs = run_images(
        rand_augment.rand_augment, n=3, m=15, shape="shape", monotonic_mag=monotonic_mag, iters=3
    )
    changed = 0
    for outs in runs:
        for out, img in zip(outs, IMAGES):
            assert out.shape == img.shape and out.dtype == np.uint8
            changed += not np.array_equal(out, img)
    assert changed >= 6


# -- TrivialAugment -----------------------------------------------------------------------------


def test_trivial_augment_draws_one_operation_and_a_uniform_bin():
    # A: ±(bin + 1); B: 1000 + bin (no sign)
    aug_a = marker(0, mag_range=(1, 31), randomly_negate=True)
    aug_b = marker(1000, mag_range=(0, 30))
    values = run_scalars(trivial_augment.apply_trivial_augment, [aug_a, aug_b], iters=4)
    total = len(values)
    is_b = values >= 1000
    assert_frequency(int(is_b.sum()), total, 0.5, "op B")
    bins = np.where(is_b, values - 1000, np.abs(values) - 1).round().astype(int)
    counts = Counter(bins.tolist())
    assert set(counts) == set(range(31))
    for b in counts:
        assert_frequency(counts[b], total, 1 / 31, f"bin {b}")
    negative = values < 0
    assert_frequency(int(negative.sum()), int((~is_b).sum()), 0.5, "negative sign of A")


def test_trivial_augment_number_of_bins():
    aug = marker(0, mag_range=(0, 4))
    values = run_scalars(trivial_augment.apply_trivial_augment, [aug], num_magnitude_bins=5)
    assert set(values.round().astype(int).tolist()) == {0, 1, 2, 3, 4}


def test_trivial_augment_wide_suite():
    suite = trivial_augment.get_trivial_augment_wide_suite()
    assert len(suite) == 14
    by_name = {aug.name: aug for aug in suite}
    assert by_name["rotate"].mag_range == (0, 135)
    assert by_name["translate_x"].mag_range == (0, 32)
    assert by_name["posterize"].mag_range == (8, 2)
    assert by_name["shear_y"].mag_range == (0, 0.99)


def test_trivial_augment_with_solarize_only_gives_one_of_its_bins():
    suite = {aug.name: aug for aug in trivial_augment.get_trivial_augment_wide_suite()}
    images = IMAGES * 4
    (outs,) = run_images(trivial_augment.apply_trivial_augment, [suite["solarize"]], images=images)
    thresholds = np.linspace(256, 0, 31, dtype=np.float32)
    found = set()
    for out, img in zip(outs, images):
        solarized = [np.where(img < t, img, 255 - img) for t in thresholds]
        bins = [k for k, ref in enumerate(solarized) if np.array_equal(out, ref)]
        assert bins, "not a solarization of the input"
        found.add(bins[0])
    assert len(found) > 4


def test_trivial_augment_wide_runs_the_whole_suite():
    runs = run_images(trivial_augment.trivial_augment_wide, iters=3)
    for outs in runs:
        for out, img in zip(outs, IMAGES):
            assert out.shape == img.shape and out.dtype == np.uint8


# -- AutoAugment --------------------------------------------------------------------------------


def test_auto_augment_sub_policies_and_probabilities():
    # param = bin for A, B, C (magnitudes 0..10); D negates: 40 + (0 or 1 for the sign)
    aug_a = marker(10, mag_range=(0, 10))
    aug_b = marker(20, mag_range=(0, 10))
    aug_c = marker(30, mag_range=(0, 10))

    def sign_op(data, param):
        return data * 100 + 40 + (param > 0)

    aug_d = augmentation(sign_op, mag_range=(1, 11), randomly_negate=True, name="d")
    sub_policies = [
        [(aug_a, 0.2, 3), (aug_b, 0.7, 1)],
        [(aug_c, 0.5, 2)],
        [(aug_b, 1.0, 0), (aug_d, 0.6, 5)],
    ]
    policy = Policy("test", 11, sub_policies)
    values = run_scalars(auto_augment.apply_auto_augment, policy, iters=4)
    outcomes = Counter(digits(v, 2) for v in values)
    expected = Counter()
    for sub in sub_policies:
        for mask in itertools.product((0, 1), repeat=len(sub)):
            p = 1 / len(sub_policies)
            seq = []
            for applied, (aug, prob, mag) in zip(mask, sub):
                p *= prob if applied else 1 - prob
                if applied:
                    seq.append(int(aug.name[4:]) + mag if aug is not aug_d else None)
            if None in seq:  # D: either sign, equally likely
                for sign in (0, 1):
                    expected[tuple(40 + sign if s is None else s for s in seq)] += p / 2
            else:
                expected[tuple(seq)] += p
    expected = {k: v for k, v in expected.items() if v > 0}
    assert set(outcomes) == set(expected), (sorted(outcomes), sorted(expected))
    for outcome, p in expected.items():
        assert_frequency(outcomes[outcome], len(values), p, f"outcome {outcome}")


@pytest.mark.parametrize(
    "name,getter,size",
    [
        ("image_net", auto_augment.get_image_net_policy, 25),
        ("reduced_image_net", auto_augment.get_reduced_image_net_policy, 25),
        ("svhn", auto_augment.get_svhn_policy, 25),
        ("reduced_cifar10", auto_augment.get_reduced_cifar10_policy, 25),
    ],
)
def test_predefined_policies(name, getter, size):
    policy = getter()
    assert len(policy.sub_policies) == size and policy.num_magnitude_bins == 11
    kwargs = {} if name == "reduced_image_net" else {"shape": "shape"}
    runs = run_images(auto_augment.auto_augment, policy_name=name, iters=2, **kwargs)
    for outs in runs:
        for out, img in zip(outs, IMAGES):
            assert out.shape == img.shape and out.dtype == np.uint8


def test_image_net_policy_is_dalis():
    policy = auto_augment.get_image_net_policy()
    first = [(aug.name, p, mag) for aug, p, mag in policy.sub_policies[0]]
    assert first == [("equalize", 0.8, None), ("shear_y", 0.8, 4)]
    last = [(aug.name, p, mag) for aug, p, mag in policy.sub_policies[-1]]
    assert last == [("color", 0.8, 6), ("rotate", 0.4, 5)]
    assert sorted(policy.augmentations) == [
        "auto_contrast",
        "color",
        "equalize",
        "invert",
        "posterize",
        "rotate",
        "shear_x",
        "shear_y",
        "solarize",
        "solarize_add",
        "translate_y",
    ]
    assert policy.augmentations["translate_y"].mag_range == (0, 250)
    shaped = auto_augment.get_image_net_policy(use_shape=True, max_translate_rel=0.5)
    assert shaped.augmentations["translate_y"].mag_range == (0, 0.5)


def test_auto_augment_image_net_is_auto_augment_with_that_policy():
    first = run_images(auto_augment.auto_augment_image_net, seed=11)
    second = run_images(auto_augment.auto_augment, policy_name="image_net", seed=11)
    for x, y in zip(first[0], second[0]):
        np.testing.assert_array_equal(x, y)


# -- determinism --------------------------------------------------------------------------------

#: (function, its keyword arguments) of each scheme with the standard suite
SCHEMES = {
    "rand": (rand_augment.rand_augment, {"n": 2, "m": 12, "shape": "shape"}),
    "trivial": (trivial_augment.trivial_augment_wide, {}),
    "auto": (auto_augment.auto_augment_image_net, {}),
    "cifar": (auto_augment.auto_augment, {"policy_name": "reduced_cifar10", "shape": "shape"}),
}


@pytest.mark.parametrize("scheme", sorted(SCHEMES))
def test_same_pipeline_seed_same_outputs(scheme):
    func, kwargs = SCHEMES[scheme]
    images = IMAGES * 2
    a1, a2 = (run_images(func, images=images, seed=5, iters=2, **kwargs) for _ in range(2))
    b = run_images(func, images=images, seed=6, iters=2, **kwargs)
    for it in range(2):
        for x, y in zip(a1[it], a2[it]):
            np.testing.assert_array_equal(x, y)
    assert any(not np.array_equal(x, y) for it in range(2) for x, y in zip(a1[it], b[it]))


# -- GPU ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("scheme", sorted(SCHEMES))
@cpu_gpu(atol=1)
def test_gpu_matches_cpu(scheme, device):
    func, kwargs = SCHEMES[scheme]
    return run_images(func, images=IMAGES * 2, device=device, raw=True, **kwargs)

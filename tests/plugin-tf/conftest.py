"""Shared setup of the dali-tf tests: TensorFlow must be installed (the `tf` nox session).

TensorFlow's CPU is split into two logical devices before anything runs, so that the
``tf.distribute`` tests can mirror over two replicas in this process (the split must happen
before TensorFlow initialises its devices, hence here). Every other test runs on the first.
"""

from __future__ import annotations

import os

import pytest

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")  # TensorFlow's start-up chatter
tf = pytest.importorskip("tensorflow")

_cpu = tf.config.list_physical_devices("CPU")[0]
try:
    tf.config.set_logical_device_configuration(
        _cpu, [tf.config.LogicalDeviceConfiguration(), tf.config.LogicalDeviceConfiguration()]
    )
except RuntimeError:  # TensorFlow was initialised already (e.g. by another conftest)
    pass

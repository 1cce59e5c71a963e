"""Separable resampling with DALI's filters: what `fn.resize` and `fn.random_resized_crop` run.

Resampling is two steps. *Geometry* (`geometry`) turns the operator's size arguments into, per
sample and spatial axis, an output size and an input region; `reference.AxisPlan` adds the
filter (min/mag filter, antialiasing) and is all the pixel code needs to know about an axis.
*Pixels* are then computed one axis at a time with DALI's tabulated filters, by one of:

* `reference.resample_reference` (numpy, any dtype, layout and number of spatial axes): the
  definition, equal to DALI bit for bit; the other paths are tested against it;
* `cpu.resample`, the CPU entry: 2-D samples go to `jit` (row passes compiled by Numba, from
  `jit_kernels`; bit-equal to the reference) when the `jit` extra is installed, else to `band`
  (banded BLAS products: the same sums in another order, so a few pixels per million differ
  by 1); volumes, empty samples and all-NN resampling go to the reference;
* `gpu.resample_batch` (CuPy): one kernel launch per batch of images, or one per axis for
  volumes and images whose tiles do not fit in shared memory, from descriptors that `gpu_plan`
  fills for the whole batch with numpy. It builds the reference's float32 weights in the same
  order and rounds every product and sum as numpy does (no fused multiply-add), so it equals
  the reference too.

Every path takes its weights from `reference.axis_weights` (or computes them on the device as
that function does), so the paths differ at most in the order of float32 sums.
"""

"""`jax_function`: a function on ``jax.Array`` batches as a pipeline operator.

The decorated function gets every input as one ``jax.Array`` with a leading batch axis (so
input batches must be uniform) and returns its outputs the same way. The arrays share memory
with the pipeline's batches (DLPack both ways): on the CPU the function runs on JAX's CPU
device, on the GPU on the CUDA device of the pipeline, ordered after the producing work by the
DLPack stream handshake. The inputs must not be kept after the function returns.

The operator is registered in the core registry under the hidden path ``_jax_function`` (so it
is not in `dali.fn`); its errors name ``dali.plugin.jax.fn.jax_function``.

Example:
    >>> import numpy as np
    >>> import dali.fn as fn
    >>> from dali import pipeline_def
    >>> @jax_function
    ... def flip_horizontal(images):
    ...     return images[:, :, ::-1, :]
    >>> @pipeline_def(batch_size=2, num_threads=1, device_id=None)
    ... def pipe():
    ...     x = fn.external_source(lambda: np.arange(12, dtype=np.uint8).reshape(2, 1, 2, 3),
    ...                            batch=True, layout="HWC")
    ...     return flip_horizontal(x)
    >>> out, = pipe().run()
    >>> out.layout(), out.as_array()[0].tolist()
    ('HWC', [[[3, 4, 5], [0, 1, 2]]])
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any

from dali.author import REQUIRED, Arg, Operator, call_operator, get_schema, register
from dali.plugin.jax._convert import batch_to_jax, jax_to_batch, on_device

__all__ = ["JaxFunction", "jax_function"]

_DISPLAY = "dali.plugin.jax.fn.jax_function"
_FN_PATH = "_jax_function"
_MAX_INPUTS = 1024


def _arg_error(name: str, message: str) -> Exception:
    return ValueError(f"`{_DISPLAY}`, argument `{name}`: {message}")


def _layouts(value: Any, n: int) -> list[str | None]:
    """One layout per output; None where the layout is taken from the matching input."""
    if value is None:
        return [None] * n
    if isinstance(value, str):
        return [value] * n
    if isinstance(value, (list, tuple)) and all(isinstance(v, str) for v in value):
        if len(value) != n:
            raise _arg_error("output_layouts", f"got {len(value)} layouts for {n} output(s).")
        return list(value)
    raise _arg_error(
        "output_layouts", f"should be a str or a list of str (one per output), got {value!r}."
    )


def _check_sharding(sharding: Any) -> None:
    if sharding is None:
        return
    from jax.sharding import Sharding

    if not isinstance(sharding, Sharding):
        raise _arg_error(
            "sharding",
            f"should be a jax.sharding.Sharding (NamedSharding or PositionalSharding), got "
            f"{type(sharding).__name__}.",
        )


@register(
    _FN_PATH,
    devices=("cpu", "gpu"),
    inputs=(0, _MAX_INPUTS),
    outputs=lambda args: args.get("num_outputs", 1),
    args=[
        Arg("function", "callable", default=REQUIRED, doc="The JAX function to call."),
        Arg("num_outputs", "int", default=1, doc="Number of outputs (0: side effects only)."),
        Arg("output_layouts", "any", doc="Layout of each output (a str or a list of str)."),
        Arg("sharding", "any", doc="Present the batches as global arrays with this sharding."),
    ],
    class_name="JaxFunction",
    display_name=_DISPLAY,
)
class JaxFunction(Operator):
    """Run a function on whole batches as ``jax.Array`` (see `jax_function`)."""

    def setup(self) -> None:
        self._function = self.arg("function")
        self._num_outputs = int(self.arg("num_outputs"))
        self._layouts = _layouts(self.node.scalar_args.get("output_layouts"), self._num_outputs)
        self._sharding = self.node.scalar_args.get("sharding")
        self._global: tuple[Any, int] | None = None
        if self._sharding is not None:
            from dali.plugin.jax._sharding import block_map

            local = list(self._sharding.addressable_devices)
            if len(local) != 1:
                raise self.arg_error(
                    "sharding",
                    "only global sharding is supported: the sharding must have exactly one "
                    f"device in this process, it has {len(local)}.",
                )
            self._global = (local[0], block_map(self._sharding)[1])

    @staticmethod
    def static_meta(node: Any) -> list[dict[str, Any]]:
        n = int(node.scalar_args.get("num_outputs", 1))
        layouts = _layouts(node.scalar_args.get("output_layouts"), n)
        return [{"layout": lay} if lay else {} for lay in layouts]

    def run_cpu(self, ws: Any) -> tuple[Any, ...]:
        return self._run(ws, "cpu")

    def run_gpu(self, ws: Any) -> tuple[Any, ...]:
        return self._run(ws, "gpu")

    def _to_global(self, arr: Any) -> Any:
        import jax

        assert self._global is not None and self._sharding is not None
        device, num_blocks = self._global
        shape = (arr.shape[0] * num_blocks, *arr.shape[1:])
        return jax.make_array_from_single_device_arrays(
            shape, self._sharding, [on_device(arr, device)]
        )

    def _outputs_of(self, out: Any) -> list[Any]:
        n = self._num_outputs
        if n == 0:
            if out is not None and not (isinstance(out, (tuple, list)) and not out):
                raise self.error(
                    f"the function returned {type(out).__name__}, not None, but num_outputs=0."
                )
            return []
        if n == 1:
            if isinstance(out, (tuple, list)) and len(out) == 1:
                out = out[0]
            return [out]
        if not isinstance(out, (tuple, list)) or len(out) != n:
            got = len(out) if isinstance(out, (tuple, list)) else type(out).__name__
            raise self.error(f"the function should return a tuple of {n} arrays, got {got}.")
        return list(out)

    def _jax_device(self, device: str, args: list[Any]) -> Any:
        import jax

        if self._global is not None:
            return self._global[0]  # the sharding's one device in this process
        if args:
            return next(iter(args[0].devices()))
        if device == "cpu":
            return jax.devices("cpu")[0]
        import cupy

        gpus = [d for d in jax.local_devices() if d.platform == "gpu"]
        current = cupy.cuda.Device().id
        return next((d for d in gpus if d.local_hardware_id == current), gpus[0])

    def _run(self, ws: Any, device: str) -> tuple[Any, ...]:
        import jax

        args = []
        for i, tl in enumerate(ws.inputs):
            try:
                arr = batch_to_jax(tl, what=f"input {i}")
            except ValueError as e:
                raise self.error(str(e)) from e
            args.append(self._to_global(arr) if self._global is not None else arr)
        # Arrays the function creates (jnp.ones, ...) land with the batches: on the CPU for a
        # CPU operator even where JAX's default backend is CUDA.
        with jax.default_device(self._jax_device(device, args)):
            outs = self._outputs_of(self._function(*args))
        batches = []
        for k, out in enumerate(outs):
            what = f"output {k} of the function"
            if self._global is not None and getattr(out, "shape", ())[:1] != (ws.batch_size,):
                out = out.addressable_data(0)  # this process's part of a global array
            layout = self._layouts[k]
            if layout is None:
                layout = ""
                if k < len(ws.inputs) and getattr(out, "ndim", -1) == ws.inputs[k].ndim + 1:
                    layout = ws.inputs[k].layout()
            try:
                tl = jax_to_batch(out, device=device, layout=layout, what=what)
            except TypeError as e:
                raise self.error(str(e)) from e
            if len(tl) != ws.batch_size:
                raise self.error(
                    f"{what} has {len(tl)} samples (its leading axis), but the batch has "
                    f"{ws.batch_size}."
                )
            if layout and len(layout) != tl.ndim:
                raise self.arg_error(
                    "output_layouts",
                    f"the layout '{layout}' cannot describe the {tl.ndim}-dimensional samples "
                    f"of {what}.",
                )
            batches.append(tl)
        return tuple(batches)


def jax_function(
    function: Callable[..., Any] | None = None,
    num_outputs: int = 1,
    output_layouts: str | Sequence[str] | None = None,
    sharding: Any = None,
    device: str | None = None,
    preserve: bool = True,
) -> Any:
    """Turn a function on ``jax.Array`` batches into a function on DALI DataNodes.

    The result takes and returns DataNodes (one, a list for ``num_outputs > 1``, or None for
    0) and can be used in any graph function, including ones given to `data_iterator`. The
    function may be wrapped with ``jax.jit``/``jax.vmap`` first.

    Args:
        function: Takes one ``jax.Array`` per input, each ``(batch, *sample_shape)`` (input
            batches must be uniform), and returns ``num_outputs`` arrays of the same leading
            size, on the same kind of device as the inputs. Used bare or with arguments.
        num_outputs: How many arrays the function returns (a tuple when more than one).
        output_layouts: The sample layout of every output (one str) or of each (a list).
            Without it, output ``i`` gets input ``i``'s layout when their ranks match.
        sharding: Present the batches as global arrays with this sharding (one device of it
            per process); the function's outputs are cut back to this process's part.
        device: ``"cpu"`` or ``"gpu"``; None takes the device of the inputs.
        preserve: Keep the operator even when none of its outputs is used (side effects).

    Returns:
        The DataNode-level function (or, without ``function``, a decorator making one).

    Raises:
        ValueError: A bad ``num_outputs``, ``output_layouts``, ``sharding`` or ``device``.

    Example:
        >>> import jax
        >>> @jax_function
        ... @jax.jit
        ... @jax.vmap
        ... def flip(image):  # one HWC image: vmap adds the batch axis
        ...     return image[:, ::-1, :]
    """
    if isinstance(num_outputs, bool) or not isinstance(num_outputs, int) or num_outputs < 0:
        raise _arg_error("num_outputs", f"must be a non-negative int, got {num_outputs!r}.")
    _layouts(output_layouts, num_outputs)
    _check_sharding(sharding)
    if device not in (None, "cpu", "gpu"):
        raise _arg_error("device", f'must be "cpu", "gpu" or None, got {device!r}.')

    def decorate(func: Callable[..., Any]) -> Callable[..., Any]:
        if not callable(func):
            raise _arg_error("function", f"must be callable, got {type(func).__name__}.")

        @functools.wraps(func)
        def dali_function(*inputs: Any) -> Any:
            kwargs = {
                "function": func,
                "num_outputs": num_outputs,
                "output_layouts": output_layouts,
                "sharding": sharding,
                "device": device,
                "preserve": preserve,
            }
            return call_operator(get_schema(_FN_PATH), inputs, kwargs)

        return dali_function

    return decorate(function) if function is not None else decorate

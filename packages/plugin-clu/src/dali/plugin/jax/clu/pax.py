"""dali.plugin.jax.clu.pax: DALI pipelines as Pax (praxis ``BaseInput``) inputs.

* `DaliInputMixin`: ``get_next`` / ``reset`` / ``peek`` over a `dali.plugin.jax.clu.t5x`
  data set; mix it into a ``praxis.base_input.BaseInput`` subclass (praxis is not needed to
  import it; the private module ``_pax`` shows the subclass).
* `DaliInput`: the same without praxis.

Example:
    >>> import numpy as np, dali.fn as fn
    >>> from dali.plugin.jax.clu.t5x import DaliDatasetConfig
    >>> def numbers():
    ...     return fn.external_source(lambda i: np.full((4, 2), i, np.float32), batch=True)
    >>> pax_input = DaliInput(DaliDatasetConfig(numbers, ["x"], batch_size=4))
    >>> pax_input.peek() is pax_input.get_next()
    True
"""

from dali.plugin.jax.clu._pax import DaliInput, DaliInputMixin

__all__ = ["DaliInput", "DaliInputMixin"]

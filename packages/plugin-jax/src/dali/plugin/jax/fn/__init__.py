"""JAX functions as DALI operators: ``dali.plugin.jax.fn.jax_function``.

Example:
    >>> from dali.plugin.jax.fn import jax_function
    >>> @jax_function(num_outputs=2)
    ... def split(x):
    ...     return x + 1, x.sum(axis=tuple(range(1, x.ndim)))
"""

from dali.plugin.jax._jax_function import jax_function

__all__ = ["jax_function"]

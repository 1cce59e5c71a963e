"""PyTorch functions as DALI operators: ``dali.plugin.pytorch.fn.torch_python_function``.

Example:
    >>> import torch
    >>> from dali.plugin.pytorch.fn import torch_python_function
    >>> # in a pipeline definition:
    >>> # mean = torch_python_function(images, function=lambda t: t.float().mean())
"""

from dali.plugin.pytorch._torch_function import torch_python_function

__all__ = ["torch_python_function"]

"""Experimental parts of ``dali.plugin.pytorch``, as in DALI: `proxy` (a DALI pipeline
serving the batches of a multi-process ``torch.utils.data.DataLoader``).

Importing it imports torch (``dali.plugin.pytorch`` alone does not).
"""

from dali.plugin.pytorch.experimental import proxy

__all__ = ["proxy"]

"""Readers: operators that start the data flow from storage (`fn.readers.*`).

Every reader produces an endless stream of full batches; the shard, padding and stream
arithmetic they share lives in `_sharding`.
"""

from dali._ops.readers import file  # noqa: F401

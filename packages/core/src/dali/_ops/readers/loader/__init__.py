"""The loader every reader shares: the dataset listed once (`listing`), read as an endless
sharded sample stream (`indexed`, `sharding`), shuffled as DALI shuffles (`shuffle`), resumed
from a checkpoint (`resume`).
"""

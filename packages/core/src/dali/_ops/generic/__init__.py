"""Generic operators that do not look at the data itself (shapes, metadata)."""

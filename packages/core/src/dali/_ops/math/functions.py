"""Placeholder: filled by the arithmetic work."""

__all__: list[str] = []

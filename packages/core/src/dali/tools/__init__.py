"""Command-line tools that prepare datasets for the readers (DALI's ``tools/`` scripts)."""

"""The Python examples of a README, to run in tests as a user would run them.

``tests/`` is on ``sys.path`` (as for `parity`): ``from readme_snippets import python_blocks``.
`python_blocks` gives the README's fenced ``python`` blocks; `run` executes one with the names
a snippet leaves to the reader (``image_dir``) given, and with ``device="mixed"`` made
``"cpu"`` on a machine without a GPU, as the snippets' comments say to.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

__all__ = ["python_blocks", "run"]

REPO = Path(__file__).resolve().parent.parent


def python_blocks(readme: str) -> list[str]:
    """The ``python`` code blocks of ``readme`` (a path from the repository root), in order."""
    return re.findall(r"```python\n(.*?)```", (REPO / readme).read_text(), re.DOTALL)


def run(code: str, name: str, *, gpu: bool = False, **names: Any) -> dict[str, Any]:
    """Execute ``code`` (from the README ``name``) with ``names`` defined; its namespace."""
    if not gpu:
        code = code.replace('device="mixed"', 'device="cpu"')
    scope: dict[str, Any] = dict(names)
    exec(compile(code, name, "exec"), scope)  # noqa: S102 - the README's own example
    return scope

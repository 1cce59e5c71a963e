"""MkDocs hooks of the documentation site (mkdocs.yml's ``hooks``).

The package pages include each package's README (``--8<--`` snippets), whose pictures are
beside the README (``packages/core/docs/``). `on_files` adds those folders to the site where the
READMEs' relative links lead from the including page (``docs/packages/<name>.md`` links
``docs/x.svg``, so the files go to ``packages/docs/``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from mkdocs.structure.files import File, Files

ROOT = Path(__file__).resolve().parents[1]


def on_files(files: Files, config: Any) -> Files:
    for folder in sorted((ROOT / "packages").glob("*/docs")):
        for path in sorted(folder.iterdir()):
            if path.is_file():
                files.append(
                    File(
                        f"packages/docs/{path.name}",
                        src_dir=str(ROOT),
                        dest_dir=config["site_dir"],
                        use_directory_urls=config["use_directory_urls"],
                    )
                )
                files.get_file_from_path(f"packages/docs/{path.name}").abs_src_path = str(path)
    return files

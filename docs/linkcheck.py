"""Check the external links of the built documentation site (``nox -s linkcheck``).

``mkdocs build --strict`` already checks every link inside the site (pages, files, anchors);
this checks the rest: every ``http(s)://`` address the built pages link to is asked for (HEAD,
then GET where a server refuses HEAD), and each that does not answer with a success or a
redirect to one is printed with its status and the pages that link to it. It needs the
network, which CI's machine lacks, so it is a session of its own, run before a release.

Run: ``python docs/linkcheck.py SITE_DIR``; exits 1 when a link is broken.
"""

from __future__ import annotations

import re
import sys
import urllib.error
import urllib.request
from collections import defaultdict
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

#: An external link in the built HTML (the site's own links are relative).
_HREF = re.compile(r"""href=["'](https?://[^"'#]+)""")
_TIMEOUT_S = 20


def external_links(site: Path) -> dict[str, list[str]]:
    """Every external address the site's pages link to, and the pages that do."""
    pages: dict[str, list[str]] = defaultdict(list)
    for page in sorted(site.rglob("*.html")):
        for url in set(_HREF.findall(page.read_text(encoding="utf-8"))):
            pages[url].append(str(page.relative_to(site)))
    return dict(pages)


def status(url: str) -> str | None:
    """None when ``url`` answers (after redirects) with a success, else what went wrong."""
    headers = {"User-Agent": "dali-docs-linkcheck"}
    for method in ("HEAD", "GET"):
        request = urllib.request.Request(url, method=method, headers=headers)
        try:
            with urllib.request.urlopen(request, timeout=_TIMEOUT_S):
                return None
        except urllib.error.HTTPError as e:
            if method == "HEAD" and e.code in (403, 405, 501):  # some servers refuse HEAD
                continue
            return f"HTTP {e.code}"
        except (urllib.error.URLError, TimeoutError, OSError) as e:
            return f"{type(e).__name__}: {getattr(e, 'reason', e)}"
    return "refused HEAD and GET"


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print(__doc__)
        return 2
    links = external_links(Path(argv[0]))
    with ThreadPoolExecutor(max_workers=8) as pool:
        results = dict(zip(links, pool.map(status, links)))
    broken = {url: why for url, why in results.items() if why is not None}
    for url, why in sorted(broken.items()):
        pages = links[url]
        more = f" and {len(pages) - 3} more" if len(pages) > 3 else ""
        print(f"BROKEN {url}: {why} (linked from {', '.join(pages[:3])}{more})")
    print(f"{len(links)} external links, {len(broken)} broken")
    return 1 if broken else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

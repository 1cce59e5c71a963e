"""Reading fsspec URLs at the speed of the network: concurrent ranges, coalescing, read-ahead.

Object storage (S3, GCS, HTTP servers) answers each request after a round trip of tens of
milliseconds, whatever its size: read one after another, a batch of 256 JPEGs waits 256 round
trips. So a batch's reads go out together (`fetch`): the extents are grouped per object, ranges
of one object less than ``options.REMOTE_COALESCE_BYTES`` apart become one span (the records of
a TFRecord file, the members of a tar shard are contiguous), spans are cut into requests of at
most ``options.REMOTE_PART_BYTES`` (large ones download in parallel parts), and every request
runs at once on fsspec's event loop, ``options.REMOTE_REQUESTS`` at a time. The batch then
costs about one round trip.

`ReadAhead` hides that round trip too: a reader names the next batch's extents
(`_storage.prefetch`) and their requests start in the background; the next `fetch` takes them
from it. Its cache is keyed by extent, bounded (``options.REMOTE_PREFETCH_BYTES``; the oldest
entries go first), forgets entries nobody read for ``options.REMOTE_PREFETCH_SECONDS`` (a guess
proved wrong by a seek or a restored checkpoint), drops an entry once it is read, and cancels
requests not yet started when their entries go. A failed background request is no error until
its extent is read: the reader then gets the `OSError` in its place, as if it read it then.

Errors come out as `OSError`s naming the URL (`translate`): `FileNotFoundError` for a missing
object, `PermissionError` for a refused request or missing credentials.

Credentials and endpoints come from the standard environment of each filesystem (for S3:
``AWS_ACCESS_KEY_ID``/``AWS_SECRET_ACCESS_KEY``/``AWS_PROFILE``, ``AWS_ENDPOINT_URL`` or
``AWS_ENDPOINT_URL_S3`` for an S3-compatible server, fsspec's own ``FSSPEC_S3_*`` settings);
nothing is passed in code but the connection pool's size (`filesystem`).

Threads: the requests of async filesystems (s3fs, gcsfs, HTTP) run on fsspec's one event-loop
thread (``fsspec.asyn``, started by fsspec on first use); those of synchronous ones on a pool of
``options.REMOTE_REQUESTS`` threads named ``dali-remote`` started on first use. The calling
thread only waits. The client work per request (signing, parsing: ~1-3 ms of CPU for s3fs) is
this process's, so many small objects cost CPU that a few large ranges (TFRecord files, tar
shards) do not.

Paths given to this module are URLs (`_storage.is_url`); `_storage` keeps local paths away.
"""

from __future__ import annotations

import asyncio
import collections
import concurrent.futures
import errno
import functools
import os
import threading
import time
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

from dali import _options as options
from dali._ops.readers.loader.listing import Listing, name_matcher

__all__ = [
    "ReadAhead",
    "call",
    "fetch",
    "filesystem",
    "list_file_root",
    "missing_files",
    "read_ahead",
    "translate",
]

#: The optional-dependency extra that installs each scheme's filesystem.
_EXTRAS = {"s3": "s3", "s3a": "s3", "gs": "gcs", "gcs": "gcs"}


#: (scheme, `REMOTE_REQUESTS`) -> the filesystem `filesystem` last made for plain URLs of it
_FILESYSTEMS: dict[tuple[str, int], Any] = {}


def _still_cached(fs: Any) -> bool:
    """Whether fsspec's instance cache still hands out ``fs``."""
    cache = getattr(type(fs), "_cache", {})
    return cache.get(getattr(fs, "_fs_token", None)) is fs


def filesystem(url: str) -> tuple[Any, str]:
    """The fsspec filesystem of ``url`` and the path within it.

    For S3 the connection pool holds ``options.REMOTE_REQUESTS`` connections unless fsspec's
    configuration says otherwise (botocore's default of 10 would queue a batch's requests ten
    at a time); everything else (credentials, endpoint, region) is the environment's.

    fsspec hands out one cached instance per scheme and options; finding it costs ~0.1 ms, a
    cost per object of a batch, so for plain URLs (no ``::`` chain, no ``?`` options) the
    instance is kept here while fsspec's cache still holds it (``clear_instance_cache()``, as
    after a change of credentials, is honoured).

    Raises:
        ImportError: fsspec, or the scheme's filesystem, is missing: the message names the
            extra to install.
    """
    scheme = url.partition("://")[0].lower()
    plain = "::" not in url and "?" not in url
    key = (scheme, options.REMOTE_REQUESTS)
    if plain:
        known = _FILESYSTEMS.get(key)
        if known is not None and _still_cached(known):
            return known, known._strip_protocol(url)
    extra = _EXTRAS.get(scheme, "remote")
    hint = f'pip install "dali-core[{extra}]"'
    try:
        import fsspec  # type: ignore[import-untyped,import-not-found,unused-ignore]
    except ImportError as e:
        raise ImportError(
            f"reading '{url}' needs fsspec (and its '{scheme}' filesystem): {hint}"
        ) from e
    kwargs: dict[str, Any] = {}
    if scheme in ("s3", "s3a"):
        conf = fsspec.config.conf.get("s3", {}).get("config_kwargs", {})
        if "max_pool_connections" not in conf:
            kwargs["config_kwargs"] = {**conf, "max_pool_connections": options.REMOTE_REQUESTS}
    try:
        fs, path = fsspec.core.url_to_fs(url, **kwargs)
    except ImportError as e:  # fsspec is there, the scheme's package (s3fs, gcsfs...) is not
        raise ImportError(f"reading '{url}' needs the '{scheme}' filesystem: {hint} ({e})") from e
    except ValueError as e:  # "Protocol not known"
        raise OSError(errno.EINVAL, f"no fsspec filesystem for '{scheme}://' ({e})", url) from e
    if plain:
        _FILESYSTEMS[key] = fs
    return fs, path


def _status(err: BaseException) -> int | None:
    """The HTTP status an fsspec/botocore/aiohttp error carries, if any."""
    status = getattr(err, "status", None)
    if isinstance(status, int):
        return status
    response = getattr(err, "response", None)
    if isinstance(response, dict):
        code = response.get("ResponseMetadata", {}).get("HTTPStatusCode")
        if isinstance(code, int):
            return code
    return None


def translate(err: BaseException, url: str) -> OSError:
    """``err`` (from fsspec or the library under it) as an `OSError` naming ``url``.

    `FileNotFoundError` for a missing object, `PermissionError` for a refused request (HTTP
    401/403) or missing credentials, ``EIO`` for a range past the end of the object, an
    `OSError` with the original message otherwise.
    """
    if isinstance(err, OSError) and err.filename == url and err.strerror:
        return err
    detail = (err.strerror if isinstance(err, OSError) else None) or str(err) or type(err).__name__
    status = _status(err)
    name = type(err).__name__
    out: OSError
    if isinstance(err, FileNotFoundError) or status == 404:
        out = FileNotFoundError(errno.ENOENT, f"no such object ({detail})", url)
    elif isinstance(err, PermissionError) or status in (401, 403):
        out = PermissionError(errno.EACCES, f"access denied ({detail})", url)
    elif name in ("NoCredentialsError", "PartialCredentialsError"):
        out = PermissionError(
            errno.EACCES,
            f"no credentials ({detail}): set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, "
            "AWS_PROFILE, or the storage's own credential variables",
            url,
        )
    elif status == 416 or "not satisfiable" in detail.lower():
        out = OSError(
            errno.EIO,
            "a range starts past the end of the object (truncated, or the index does not "
            f"match it; {detail})",
            url,
        )
    elif isinstance(err, IsADirectoryError):
        out = IsADirectoryError(errno.EISDIR, f"is a directory ({detail})", url)
    elif isinstance(err, OSError) and err.errno:
        out = OSError(err.errno, detail, url)
    else:
        out = OSError(errno.EIO, f"{name}: {detail}", url)
    out.__cause__ = err
    return out


def call(url: str, method: str, *args: Any, **kwargs: Any) -> Any:
    """``fs.<method>(path, *args, **kwargs)`` on ``url``'s filesystem, errors translated."""
    fs, path = filesystem(url)
    try:
        return getattr(fs, method)(path, *args, **kwargs)
    except (ImportError, NotImplementedError):
        raise
    except Exception as e:  # fsspec's implementations raise anything: name the URL
        raise translate(e, url) from e


# -- requests -------------------------------------------------------------------------------


class _Part:
    """One request: bytes ``[start, end)`` of an object (``end`` None: to its end)."""

    __slots__ = ("end", "future", "start")

    def __init__(self, start: int, end: int | None) -> None:
        self.start = start
        self.end = end
        self.future: concurrent.futures.Future[bytes] = concurrent.futures.Future()


class _Span:
    """Bytes ``[start, end)`` of one object, fetched as one or more `_Part`s in parallel."""

    __slots__ = ("end", "keys", "parts", "readers", "size", "start", "url")

    def __init__(self, url: str, start: int, end: int | None) -> None:
        self.url = url
        self.start = start
        self.end = end
        part = max(1, options.REMOTE_PART_BYTES)
        if end is None:
            self.parts = [_Part(start, None)]
        else:
            self.parts = [
                _Part(s, min(s + part, end)) for s in range(start, max(end, start + 1), part)
            ]
        #: the bytes held (known ranges at once; an open-ended one when it arrives)
        self.size = 0 if end is None else end - start
        #: the prefetched extents of this span not yet read (`ReadAhead`), and how many
        self.keys: set[Any] = set()
        self.readers = 0

    def covers(self, offset: int, length: int | None) -> bool:
        if offset < self.start:
            return False
        if length is None:
            return self.end is None
        return self.end is None or offset + length <= self.end

    def cancel(self) -> None:
        for p in self.parts:
            p.future.cancel()  # only a request not yet sent is cancelled


def _plan(extents: Sequence[Any]) -> tuple[list[_Span], list[_Span | None]]:
    """Coalesce ``extents`` (``(url, offset, length)``) into spans: the spans, and the span
    of each extent (None for an empty one, which needs no request)."""
    gap = max(0, options.REMOTE_COALESCE_BYTES)
    by_url: dict[str, list[int]] = {}
    for i, e in enumerate(extents):
        if e.length != 0:
            by_url.setdefault(e.path, []).append(i)
    spans: list[_Span] = []
    where: list[_Span | None] = [None] * len(extents)
    for url, idx in by_url.items():
        # one open-ended request, from the lowest open-ended offset, serves every extent above
        tail_from = min((extents[i].offset for i in idx if extents[i].length is None), default=None)
        ranges = sorted(
            (extents[i].offset, extents[i].offset + extents[i].length, i)
            for i in idx
            if extents[i].length is not None
            and (tail_from is None or extents[i].offset < tail_from)
        )
        groups: list[tuple[int, int, list[int]]] = []
        for start, end, i in ranges:
            if groups and start <= groups[-1][1] + gap:
                lo, hi, members = groups[-1]
                groups[-1] = (lo, max(hi, end), [*members, i])
            else:
                groups.append((start, end, [i]))
        while tail_from is not None and groups and groups[-1][1] + gap >= tail_from:
            lo, _, _ = groups.pop()  # it runs into the open-ended request: join it
            tail_from = min(tail_from, lo)
        for lo, hi, members in groups:
            span = _Span(url, lo, hi)
            spans.append(span)
            for i in members:
                where[i] = span
        if tail_from is not None:
            tail = _Span(url, tail_from, None)
            spans.append(tail)
            for i in idx:
                if where[i] is None:
                    where[i] = tail
    return spans, where


#: (event loop, `REMOTE_REQUESTS`) -> the semaphore that bounds the requests in flight
_SEMAPHORES: dict[tuple[Any, int], asyncio.Semaphore] = {}
_POOL: concurrent.futures.ThreadPoolExecutor | None = None
_POOL_LOCK = threading.Lock()


async def _request(fs: Any, path: str, part: _Part) -> None:
    """Run one request on the event loop, its outcome set on ``part.future``."""
    key = (asyncio.get_running_loop(), max(1, options.REMOTE_REQUESTS))
    sem = _SEMAPHORES.get(key)
    if sem is None:
        sem = _SEMAPHORES[key] = asyncio.Semaphore(key[1])
    async with sem:
        if not part.future.set_running_or_notify_cancel():
            return  # cancelled while it waited for its turn: never sent
        try:
            data = await _cat(fs, path, part.start, part.end)
        except BaseException as e:  # the reader of the extent gets it
            part.future.set_exception(e)
            if not isinstance(e, Exception):
                raise
        else:
            part.future.set_result(data)


async def _cat(fs: Any, path: str, start: int, end: int | None) -> bytes:
    data: bytes
    try:
        data = await fs._cat_file(path, start=start, end=end)
    except (FileNotFoundError, PermissionError):
        raise
    except Exception:
        if start != 0 or end is not None:
            raise
        # a whole object is asked for as the range "bytes=0-" (one request; S3's plain GET
        # asks for the size first), which servers refuse for an empty object: ask plainly
        data = await fs._cat_file(path)
    return data


def _cat_sync(fs: Any, path: str, start: int, end: int | None) -> bytes:
    data: bytes
    try:
        data = fs.cat_file(path, start=start, end=end)
    except (FileNotFoundError, PermissionError):
        raise
    except Exception:
        if start != 0 or end is not None:
            raise
        data = fs.cat_file(path)
    return data


def _pool() -> concurrent.futures.ThreadPoolExecutor:
    global _POOL
    with _POOL_LOCK:
        if _POOL is None:
            _POOL = concurrent.futures.ThreadPoolExecutor(
                max(1, options.REMOTE_REQUESTS), thread_name_prefix="dali-remote"
            )
        return _POOL


def _launch(spans: Sequence[_Span]) -> None:
    """Start every part of ``spans``: on fsspec's event loop for its async filesystems, in a
    thread pool for the others. Failures land on the parts' futures."""
    by_fs: dict[int, tuple[Any, list[tuple[str, _Part]]]] = {}
    for span in spans:
        try:
            fs, path = filesystem(span.url)
        except Exception as e:  # noqa: BLE001 (handed to the readers of the extents)
            for p in span.parts:
                if p.future.set_running_or_notify_cancel():
                    p.future.set_exception(e)
            continue
        by_fs.setdefault(id(fs), (fs, []))[1].extend((path, p) for p in span.parts)
    for fs, work in by_fs.values():
        if getattr(fs, "async_impl", False) and hasattr(fs, "_cat_file"):

            async def run_all(fs: Any = fs, work: list[tuple[str, _Part]] = work) -> None:
                await asyncio.gather(*(_request(fs, path, p) for path, p in work))

            # one hand-over to the loop for the whole batch, not one per request
            asyncio.run_coroutine_threadsafe(run_all(), fs.loop)
        else:
            pool = _pool()
            for path, p in work:
                pool.submit(_run_sync, fs, path, p)


def _run_sync(fs: Any, path: str, part: _Part) -> None:
    if not part.future.set_running_or_notify_cancel():
        return
    try:
        part.future.set_result(_cat_sync(fs, path, part.start, part.end))
    except BaseException as e:  # noqa: BLE001 (handed to the reader of the extent)
        part.future.set_exception(e)


def _result(span: _Span, offset: int, length: int | None) -> np.ndarray | OSError:
    """The bytes of one extent from its span's parts (waiting for them): a new array."""
    pieces: list[bytes | memoryview] = []
    pos = offset
    stop = None if length is None else offset + length
    for p in span.parts:
        if p.end is not None and p.end <= pos:
            continue
        if stop is not None and p.start >= stop:
            break
        try:
            data = p.future.result()
        except (concurrent.futures.CancelledError, ImportError):
            raise  # (read again; a missing package is no error of one extent)
        except BaseException as e:  # noqa: BLE001
            return translate(e, span.url)
        want = None if p.end is None else p.end - p.start
        if want is not None and len(data) > want:
            data = data[p.start : p.end]  # the server ignored the range and sent everything
        view = memoryview(data)[pos - p.start : None if stop is None else stop - p.start]
        pieces.append(view)
        pos += len(view)
        if p.end is not None and len(data) < p.end - p.start and (stop is None or pos < stop):
            break  # the object ended inside this part
        if stop is not None and pos >= stop:
            break
    got = pos - offset
    if stop is not None and got != length:
        return OSError(
            errno.EIO,
            f"the object ended at byte {pos}, cannot read {length} bytes at offset {offset} "
            "(truncated, or the index does not match it)",
            span.url,
        )
    out = np.empty(got, dtype=np.uint8)
    at = 0
    for piece in pieces:
        out[at : at + len(piece)] = np.frombuffer(piece, dtype=np.uint8)
        at += len(piece)
    return out


def _collect(
    extents: Sequence[Any], where: Sequence[_Span | None], out: list[Any], todo: Iterable[int]
) -> list[int]:
    """Fill ``out[i]`` for ``todo``; the indices whose request was cancelled (read again)."""
    again = []
    for i in todo:
        span = where[i]
        e = extents[i]
        if span is None:
            out[i] = np.empty(0, dtype=np.uint8)
            continue
        try:
            out[i] = _result(span, e.offset, e.length)
        except concurrent.futures.CancelledError:
            again.append(i)
    return again


def fetch(extents: Sequence[Any]) -> list[np.ndarray | OSError]:
    """Read remote extents (``(path, offset, length)``, ``length`` None: to the end), all at
    once; what `read_ahead` holds is taken from it. A failed one gives its `OSError` in its
    place."""
    n = len(extents)
    out: list[Any] = [None] * n
    held = read_ahead.take(extents)
    rest = [i for i in range(n) if held[i] is None]
    where: list[_Span | None] = list(held)
    if rest:
        spans, planned = _plan([extents[i] for i in rest])
        _launch(spans)
        for j, i in enumerate(rest):
            where[i] = planned[j]
    again = _collect(extents, where, out, range(n))
    if again:  # evicted from the read-ahead while we waited for it: read them now
        spans, planned = _plan([extents[i] for i in again])
        _launch(spans)
        for j, i in enumerate(again):
            where[i] = planned[j]
        _collect(extents, where, out, again)
    return out


# -- read-ahead -----------------------------------------------------------------------------


class ReadAhead:
    """The bounded, thread-safe cache of extents asked for ahead (`prefetch`).

    Each entry is an extent asked for and the span (a request or a few) that holds it; a span
    lives while entries point to it. An entry goes when its extent is read (`take`), when the
    cache is over ``options.REMOTE_PREFETCH_BYTES`` (oldest first), after
    ``options.REMOTE_PREFETCH_SECONDS`` unread, or on `discard`; a span left with no entry
    has its unsent requests cancelled (unless a reader took it).
    """

    def __init__(self) -> None:
        # reentrant: cancelling a future runs its callbacks (`_arrived`) in this thread
        self._lock = threading.RLock()
        #: extent -> (its span, when it was asked for), oldest first; an extent asked for
        #: twice before it is read has one entry
        self._entries: collections.OrderedDict[Any, tuple[_Span, float]] = collections.OrderedDict()
        #: url -> the spans of its entries (an extent inside one is read from it: `take`)
        self._spans: dict[str, list[_Span]] = {}
        self._bytes = 0

    def __len__(self) -> int:
        return len(self._entries)

    @property
    def nbytes(self) -> int:
        """The bytes the entries' spans hold (or will once their requests end; an open-ended
        request's once it has)."""
        return self._bytes

    def prefetch(self, extents: Sequence[Any]) -> None:
        """Start reading ``extents`` (URLs only) in the background (nothing when
        ``options.REMOTE_PREFETCH_BYTES`` is 0: read-ahead off)."""
        if options.REMOTE_PREFETCH_BYTES <= 0:
            return
        now = time.monotonic()
        with self._lock:
            self._expire(now)
            new = list(
                dict.fromkeys(e for e in extents if e.length != 0 and e not in self._entries)
            )
            if not new:
                return
            spans, where = _plan(new)
            cap = options.REMOTE_PREFETCH_BYTES
            if sum(s.size for s in spans) > cap:
                return  # more than the whole cache: a hint we cannot take
            for span in spans:
                self._bytes += span.size
                self._spans.setdefault(span.url, []).append(span)
            for e, held in zip(new, where):
                assert held is not None
                held.readers += 1
                held.keys.add(e)
                self._entries[e] = (held, now)
            self._shrink()
            live = [s for s in spans if s.readers > 0]
        for span in live:
            if span.end is None:
                span.parts[0].future.add_done_callback(functools.partial(self._arrived, span))
        _launch(live)

    def _arrived(self, span: _Span, fut: concurrent.futures.Future[bytes]) -> None:
        """An open-ended request ended: count its bytes while its span is held."""
        if fut.cancelled() or fut.exception() is not None:
            return
        with self._lock:
            if span.readers > 0 and span.size == 0:
                span.size = len(fut.result())
                self._bytes += span.size
                self._shrink()

    def take(self, extents: Sequence[Any]) -> list[_Span | None]:
        """The span holding each of ``extents`` (None: not asked for ahead); their entries
        are dropped (read), and so are the spans nobody else will read."""
        out: list[_Span | None] = [None] * len(extents)
        if not self._entries:
            return out
        with self._lock:
            self._expire(time.monotonic())
            taken: dict[Any, _Span] = {}
            for i, e in enumerate(extents):
                span = taken.get(e)
                if span is None:
                    got = self._entries.pop(e, None)
                    if got is not None:
                        span = taken[e] = got[0]
                        self._release(span, e)
                out[i] = span
            for i, e in enumerate(extents):
                # an extent inside a span asked for ahead (a run of records asked for one by
                # one, a header inside a payload): read from it, and the extents asked for
                # that it covers count as read
                if out[i] is None and e.length != 0 and e.path in self._spans:
                    span = next(
                        (s for s in self._spans[e.path] if s.covers(e.offset, e.length)), None
                    )
                    if span is not None:
                        out[i] = span
                        for k in [k for k in span.keys if _inside(k, e)]:
                            del self._entries[k]
                            self._release(span, k)
        return out

    def discard(self, paths: Iterable[str] | None = None) -> None:
        """Drop the entries of ``paths`` (every entry: None), cancelling unsent requests."""
        with self._lock:
            if paths is None:
                keys = list(self._entries)
            else:
                wanted = set(paths)
                keys = [e for e in self._entries if e.path in wanted]
            for e in keys:
                self._drop(e)

    def _shrink(self) -> None:
        cap = options.REMOTE_PREFETCH_BYTES
        while self._bytes > cap and self._entries:
            self._drop(next(iter(self._entries)))

    def _expire(self, now: float) -> None:
        limit = now - options.REMOTE_PREFETCH_SECONDS
        while self._entries:
            e, (_, when) = next(iter(self._entries.items()))
            if when > limit:
                break
            self._drop(e)

    def _drop(self, e: Any) -> None:
        span, _ = self._entries.pop(e)
        if self._release(span, e):
            span.cancel()

    def _release(self, span: _Span, e: Any) -> bool:
        """Entry ``e`` of ``span`` is gone; True when none is left (the span is not held)."""
        span.keys.discard(e)
        span.readers -= 1
        if span.readers > 0:
            return False
        self._bytes -= span.size
        span.size = 0
        held = self._spans.get(span.url, [])
        held[:] = [s for s in held if s is not span]
        if not held:
            self._spans.pop(span.url, None)
        return True

    def _after_fork(self) -> None:
        # the child has no event loop thread: the requests in flight never end there
        self._lock = threading.RLock()
        self._entries = collections.OrderedDict()
        self._spans = {}
        self._bytes = 0


def _inside(k: Any, e: Any) -> bool:
    """Whether extent ``k`` lies within extent ``e`` (of the same object)."""
    if k.offset < e.offset:
        return False
    if e.length is None:
        return True
    return k.length is not None and k.offset + k.length <= e.offset + e.length


#: The process's read-ahead cache (one for every reader: `_storage.prefetch`).
read_ahead = ReadAhead()


def _reset_after_fork() -> None:
    global _POOL
    read_ahead._after_fork()
    _SEMAPHORES.clear()
    _FILESYSTEMS.clear()
    _POOL = None


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_reset_after_fork)


# -- listing --------------------------------------------------------------------------------


def list_file_root(
    root: str,
    file_filters: Sequence[str],
    dir_filters: Sequence[str] | None = None,
    case_sensitive_filter: bool = False,
) -> Listing:
    """`_listing.list_file_root` for a URL: each "folder" (prefix) under ``root`` a class.

    Object stores have no empty folders: a class folder without objects does not exist there,
    so its label goes to the next one (a local tree with an empty class folder labels the
    classes after it one higher).

    Raises:
        OSError: ``root`` cannot be listed (naming it).
    """
    fs, key = filesystem(root)
    base = key.rstrip("/")
    try:
        found = fs.find(base, maxdepth=2, withdirs=True, detail=True)
    except Exception as e:
        raise translate(e, root) from e
    match_file = name_matcher(file_filters, case_sensitive_filter) if file_filters else None
    match_dir = name_matcher(dir_filters, case_sensitive_filter) if dir_filters else None
    dirs: set[str] = set()
    files: list[tuple[str, str]] = []
    for name, info in found.items():
        rel = name.rstrip("/")[len(base) :].strip("/")
        parts = rel.split("/")
        if not rel or len(parts) > 2:
            continue
        if info.get("type") == "directory":
            if len(parts) == 1:
                dirs.add(parts[0])
        elif len(parts) == 2:
            dirs.add(parts[0])  # a listing without folder entries still has the prefix
            files.append((parts[0], parts[1]))
    classes = sorted(d for d in dirs if match_dir is None or match_dir(d))
    label_of = {c: k for k, c in enumerate(classes)}
    entries = sorted(
        (f"{c}/{f}", label_of[c])
        for c, f in files
        if c in label_of and (match_file is None or match_file(f))
    )
    return Listing([p for p, _ in entries], [label for _, label in entries], len(classes), [])


def missing_files(paths: Sequence[str]) -> tuple[list[int], list[tuple[int, str]]]:
    """`_listing.unreadable_files` for URLs: ``(missing, not_regular)`` indices, listing each
    parent "folder" once (all of them at once on an async filesystem) rather than a request
    per object.

    Raises:
        OSError: A listing was refused (naming the folder).
    """
    by_dir: dict[str, list[int]] = {}
    for i, p in enumerate(paths):
        by_dir.setdefault(p.rstrip("/").rsplit("/", 1)[0], []).append(i)
    folders = list(by_dir)
    listings = _list_many(folders)
    missing: list[int] = []
    not_regular: list[tuple[int, str]] = []
    for folder, listing in zip(folders, listings):
        if isinstance(listing, FileNotFoundError):
            missing.extend(by_dir[folder])
            continue
        if isinstance(listing, BaseException):
            raise translate(listing, folder)
        kinds = {info["name"].rstrip("/").rsplit("/", 1)[-1]: info.get("type") for info in listing}
        for i in by_dir[folder]:
            kind = kinds.get(paths[i].rstrip("/").rsplit("/", 1)[-1])
            if kind is None:
                missing.append(i)
            elif kind == "directory":
                not_regular.append((i, "a directory"))
    return sorted(missing), sorted(not_regular)


def _list_many(folders: Sequence[str]) -> list[Any]:
    """``fs.ls(folder, detail=True)`` of each, concurrently where the filesystem is async;
    a failed one gives its exception in its place."""
    out: list[Any] = [None] * len(folders)
    groups: dict[int, tuple[Any, list[tuple[int, str]]]] = {}
    for i, folder in enumerate(folders):
        fs, key = filesystem(folder)
        groups.setdefault(id(fs), (fs, []))[1].append((i, key))
    for fs, items in groups.values():
        if getattr(fs, "async_impl", False) and hasattr(fs, "_ls"):

            async def run_all(fs: Any = fs, items: list[tuple[int, str]] = items) -> list[Any]:
                return await asyncio.gather(
                    *(fs._ls(key, detail=True) for _, key in items), return_exceptions=True
                )

            got = asyncio.run_coroutine_threadsafe(run_all(), fs.loop).result()
        else:
            got = []
            for _, key in items:
                try:
                    got.append(fs.ls(key, detail=True))
                except Exception as e:  # noqa: BLE001 (sorted out by the caller)
                    got.append(e)
        for (i, _), g in zip(items, got):
            out[i] = g
    return out

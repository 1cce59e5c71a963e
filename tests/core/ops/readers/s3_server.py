"""A real S3-protocol server on localhost for the object-storage tests and benchmark (moto).

`start` serves moto's S3 (and IAM) on a free localhost port, in a thread of this process;
``python s3_server.py [--latency-ms N]`` serves it in a process of its own (the benchmark: a
server in the measured process would compete with the pipeline for the GIL) and prints
``endpoint`` on its first line, until its standard input closes.

Clients are pointed at it the standard way, through the environment (`environ`):
``AWS_ENDPOINT_URL_S3`` and test credentials, as s3fs/botocore read them; the code under test
is given nothing but ``s3://`` URLs.

``latency`` adds that many seconds before every answer, each request on its own server thread,
so concurrent requests wait concurrently: it models the time to first byte of object storage
(a request's round trip and the service's own work), not a bandwidth limit or a slow start.

`enforce_auth` switches moto's IAM checks on (every request then needs the keys of an IAM user
whose policy allows it): how the tests get a real ``403 AccessDenied``.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
import threading
import time
import urllib.request
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path
from typing import Any

#: Credentials of the server's default account (moto accepts any while IAM is not enforced).
CREDENTIALS = {
    "AWS_ACCESS_KEY_ID": "testing",
    "AWS_SECRET_ACCESS_KEY": "testing",
    "AWS_DEFAULT_REGION": "us-east-1",
}


def missing() -> str | None:
    """Why the server cannot run here (a missing package), or None."""
    for module, package in (("moto.server", "moto[server]"), ("s3fs", "s3fs"), ("boto3", "boto3")):
        try:
            __import__(module)
        except ImportError as e:
            return f'object-storage tests need {package} (pip install "{package}"): {e}'
    return None


def _cache_module_list() -> None:
    """Make moto list its own modules once, not on every request: its dispatcher asks for the
    list per request, ~180 ``stat`` calls each time (a third of a GET's server time)."""
    import moto.backends

    if getattr(moto.backends.list_of_moto_modules, "cached", False):
        return
    modules = tuple(moto.backends.list_of_moto_modules())

    def list_of_moto_modules() -> tuple[str, ...]:
        return modules

    list_of_moto_modules.cached = True  # type: ignore[attr-defined]
    moto.backends.list_of_moto_modules = list_of_moto_modules


class Server:
    """moto's S3 served by werkzeug in a daemon thread (`start`)."""

    def __init__(self, latency: float = 0.0) -> None:
        from moto.moto_server.werkzeug_app import DomainDispatcherApplication, create_backend_app
        from werkzeug.serving import make_server

        logging.getLogger("werkzeug").setLevel(logging.ERROR)  # no line per request
        _cache_module_list()
        app = DomainDispatcherApplication(create_backend_app)
        self.latency = latency
        self.requests = 0
        #: the most requests it has served at once (`in_flight` now)
        self.peak = 0
        self.in_flight = 0
        self._count_lock = threading.Lock()

        def serve(environ: dict[str, Any], start_response: Any) -> Any:
            if environ.get("PATH_INFO") == CONTROL:  # `set_latency`, `requests` from outside
                if environ["REQUEST_METHOD"] == "POST":
                    size = int(environ.get("CONTENT_LENGTH") or 0)
                    self.latency = float(environ["wsgi.input"].read(size).decode())
                start_response("200 OK", [("Content-Type", "text/plain")])
                return [f"{self.latency} {self.requests}".encode()]
            with self._count_lock:
                self.requests += 1
                self.in_flight += 1
                self.peak = max(self.peak, self.in_flight)
            try:
                if self.latency:
                    time.sleep(self.latency)
                return app(environ, start_response)
            finally:
                with self._count_lock:
                    self.in_flight -= 1

        self._server = make_server("127.0.0.1", 0, serve, threaded=True)
        host, port = self._server.server_address[:2]
        self.endpoint = f"http://{host}:{port}"
        self._thread = threading.Thread(
            target=self._server.serve_forever, name="moto-s3", daemon=True
        )
        self._thread.start()

    def stop(self) -> None:
        self._server.shutdown()
        self._thread.join()
        self._server.server_close()


#: The path of the server's own control endpoint (no S3 bucket can be named so).
CONTROL = "/__dali_test_server__"


def _control(endpoint: str, body: bytes | None = None) -> tuple[float, int]:
    request = urllib.request.Request(
        endpoint + CONTROL, data=body, headers={"Content-Type": "text/plain"}
    )
    with urllib.request.urlopen(request, timeout=10) as r:
        latency, requests = r.read().decode().split()
    return float(latency), int(requests)


def set_latency(endpoint: str, seconds: float) -> None:
    """Make the server at ``endpoint`` (in this process or another) wait ``seconds`` before
    every answer from now on."""
    _control(endpoint, str(seconds).encode())


def requests_served(endpoint: str) -> int:
    """How many S3 requests the server at ``endpoint`` has answered."""
    return _control(endpoint)[1]


def start(latency: float = 0.0) -> Server:
    """A moto S3 server on a free localhost port, answering after ``latency`` seconds."""
    return Server(latency)


def environ(endpoint: str) -> dict[str, str]:
    """The environment that points S3 clients at ``endpoint`` with the test credentials."""
    return {**CREDENTIALS, "AWS_ENDPOINT_URL_S3": endpoint}


def client(endpoint: str, service: str = "s3", **keys: str) -> Any:
    """A boto3 client of ``endpoint`` (the test credentials unless ``keys`` are given)."""
    import boto3

    return boto3.client(
        service,
        endpoint_url=endpoint,
        region_name=CREDENTIALS["AWS_DEFAULT_REGION"],
        aws_access_key_id=keys.get("key", CREDENTIALS["AWS_ACCESS_KEY_ID"]),
        aws_secret_access_key=keys.get("secret", CREDENTIALS["AWS_SECRET_ACCESS_KEY"]),
    )


def upload(endpoint: str, bucket: str, root: str | os.PathLike[str], prefix: str = "") -> int:
    """Copy every file under ``root`` to ``s3://bucket/prefix/<relative path>`` (the bucket
    is created if needed); returns how many files."""
    s3 = client(endpoint)
    try:
        s3.create_bucket(Bucket=bucket)
    except s3.exceptions.BucketAlreadyOwnedByYou:
        pass
    root = Path(root)
    files = sorted(p for p in root.rglob("*") if p.is_file())
    base = prefix.strip("/")

    def put(p: Path) -> None:
        key = p.relative_to(root).as_posix()
        s3.put_object(Bucket=bucket, Key=f"{base}/{key}" if base else key, Body=p.read_bytes())

    with ThreadPoolExecutor(8) as pool:
        list(pool.map(put, files))
    return len(files)


def iam_user(endpoint: str, name: str, policy: dict[str, Any]) -> dict[str, str]:
    """Create IAM user ``name`` with ``policy``; its ``{"key": ..., "secret": ...}``."""
    iam = client(endpoint, "iam")
    iam.create_user(UserName=name)
    iam.put_user_policy(
        UserName=name, PolicyName=f"{name}-policy", PolicyDocument=json.dumps(policy)
    )
    made = iam.create_access_key(UserName=name)["AccessKey"]
    return {"key": made["AccessKeyId"], "secret": made["SecretAccessKey"]}


def _set_auth(endpoint: str, free_requests: float) -> None:
    request = urllib.request.Request(
        f"{endpoint}/moto-api/reset-auth",
        data=str(free_requests).encode(),
        headers={"Content-Type": "text/plain"},  # (a form body would be parsed away)
        method="POST",
    )
    with urllib.request.urlopen(request, timeout=10) as r:
        r.read()


@contextmanager
def enforce_auth(endpoint: str) -> Iterator[None]:
    """Inside: moto checks every request's signature and IAM policy (real 403s)."""
    _set_auth(endpoint, 0)
    try:
        yield
    finally:
        _set_auth(endpoint, float("inf"))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--latency-ms", type=float, default=0.0)
    args = parser.parse_args(argv)
    server = start(args.latency_ms / 1000)
    print(server.endpoint, flush=True)
    sys.stdin.read()  # until the parent closes our input (or exits)
    server.stop()


if __name__ == "__main__":
    main()

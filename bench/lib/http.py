"""Raw HTTP/1.1 and Server-Sent Events over asyncio streams: light enough for hundreds of
clients in one process (no HTTP library, no thread per connection)."""

from __future__ import annotations

import socket
import statistics
import time
import urllib.request
from pathlib import Path


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_healthy(port: int, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=1):
                return
        except OSError:
            time.sleep(0.2)
    raise RuntimeError(f"port {port} did not answer")


def rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def pct(values, p) -> float:
    """The p-th percentile (nearest rank); NaN without values."""
    values = sorted(values)
    if not values:
        return float("nan")
    k = min(len(values) - 1, max(0, round(p / 100 * len(values) + 0.5) - 1))
    return values[k]


def summary(values) -> str:
    """Seconds as "p50 … p95 … max … (n=…)" in milliseconds."""
    ms = [v * 1000 for v in values]
    if not ms:
        return "no samples"
    return (
        f"p50 {statistics.median(ms):6.1f} ms  p95 {pct(ms, 95):6.1f} ms  "
        f"max {max(ms):6.1f} ms  (n={len(ms)})"
    )


async def read_head(reader) -> tuple[int, dict]:
    head = await reader.readuntil(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split()[1])
    headers = {}
    for line in lines[1:]:
        if ":" in line:
            name, value = line.split(":", 1)
            headers[name.strip().lower()] = value.strip()
    return status, headers


async def read_body(reader, headers) -> bytes:
    if "content-length" in headers:
        return await reader.readexactly(int(headers["content-length"]))
    body = b""
    while True:  # chunked
        size = int((await reader.readuntil(b"\r\n")).strip(), 16)
        data = await reader.readexactly(size + 2)
        if size == 0:
            return body
        body += data[:-2]


def request(method, path, port, cookie, extra="", body=b"") -> bytes:
    return (
        f"{method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nCookie: {cookie}\r\n{extra}"
        f"Content-Length: {len(body)}\r\n\r\n"
    ).encode() + body


async def read_chunks(reader, chunked: bool):
    """A response body as it arrives (HTTP chunks decoded)."""
    if not chunked:
        while data := await reader.read(65536):
            yield data
        return
    while True:
        size = int((await reader.readuntil(b"\r\n")).split(b";")[0].strip(), 16)
        data = await reader.readexactly(size + 2)
        if size == 0:
            return
        yield data[:-2]


class EventStream:
    """Server-sent events from bytes that arrive in arbitrary pieces: an event is complete at
    its blank line; the incomplete tail waits for the next piece."""

    def __init__(self):
        self.tail = b""

    def feed(self, data: bytes) -> list[dict]:
        """The events completed by `data`, each {"id", "event", "data", "comments"}."""
        blocks = (self.tail + data).split(b"\n\n")
        self.tail = blocks.pop()
        events = []
        for block in blocks:
            event = {"id": None, "event": "message", "data": [], "comments": []}
            for line in block.decode().split("\n"):
                if not line:
                    continue
                if line.startswith(":"):
                    event["comments"].append(line[1:].strip())
                    continue
                field, _, value = line.partition(":")
                value = value.removeprefix(" ")
                if field == "data":
                    event["data"].append(value)
                elif field in ("id", "event"):
                    event[field] = value
            event["data"] = "\n".join(event["data"])
            events.append(event)
        return events


async def open_event_stream(port: int, path: str, cookie: str):
    """GET an SSE stream: (reader, writer, body chunks); asserts a 200 text/event-stream."""
    import asyncio

    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(request("GET", path, port, cookie, "Accept: text/event-stream\r\n"))
    status, headers = await read_head(reader)
    assert status == 200 and headers["content-type"] == "text/event-stream", (status, headers)
    chunked = headers.get("transfer-encoding", "").lower() == "chunked"
    return reader, writer, read_chunks(reader, chunked)


async def post_form(port: int, path: str, cookie: str, csrf: str, body: bytes, extra: str = ""):
    """One htmx form POST on a new connection: (status, body). `extra`: more header lines."""
    import asyncio

    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    try:
        writer.write(
            request(
                "POST",
                path,
                port,
                cookie,
                f"X-CSRFToken: {csrf}\r\nHX-Request: true\r\n"
                "Content-Type: application/x-www-form-urlencoded\r\n" + extra,
                body,
            )
        )
        status, headers = await read_head(reader)
        return status, await read_body(reader, headers)
    finally:
        writer.close()

#!/usr/bin/env python3
"""Test fixture HTTP(S) server for imgfetch.

Standard library only (Python 3.11). See README.md next to this file for
the route table.

Usage:
    python3 fixture_server.py --root DIR [--port 0] [--tls CERT KEY]
                              [--port-file FILE]

Once listening, the actual port is printed as a single line on stdout and,
if --port-file is given, written atomically to that file.
"""

import argparse
import base64
import email.utils
import gzip
import hashlib
import http.server
import json
import mimetypes
import os
import re
import selectors
import signal
import socket
import ssl
import sys
import tempfile
import threading
import time
import traceback
import urllib.parse
import zlib

CHUNK = 64 * 1024
JPEG_SOI = b"\xff\xd8\xff\xe0"
DEFAULT_BIG_SIZE = 10 * 1024 * 1024

HTML_PAGE = (
    b"<!DOCTYPE html>\n<html><head><title>Not an image</title></head>\n"
    b"<body><h1>Hello</h1><p>This is an HTML page, not an image.</p></body>"
    b"</html>\n"
)
# What a kept-alive connection holds after a response that sent more than its Content-Length; also the whole
# reply of /garbage.
GARBAGE = b"GARBAGE not http\r\n\r\n"
JSON_BODY = json.dumps({"ok": True, "message": "this is JSON, not an image"}).encode() + b"\n"


class Stats:
    """Thread-safe request / connection counters.

    A TCP connection is counted (and considered "open" for the concurrency
    maximum) from the moment it carries its first non-control request since
    the last reset, until it is closed.  Connections that only ever carry
    control requests (/_stats, /_reset) are therefore never counted.
    """

    def __init__(self):
        self.lock = threading.Lock()
        self.epoch = 0
        self._zero()

    def _zero(self):
        self.total = 0
        self.paths = {}
        self.connections = 0
        self.open = 0
        self.max_open = 0
        self.times = {}
        self.requests = []
        self.bytes = 0
        self.bytes_by_path = {}

    def count_request(self, path, handler):
        """Count a request; returns the per-path count including this one."""
        with self.lock:
            self.total += 1
            n = self.paths.get(path, 0) + 1
            self.paths[path] = n
            self.times.setdefault(path, []).append(time.time())
            self.requests.append({"path": handler.path, "headers": [[k, v] for k, v in handler.headers.items()]})
            if handler._conn_epoch != self.epoch:
                handler._conn_epoch = self.epoch
                self.connections += 1
                self.open += 1
                if self.open > self.max_open:
                    self.max_open = self.open
            return n

    def add_bytes(self, path, count):
        """Count `count` body bytes sent for `path` (None: a control request, not counted)."""
        if path is None:
            return
        with self.lock:
            self.bytes += count
            self.bytes_by_path[path] = self.bytes_by_path.get(path, 0) + count

    def connection_closed(self, handler):
        with self.lock:
            if handler._conn_epoch == self.epoch:
                self.open -= 1
            handler._conn_epoch = None

    def reset(self):
        with self.lock:
            self.epoch += 1
            self._zero()

    def recorded(self):
        with self.lock:
            return list(self.requests)

    def snapshot(self):
        with self.lock:
            return {
                "total": self.total,
                "paths": dict(self.paths),
                "connections": self.connections,
                "max_concurrent_connections": self.max_open,
                "open_connections": self.open,
                "times": {p: list(t) for p, t in self.times.items()},
                "bytes": self.bytes,
                "bytes_by_path": dict(self.bytes_by_path),
            }


class FixtureServer(http.server.ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    request_queue_size = 128

    def __init__(self, addr, handler, root, ssl_context=None):
        self.root = os.path.realpath(root)
        self.ssl_context = ssl_context
        self.stats = Stats()
        self.stopping = threading.Event()
        self.robots = None  # what /robots.txt answers: see --robots
        self.robots_delay = 0.0
        super().__init__(addr, handler)

    def handle_error(self, request, client_address):
        # Client aborts, TLS failures and timeouts are expected in tests.
        exc = sys.exc_info()[1]
        if isinstance(exc, (OSError, ssl.SSLError, TimeoutError)):
            return
        sys.stderr.write("fixture_server: error handling request:\n")
        traceback.print_exc(file=sys.stderr)
        sys.stderr.flush()


def http_date(ts):
    return email.utils.formatdate(ts, usegmt=True)


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "imgfetch-fixture/1.0"
    timeout = 300  # idle keep-alive connections are dropped after this

    # ------------------------------------------------------------------ setup
    def setup(self):
        self._conn_epoch = None
        self._leftover = b""
        self._stat_path = None
        ctx = self.server.ssl_context
        if ctx is not None:
            raw = self.request
            try:
                raw.settimeout(10)
                self.request = ctx.wrap_socket(raw, server_side=True)
            except Exception:
                try:
                    raw.close()
                except OSError:
                    pass
                raise
        super().setup()

    def finish(self):
        try:
            self.server.stats.connection_closed(self)
        finally:
            super().finish()

    def version_string(self):
        return self.server_version

    def log_message(self, format, *args):  # noqa: A002 - quiet logs
        pass

    # --------------------------------------------------------------- helpers
    def _stopping(self):
        return self.server.stopping.is_set()

    def _sleep(self, seconds):
        """Sleep; returns False if interrupted by server shutdown."""
        if seconds <= 0:
            return not self._stopping()
        return not self.server.stopping.wait(seconds)

    def _write(self, data):
        if self.command != "HEAD" and data:
            self.wfile.write(data)
            self.server.stats.add_bytes(self._stat_path, len(data))

    def _send(self, code, body=b"", ctype="text/plain; charset=utf-8", headers=None):
        self.send_response(code)
        if ctype is not None:
            self.send_header("Content-Type", ctype)
        for k, v in (headers or []):
            self.send_header(k, v)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self._write(body)

    def _text(self, code, text, headers=None):
        self._send(code, (text + "\n").encode(), headers=headers)

    def _not_found(self):
        self._text(404, "not found")

    def _redirect(self, location, code=302):
        self._text(code, "redirecting to " + location, headers=[("Location", location)])

    def _resolve(self, relpath_raw):
        """Map a still-percent-encoded relative path to a file under root."""
        rel = urllib.parse.unquote(relpath_raw)
        if not rel:
            return None
        root = self.server.root
        full = os.path.realpath(os.path.join(root, rel.lstrip("/")))
        if os.path.commonpath([root, full]) != root:
            return None
        if not os.path.isfile(full):
            return None
        return full

    def _load(self, relpath_raw):
        """Returns (path, data, mtime) or None (and sends 404)."""
        full = self._resolve(relpath_raw)
        if full is None:
            self._not_found()
            return None
        try:
            with open(full, "rb") as f:
                data = f.read()
            mtime = os.stat(full).st_mtime
        except OSError:
            self._not_found()
            return None
        return full, data, mtime

    @staticmethod
    def _guess_type(path):
        ctype, _ = mimetypes.guess_type(path)
        return ctype or "application/octet-stream"

    def _not_modified(self, etag, mtime):
        inm = self.headers.get("If-None-Match")
        if inm is not None:
            tags = [t.strip() for t in inm.split(",")]
            for t in tags:
                if t == "*":
                    return True
                if t.startswith("W/"):
                    t = t[2:]
                if t == etag:
                    return True
            return False
        ims = self.headers.get("If-Modified-Since")
        if ims:
            try:
                dt = email.utils.parsedate_to_datetime(ims)
            except (TypeError, ValueError, IndexError):
                return False
            if dt is None:
                return False
            return dt.timestamp() >= int(mtime)
        return False

    def _byte_range(self, size):
        """The single range `Range: bytes=A-B`, `bytes=A-` or `bytes=-N` asks of `size` bytes, as (first, last)
        inclusive; None without a Range header (or one this server doesn't parse: several ranges, other units);
        "unsatisfiable" when it starts at or past the end."""
        m = re.fullmatch(r"\s*bytes\s*=\s*(\d*)\s*-\s*(\d*)\s*", self.headers.get("Range") or "")
        if m is None or (m.group(1) == "" and m.group(2) == ""):
            return None
        if m.group(1) == "":
            suffix = int(m.group(2))
            return (max(0, size - suffix), size - 1) if suffix > 0 and size > 0 else "unsatisfiable"
        first = int(m.group(1))
        last = min(int(m.group(2)), size - 1) if m.group(2) else size - 1
        if first >= size or last < first:
            return "unsatisfiable"
        return (first, last)

    def _serve_file(self, relpath_raw, validators=True, ctype=None, extra_headers=None, ranges=True):
        loaded = self._load(relpath_raw)
        if loaded is None:
            return
        full, data, mtime = loaded
        headers = list(extra_headers or [])
        if validators:
            etag = '"%s"' % hashlib.sha1(data).hexdigest()
            headers += [("ETag", etag), ("Last-Modified", http_date(mtime))]
            if self._not_modified(etag, mtime):
                self.send_response(304)
                for k, v in headers:
                    self.send_header(k, v)
                self.end_headers()
                return
        if ranges:
            headers.append(("Accept-Ranges", "bytes"))
            wanted = self._byte_range(len(data))
            if wanted == "unsatisfiable":
                self._send(416, b"", ctype=None, headers=headers + [("Content-Range", "bytes */%d" % len(data))])
                return
            if wanted is not None:
                first, last = wanted
                headers.append(("Content-Range", "bytes %d-%d/%d" % (first, last, len(data))))
                self._send(206, data[first:last + 1], ctype=ctype or self._guess_type(full), headers=headers)
                return
        self._send(200, data, ctype=ctype or self._guess_type(full), headers=headers)

    def _query(self):
        return urllib.parse.parse_qs(self._qs, keep_blank_values=True)

    def _qparam(self, name, default, conv):
        vals = self._query().get(name)
        if not vals:
            return default
        try:
            return conv(vals[0])
        except ValueError:
            return default

    # ---------------------------------------------------------------- dispatch
    def do_GET(self):
        self._dispatch()

    def do_HEAD(self):
        self._dispatch()

    def _dispatch(self):
        if self._leftover:
            # The bytes an earlier response on this connection sent beyond its Content-Length.
            self.wfile.write(self._leftover)
            self._leftover = b""
        raw = self.path
        if raw.startswith(("http://", "https://")):  # absolute-form
            raw = urllib.parse.urlsplit(raw)._replace(scheme="", netloc="").geturl() or "/"
        path, _, self._qs = raw.partition("?")
        path = path.split("#", 1)[0]

        if path == "/_stats":
            body = json.dumps(self.server.stats.snapshot(), sort_keys=True).encode() + b"\n"
            self._send(200, body, ctype="application/json")
            return
        if path == "/_requests":
            body = json.dumps(self.server.stats.recorded()).encode() + b"\n"
            self._send(200, body, ctype="application/json")
            return
        if path == "/_reset":
            self.server.stats.reset()
            self._send(200, b'{"reset": true}\n', ctype="application/json")
            return

        count = self.server.stats.count_request(path, self)
        self._stat_path = path

        if path == "/robots.txt":
            return self.serve_robots(count)

        parts = path.split("/")  # ['', 'img', 'a.jpg', ...]
        head = parts[1] if len(parts) > 1 else ""
        rest = parts[2:]
        try:
            handler = None
            if head and "_" not in head:
                handler = getattr(self, "route_" + head.replace("-", "_"), None)
            if handler is None or not callable(handler):
                self._not_found()
                return
            handler(rest, count)
        except (ValueError, IndexError):
            self._text(400, "bad request")

    # ------------------------------------------------------------------ routes
    def route_img(self, rest, count):
        self._serve_file("/".join(rest))

    def route_by_query(self, rest, count):
        # /by-query/<any name>?img=<relpath>: the file the query names (as image.php?img=a.jpg would).
        names = self._query().get("img")
        if not names:
            return self._text(400, "by-query needs ?img=<relpath>")
        self._serve_file(names[0])

    def route_norange(self, rest, count):
        self._serve_file("/".join(rest), ranges=False)

    def route_noval(self, rest, count):
        self._serve_file("/".join(rest), validators=False)

    def route_status(self, rest, count):
        if len(rest) != 1:
            return self._not_found()
        code = int(rest[0])
        if not 200 <= code <= 599:
            return self._text(400, "unsupported status code (use 200-599)")
        headers = []
        ra = self._query().get("retry_after")
        if ra:
            headers.append(("Retry-After", ra[0]))
        if code in (204, 304):
            self.send_response(code)
            for k, v in headers:
                self.send_header(k, v)
            self.end_headers()
            return
        phrase = self.responses.get(code, ("",))[0]
        self._text(code, ("status %d %s" % (code, phrase)).strip(), headers=headers)

    def route_flaky(self, rest, count):
        if len(rest) < 2:
            return self._not_found()
        n = int(rest[0])
        if count <= n:
            headers = []
            query = self._query()
            ra = query.get("retry_after")
            if ra:
                headers.append(("Retry-After", ra[0]))
            rad = query.get("retry_after_date")
            if rad:
                headers.append(("Retry-After", http_date(time.time() + float(rad[0]))))
            code = int(query.get("code", ["503"])[0])
            return self._text(code, "flaky: failure %d of %d" % (count, n), headers=headers)
        self._serve_file("/".join(rest[1:]))

    def route_html(self, rest, count):
        if rest:
            return self._not_found()
        self._send(200, HTML_PAGE, ctype="text/html; charset=utf-8")

    def route_json(self, rest, count):
        if rest:
            return self._not_found()
        self._send(200, JSON_BODY, ctype="application/json")

    def route_empty(self, rest, count):
        if rest:
            return self._not_found()
        self._send(200, b"", ctype="application/octet-stream")

    def route_short(self, rest, count):
        loaded = self._load("/".join(rest))
        if loaded is None:
            return
        full, data, _ = loaded
        self.send_response(200)
        self.send_header("Content-Type", self._guess_type(full))
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self._write(data[: len(data) // 2])
        self.close_connection = True

    def route_partial(self, rest, count):
        """Always 206, whatever was asked: the first `n` bytes of the file (all of them without `n`) with a
        Content-Range of them, its total the file's size or `total`."""
        loaded = self._load("/".join(rest))
        if loaded is None:
            return
        full, data, _ = loaded
        n = self._qparam("n", len(data), int)
        total = self._qparam("total", len(data), int)
        headers = [("Content-Range", "bytes 0-%d/%d" % (n - 1, total))]
        self._send(206, data[:n], ctype=self._guess_type(full), headers=headers)

    def route_stall(self, rest, count):
        loaded = self._load("/".join(rest))
        if loaded is None:
            return
        full, data, _ = loaded
        seconds = self._qparam("seconds", 60.0, float)
        self.send_response(200)
        self.send_header("Content-Type", self._guess_type(full))
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.close_connection = True
        if self.command == "HEAD":
            return
        # Never send the whole body, even for files <= 1000 bytes.
        self._write(data[: min(1000, max(len(data) - 1, 0))])
        self.wfile.flush()
        self._sleep(seconds)

    def route_slow(self, rest, count):
        loaded = self._load("/".join(rest))
        if loaded is None:
            return
        full, data, _ = loaded
        delay = self._qparam("delay", 0.05, float)
        self.send_response(200)
        self.send_header("Content-Type", self._guess_type(full))
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        if self.command == "HEAD":
            return
        for off in range(0, len(data), 1024):
            if off and not self._sleep(delay):
                self.close_connection = True
                return
            self._write(data[off : off + 1024])
            self.wfile.flush()

    def route_redirect(self, rest, count):
        if len(rest) < 2:
            return self._not_found()
        n = int(rest[0])
        relpath = "/".join(rest[1:])
        if n > 0:
            return self._redirect("/redirect/%d/%s" % (n - 1, relpath))
        self._serve_file(relpath)

    def route_loop(self, rest, count):
        if rest:
            return self._not_found()
        self._redirect("/loop2")

    def route_loop2(self, rest, count):
        if rest:
            return self._not_found()
        self._redirect("/loop")

    def route_redirect_to(self, rest, count):
        if rest:
            return self._not_found()
        url = self._query().get("url")
        if not url:
            return self._text(400, "missing url parameter")
        self._redirect(url[0])

    def route_big(self, rest, count):
        if rest:
            return self._not_found()
        size = max(0, self._qparam("size", DEFAULT_BIG_SIZE, int))
        cl = self._qparam("cl", 1, int) != 0
        use_gzip = self._qparam("gzip", 0, int) != 0

        def chunks():
            prefix = JPEG_SOI[:size]
            zeros = bytes(CHUNK)
            off = 0
            while off < size:
                n = min(CHUNK, size - off)
                if off == 0:
                    yield prefix + zeros[: n - len(prefix)]
                else:
                    yield zeros[:n]
                off += n

        if use_gzip:
            comp = zlib.compressobj(6, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
            pieces = [comp.compress(c) for c in chunks()]
            pieces.append(comp.flush())
            pieces = [p for p in pieces if p]
            body_len = sum(len(p) for p in pieces)
            body_iter = iter(pieces)
        else:
            body_len = size
            body_iter = chunks()

        self.send_response(200)
        self.send_header("Content-Type", "image/jpeg")
        if use_gzip:
            self.send_header("Content-Encoding", "gzip")
        if cl:
            self.send_header("Content-Length", str(body_len))
        else:
            self.send_header("Connection", "close")
            self.close_connection = True
        self.end_headers()
        if self.command == "HEAD":
            return
        for piece in body_iter:
            if self._stopping():
                self.close_connection = True
                return
            self._write(piece)

    def route_type(self, rest, count):
        if len(rest) < 2:
            return self._not_found()
        ctype = urllib.parse.unquote(rest[0])
        self._serve_file("/".join(rest[1:]), ctype=ctype)

    def route_delay(self, rest, count):
        if len(rest) < 2:
            return self._not_found()
        seconds = float(rest[0])
        if not self._sleep(seconds):
            self.close_connection = True
            return
        self._serve_file("/".join(rest[1:]))

    def route_gzip(self, rest, count):
        loaded = self._load("/".join(rest))
        if loaded is None:
            return
        full, data, _ = loaded
        accept = self.headers.get("Accept-Encoding", "")
        encodings = [e.split(";")[0].strip().lower() for e in accept.split(",")]
        headers = [("Vary", "Accept-Encoding")]
        if "gzip" in encodings or "x-gzip" in encodings:
            data = gzip.compress(data, mtime=0)
            headers.append(("Content-Encoding", "gzip"))
        self._send(200, data, ctype=self._guess_type(full), headers=headers)

    def route_gzip_always(self, rest, count):
        # /gzip-always/<relpath>: the file gzip-compressed, whatever Accept-Encoding and Range say (a 200).
        loaded = self._load("/".join(rest))
        if loaded is None:
            return
        full, data, _ = loaded
        self._send(200, gzip.compress(data, mtime=0), ctype=self._guess_type(full),
                   headers=[("Content-Encoding", "gzip")])

    def route_headers(self, rest, count):
        if rest:
            return self._not_found()
        # Header names keep the case of their first occurrence; repeated
        # headers (compared case-insensitively) are joined with ", ".
        hdrs, names = {}, {}
        for k, v in self.headers.items():
            key = names.setdefault(k.lower(), k)
            hdrs[key] = hdrs[key] + ", " + v if key in hdrs else v
        body = json.dumps(hdrs, sort_keys=True).encode() + b"\n"
        self._send(200, body, ctype="application/json")

    def route_echo_header(self, rest, count):
        if len(rest) < 2:
            return self._not_found()
        name = urllib.parse.unquote(rest[0])
        if self.headers.get(name) is None:
            return self._text(403, "missing required header " + name)
        self._serve_file("/".join(rest[1:]))

    def route_terminal_headers(self, rest, count):
        # /terminal-headers/<relpath>: the file with validators and a type that hold terminal control sequences:
        # an ETag with OSC "set title" ended by BEL, a Content-Type with ESC [2J (clear screen), a Last-Modified
        # with a C1 CSI (U+009B as UTF-8) and a right-to-left override (U+202E as UTF-8). Sent as raw bytes.
        loaded = self._load("/".join(rest))
        if loaded is None:
            return
        full, data, mtime = loaded
        utf8 = lambda text: text.encode("utf-8").decode("latin-1")
        headers = [("ETag", '"x\x1b]0;owned\x07y"'),
                   ("Last-Modified", utf8("Mon, 01 Jan 2024 00:00:00 GMT\u009b2J\u202egnp.exe"))]
        self._send(200, data, ctype="image/jpeg\x1b[2J", headers=headers)

    def route_long_etag(self, rest, count):
        # /long-etag/<n>/<plain|control>/<relpath>: the file with an ETag of n characters between its quotes, 'e's
        # or control characters (U+0001, which JSON escapes as 6 bytes), and a Last-Modified as long.
        if len(rest) < 3 or not rest[0].isdigit():
            return self._not_found()
        loaded = self._load("/".join(rest[2:]))
        if loaded is None:
            return
        fill = "\x01" if rest[1] == "control" else "e"
        value = fill * int(rest[0])
        headers = [("ETag", '"%s"' % value), ("Last-Modified", value)]
        self._send(200, loaded[1], ctype="image/jpeg", headers=headers)

    def route_basic_auth(self, rest, count):
        if len(rest) < 2:
            return self._not_found()
        expected = "Basic " + rest[0]
        if self.headers.get("Authorization") != expected:
            return self._text(401, "unauthorized", headers=[("WWW-Authenticate", 'Basic realm="fixture"')])
        self._serve_file("/".join(rest[1:]))

    def route_garbage(self, rest, count):
        if rest:
            return self._not_found()
        self.wfile.write(GARBAGE)
        self.wfile.flush()
        self.close_connection = True

    def route_overrun(self, rest, count):
        self._serve_file("/".join(rest), validators=False)
        self._leftover = GARBAGE

    def route_huge_headers(self, rest, count):
        # /huge-headers/<one|many>/<relpath>: the file after one 128 KiB header, or 4000 headers of 100 bytes.
        if len(rest) < 2 or rest[0] not in ("one", "many"):
            return self._not_found()
        loaded = self._load("/".join(rest[1:]))
        if loaded is None:
            return
        if rest[0] == "one":
            headers = [("X-Huge", "h" * (128 << 10))]
        else:
            headers = [("X-Many-%d" % i, "m" * 88) for i in range(4000)]
        self._send(200, loaded[1], ctype=self._guess_type(loaded[0]), headers=headers)

    def route_content_length(self, rest, count):
        # /content-length/<value>/<relpath>: the file with that Content-Length instead of its size, then close.
        if len(rest) < 2:
            return self._not_found()
        loaded = self._load("/".join(rest[1:]))
        if loaded is None:
            return
        self.send_response(200)
        self.send_header("Content-Type", self._guess_type(loaded[0]))
        self.send_header("Content-Length", urllib.parse.unquote(rest[0]))
        self.send_header("Connection", "close")
        self.end_headers()
        self._write(loaded[1])
        self.close_connection = True

    def route_cache_control(self, rest, count):
        if len(rest) < 2:
            return self._not_found()
        value = urllib.parse.unquote(rest[0])
        self._serve_file("/".join(rest[1:]), extra_headers=[("Cache-Control", value)])

    def serve_robots(self, count):
        # --robots file:PATH (200, text/plain), status:N (N with a short body) or redirect:LOCATION (302); 404 without.
        # Several specs separated by ";" answer the requests in turn, the last one every request after them.
        specs = (self.server.robots or "status:404").split(";")
        spec = specs[min(count, len(specs)) - 1]
        self._sleep(self.server.robots_delay)
        kind, _, value = spec.partition(":")
        if kind == "file":
            with open(value, "rb") as f:
                return self._send(200, f.read(), ctype="text/plain")
        if kind == "redirect":
            return self._redirect(value)
        code = int(value)
        self._text(code, "robots.txt status %d" % code)

    def route_robots_tag(self, rest, count):
        # /robots-tag/<headers, percent-encoded, a line feed between two>/<relpath>: one X-Robots-Tag header each.
        if len(rest) < 2:
            return self._not_found()
        values = [v for v in urllib.parse.unquote(rest[0]).split("\n") if v]
        self._serve_file("/".join(rest[1:]), extra_headers=[("X-Robots-Tag", v) for v in values])

    def route_robots_tag_after(self, rest, count):
        # /robots-tag-after/<N>/<headers, as robots-tag's>/<relpath>: the first N requests of the path without the
        # X-Robots-Tag headers, the later ones (304s to conditional requests included) with them.
        if len(rest) < 3:
            return self._not_found()
        values = [v for v in urllib.parse.unquote(rest[1]).split("\n") if v] if count > int(rest[0]) else []
        self._serve_file("/".join(rest[2:]), extra_headers=[("X-Robots-Tag", v) for v in values])


def alias_address(index):
    """The loopback address of alias `index` (0-based): 127.0.0.2, 127.0.0.3, ... 250 to each third octet."""
    return "127.0.%d.%d" % (index // 250, index % 250 + 2)


def serve_aliases(server, count, port):
    """Also accepts on `count` more loopback addresses (`alias_address`) at `port`, one selector thread for all:
    each is a host of its own to a client, served by the same handler, files and stats."""
    selector = selectors.DefaultSelector()
    for index in range(count):
        listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind((alias_address(index), port))
        listener.listen(128)
        selector.register(listener, selectors.EVENT_READ)

    def accept_loop():
        while not server.stopping.is_set():
            for key, _ in selector.select(timeout=0.1):
                try:
                    connection, address = key.fileobj.accept()
                except OSError:
                    continue
                server.process_request(connection, address)

    threading.Thread(target=accept_loop, daemon=True).start()


def write_port_file(path, port):
    d = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix=".port.", dir=d)
    try:
        with os.fdopen(fd, "w") as f:
            f.write("%d\n" % port)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def main(argv=None):
    ap = argparse.ArgumentParser(description="imgfetch test fixture HTTP server")
    ap.add_argument("--root", required=True, help="directory served by /img etc.")
    ap.add_argument("--port", type=int, default=0, help="port on 127.0.0.1 (0 = random)")
    ap.add_argument("--tls", nargs=2, metavar=("CERT", "KEY"), help="serve HTTPS")
    ap.add_argument("--port-file", help="write the bound port to this file")
    ap.add_argument("--robots", help="/robots.txt: file:PATH, status:N or redirect:LOCATION (default status:404); "
                    "several separated by ';' answer the requests in turn, the last one the rest")
    ap.add_argument("--robots-delay", type=float, default=0.0, help="seconds /robots.txt waits before answering")
    ap.add_argument("--aliases", type=int, default=0,
                    help="also serve plain http on this many more loopback addresses (127.0.0.2, ...), same port")
    args = ap.parse_args(argv)

    if not os.path.isdir(args.root):
        ap.error("--root %r is not a directory" % args.root)

    ctx = None
    if args.tls:
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.load_cert_chain(args.tls[0], args.tls[1])

    server = FixtureServer(("127.0.0.1", args.port), Handler, args.root, ssl_context=ctx)
    port = server.server_address[1]
    server.robots = args.robots
    server.robots_delay = args.robots_delay
    if args.aliases:
        if ctx:
            ap.error("--aliases serves plain http only")
        serve_aliases(server, args.aliases, port)

    def on_signal(signum, frame):
        if not server.stopping.is_set():
            server.stopping.set()
            threading.Thread(target=server.shutdown, daemon=True).start()

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    # A parent may start us with these blocked (threads of a test runner do): unblock them.
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM, signal.SIGINT})

    if args.port_file:
        write_port_file(args.port_file, port)
    sys.stdout.write("%d\n" % port)
    sys.stdout.flush()

    try:
        server.serve_forever(poll_interval=0.1)
    finally:
        server.stopping.set()
        server.server_close()
    return 0


if __name__ == "__main__":
    sys.exit(main())

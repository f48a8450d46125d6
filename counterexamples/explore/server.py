"""The explorer's web server: the page and a small JSON API, on 127.0.0.1 only.

* ``GET /``: the page (``page.html`` with its CSS and script inlined; no network access needed);
* ``GET /api/view?path=0.3.1``: the state at the end of a path, its lanes,
  variables, invariants (with their explanations when violated) and every
  enabled action with the changes it makes;
* ``GET /api/compare?path=...&a=2&b=5``: two states of the path side by side.

A bad request (a malformed or tampered path, an action index that is not
enabled) is answered with status 400 and ``{"error": "one line"}``, a spec
that raises (anywhere: an action, an invariant or the lanes of a successor)
with 500 and one line; the server keeps serving either way.  A request whose
``Host`` is not the address the server is bound to (a page of another site
whose name was made to resolve to 127.0.0.1: DNS rebinding) is refused with
421 before anything runs.  A connection that sends nothing is closed after
:data:`REQUEST_TIMEOUT` seconds, so idle or half-open connections cannot
pile up.  The standard library's ``http.server`` is enough: one user, one spec.
"""

from __future__ import annotations

import html
import json
import os
import re
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

from modelcheck.counterexamples.explore.session import Explorer, PathError, parse_path
from modelcheck.counterexamples.html_parts import epoch_css
from modelcheck.errors import ModelCheckError, UsageError
from modelcheck.model.blame import one_line

HOST = "127.0.0.1"
"""Loopback only: the explorer runs spec code on request and must not be reachable from the network."""
REQUEST_TIMEOUT = 10.0
"""Seconds a connection may wait for its request (or a reader for its answer) before it is closed."""
_DIGITS = re.compile(r"[0-9]{1,9}")
_HERE = os.path.dirname(os.path.abspath(__file__))


def _asset(*parts: str) -> str:
    with open(os.path.join(*parts), encoding="utf-8") as f:
        return f.read()


def page(explorer: Explorer, start: str) -> str:
    """The explorer page, self-contained, for this spec and its starting path."""
    consts = ", ".join(f"{k}={v}" for k, v in _constants(explorer).items())
    css = _asset(_HERE, "..", "trace_page.css") + "\n" + epoch_css() + "\n" + _asset(_HERE, "page.css")
    values = {
        "css": css,
        "js": _asset(_HERE, "page.js"),
        "spec": html.escape(explorer.spec.name, quote=True),
        "title": html.escape(explorer.spec.title, quote=True),
        "constants": html.escape(consts, quote=True),
        "start": html.escape(start, quote=True),
    }
    # One pass, so a spec title that happens to contain "{{start}}" stays text.
    return re.sub(r"\{\{(\w+)\}\}", lambda m: values[m.group(1)], _asset(_HERE, "page.html"))


def _constants(explorer: Explorer) -> dict:
    from modelcheck.spec.constants import constants_to_dict

    return constants_to_dict(explorer.c)


class _Handler(BaseHTTPRequestHandler):
    server: "ExploreServer"
    server_version = "modelcheck-explore"

    def setup(self) -> None:
        self.timeout = self.server.request_timeout  # socketserver applies it to the connection
        super().setup()

    def do_GET(self) -> None:  # noqa: N802 - http.server's name
        host = (self.headers.get("Host") or "").strip().lower()
        if host not in self.server.hosts:
            self._json(421, {"error": f"this server answers to {self.server.hosts[0]} only, not "
                                      f"{host[:80]!r}"})
            return
        url = urlsplit(self.path)
        query = parse_qs(url.query, keep_blank_values=True)
        try:
            if url.path == "/":
                self._send(200, "text/html; charset=utf-8", self.server.page_text.encode())
            elif url.path == "/api/view":
                self._json(200, self.server.explorer.view(parse_path(_one(query, "path"))))
            elif url.path == "/api/compare":
                a, b = _number(query, "a"), _number(query, "b")
                self._json(200, self.server.explorer.compare(parse_path(_one(query, "path")), a, b))
            else:
                self._json(404, {"error": f"no such page: {url.path[:80]}"})
        except (PathError, UsageError) as exc:
            self._json(400, {"error": str(exc)})
        except ModelCheckError as exc:  # the spec raised: its message, and the server goes on
            self._json(500, {"error": one_line(str(exc))})
        except Exception as exc:  # noqa: BLE001 - spec code the wrappers do not reach: still one line, no drop
            self._json(500, {"error": one_line(f"spec {self.server.explorer.spec.name} raised "
                                               f"{type(exc).__name__}: {exc}")})

    def _json(self, status: int, data: Any) -> None:
        self._send(status, "application/json", json.dumps(data).encode())

    def _send(self, status: int, ctype: str, body: bytes) -> None:
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.send_header("X-Content-Type-Options", "nosniff")
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - http.server's signature
        """Quiet: requests are not news (errors reach the page)."""


def _one(query: dict, name: str) -> str:
    values = query.get(name)
    if not values:
        raise UsageError(f"the request needs {name}=...")
    return values[0]


def _number(query: dict, name: str) -> int:
    text = _one(query, name)
    if not _DIGITS.fullmatch(text):
        raise UsageError(f"{name} must be a step number, got {text[:20]!r}")
    return int(text)


class ExploreServer(ThreadingHTTPServer):
    """An HTTP server on 127.0.0.1 for one explorer; ``port`` 0 takes any free port."""

    daemon_threads = True

    def __init__(self, explorer: Explorer, port: int, start: str = "0",
                 request_timeout: float = REQUEST_TIMEOUT) -> None:
        self.explorer = explorer
        self.page_text = page(explorer, start)
        self.request_timeout = request_timeout
        try:
            super().__init__((HOST, port), _Handler)
        except OSError as exc:
            raise UsageError(f"cannot listen on {HOST}:{port}: {exc.strerror}; choose another --port "
                             "(0 picks a free one)") from None
        bound = self.server_address[1]
        self.hosts = (f"{HOST}:{bound}", f"localhost:{bound}")
        """The ``Host`` values answered: the bound address, by number or as ``localhost``."""

    @property
    def url(self) -> str:
        return f"http://{HOST}:{self.server_address[1]}/"


def start_path(explorer: Explorer, trace_doc: dict | None) -> str:
    """Where the page opens: the first initial state, or the end of a counterexample replayed in this spec."""
    if trace_doc is None:
        return "0"
    if trace_doc["spec"] != explorer.spec.name:
        raise UsageError(f"the trace is of spec {trace_doc['spec']!r}, not {explorer.spec.name!r}")
    try:
        return ".".join(str(p) for p in explorer.path_of_trace(trace_doc))
    except PathError as exc:
        raise UsageError(f"the trace does not replay: {exc}") from None


def trace_constants(spec: Any, trace_doc: dict) -> tuple[tuple[str, str], ...]:
    """A trace's constants as ``--const`` pairs, so ``explore --trace`` checks the same model by default."""
    out = []
    for name, value in trace_doc["constants"].items():
        if not isinstance(value, (bool, int, str)):
            raise UsageError(f"the trace's constant {name} is not a number, a string or a boolean")
        out.append((str(name), str(value).lower() if isinstance(value, bool) else str(value)))
    return tuple(out)

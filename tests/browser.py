"""Headless Chromium driven over the DevTools protocol on a pipe: click, read the DOM, take screenshots.

Chromium's ``--remote-debugging-pipe`` reads JSON commands on file
descriptor 3 and writes replies and events on 4, NUL-separated; that needs
no websocket library, only the standard library.  Used by the browser tests
(a page is clicked through as a user would) and by ``tests/screenshots.py``.
"""

from __future__ import annotations

import base64
import json
import os
import select
import shutil
import subprocess
import tempfile
import time
from typing import Any

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


class BrowserError(Exception):
    """Chromium failed, timed out, or a script on the page threw."""


class Browser:
    """One headless Chromium with one tab; use as a context manager."""

    def __init__(self, width: int = 1400, height: int = 1000, timeout: float = 60.0) -> None:
        if CHROMIUM is None:
            raise BrowserError("Chromium is not installed")
        self.timeout = timeout
        self.events: list[dict] = []
        self._profile = tempfile.mkdtemp(prefix="modelcheck-chromium-")
        to_child_r, self._to_child = os.pipe()
        self._from_child, from_child_w = os.pipe()

        def wire() -> None:  # in the child: the commands pipe on fd 3, the replies pipe on fd 4
            a, b = os.dup(to_child_r), os.dup(from_child_w)
            os.dup2(a, 3)
            os.dup2(b, 4)

        self._proc = subprocess.Popen(
            [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
             "--disable-background-networking", "--disable-component-update", "--disable-sync",
             "--hide-scrollbars", "--remote-debugging-pipe", f"--user-data-dir={self._profile}", "about:blank"],
            preexec_fn=wire, close_fds=False, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL)
        os.close(to_child_r)
        os.close(from_child_w)
        self._buf = b""
        self._next = 0
        target = self._call("Target.createTarget", {"url": "about:blank"})["targetId"]
        self._session = self._call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        for domain in ("Page", "Runtime"):
            self.call(f"{domain}.enable")
        self.resize(width, height)

    def __enter__(self) -> "Browser":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    # -- protocol ------------------------------------------------------------------------------

    def _read(self, deadline: float) -> dict:
        while b"\0" not in self._buf:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self._from_child], [], [], left)[0]:
                raise BrowserError("Chromium did not answer in time")
            chunk = os.read(self._from_child, 1 << 16)
            if not chunk:
                raise BrowserError("Chromium closed the connection")
            self._buf += chunk
        raw, self._buf = self._buf.split(b"\0", 1)
        return json.loads(raw)

    def _call(self, method: str, params: dict | None = None, session: str | None = None) -> dict:
        self._next += 1
        msg: dict[str, Any] = {"id": self._next, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = session
        os.write(self._to_child, json.dumps(msg).encode() + b"\0")
        deadline = time.monotonic() + self.timeout
        while True:
            reply = self._read(deadline)
            if reply.get("id") == self._next:
                if "error" in reply:
                    raise BrowserError(f"{method}: {reply['error'].get('message')}")
                return reply.get("result", {})
            self.events.append(reply)

    def call(self, method: str, params: dict | None = None) -> dict:
        """One DevTools command in the tab."""
        return self._call(method, params, self._session)

    # -- what tests use ------------------------------------------------------------------------

    def resize(self, width: int, height: int) -> None:
        self.call("Emulation.setDeviceMetricsOverride",
                  {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False})

    def goto(self, url: str, ready: str = "document.readyState === 'complete'") -> None:
        """Open ``url`` and wait until ``ready`` (a JavaScript expression) is true."""
        self.call("Page.navigate", {"url": url})
        time.sleep(0.2)
        self.wait(ready)

    def eval(self, expression: str) -> Any:
        """The value of a JavaScript expression in the page (promises awaited)."""
        r = self.call("Runtime.evaluate", {"expression": expression, "returnByValue": True, "awaitPromise": True})
        if "exceptionDetails" in r:
            raise BrowserError(f"{expression[:80]!r} threw: {r['exceptionDetails'].get('text')} "
                               f"{r['exceptionDetails'].get('exception', {}).get('description', '')}")
        return r.get("result", {}).get("value")

    def wait(self, condition: str, timeout: float | None = None) -> None:
        """Wait until a JavaScript expression is true."""
        deadline = time.monotonic() + (timeout or self.timeout)
        while time.monotonic() < deadline:
            if self.eval(f"Boolean({condition})"):
                return
            time.sleep(0.05)
        raise BrowserError(f"waited in vain for {condition}")

    def click(self, selector: str) -> None:
        """Click the first element matching a CSS selector, as a user would (a real mouse event at its centre)."""
        box = self.eval(f"(function () {{ var e = document.querySelector({json.dumps(selector)}); if (!e) return null;"
                        " e.scrollIntoView({block: 'center'}); var r = e.getBoundingClientRect();"
                        " return [r.left + r.width / 2, r.top + r.height / 2]; })()")
        if box is None:
            raise BrowserError(f"nothing matches {selector}")
        for kind in ("mousePressed", "mouseReleased"):
            self.call("Input.dispatchMouseEvent", {"type": kind, "x": box[0], "y": box[1], "button": "left",
                                                   "clickCount": 1})

    def key(self, key: str, code: str | None = None) -> None:
        """Press and release one key (``ArrowDown``, ``Tab``...) in whatever has the focus."""
        codes = {"ArrowDown": 40, "ArrowUp": 38, "ArrowLeft": 37, "ArrowRight": 39, "Tab": 9, "Enter": 13}
        for kind in ("rawKeyDown", "keyUp"):
            self.call("Input.dispatchKeyEvent", {"type": kind, "key": key, "code": code or key,
                                                 "windowsVirtualKeyCode": codes.get(key, 0)})

    def screenshot(self, path: str, full_page: bool = False) -> None:
        """A PNG of the viewport, or of the whole page."""
        params: dict[str, Any] = {"format": "png"}
        if full_page:
            size = self.eval("[document.documentElement.scrollWidth, document.documentElement.scrollHeight]")
            params.update(captureBeyondViewport=True, clip={"x": 0, "y": 0, "width": size[0], "height": size[1],
                                                            "scale": 1})
        data = self.call("Page.captureScreenshot", params)["data"]
        with open(path, "wb") as f:
            f.write(base64.b64decode(data))

    def errors(self) -> list[str]:
        """Exceptions thrown and console errors the page reported so far."""
        out = []
        for ev in self.events:
            if ev.get("method") == "Runtime.exceptionThrown":
                d = ev["params"]["exceptionDetails"]
                out.append(d.get("exception", {}).get("description") or d.get("text", "exception"))
            elif ev.get("method") == "Runtime.consoleAPICalled" and ev["params"].get("type") == "error":
                out.append(" ".join(str(a.get("value", a.get("description", ""))) for a in ev["params"]["args"]))
        return out

    def close(self) -> None:
        try:
            self._call("Browser.close")
        except (BrowserError, OSError):
            pass
        try:
            self._proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self._proc.kill()
            self._proc.wait()
        for fd in (self._to_child, self._from_child):
            try:
                os.close(fd)
            except OSError:
                pass
        shutil.rmtree(self._profile, ignore_errors=True)


def label_problems(b: Browser, labels: str, cell: str) -> list[str]:
    """The elements matching ``labels`` that are under 11 px, leave their enclosing ``cell`` or overlap another."""
    return b.eval("""(function (labels, cellSel) {
      var out = [], boxes = [];
      document.querySelectorAll(labels).forEach(function (e) {
        var r = e.getBoundingClientRect(), size = parseFloat(getComputedStyle(e).fontSize);
        if (size < 11) { out.push(e.textContent + ' is ' + size + 'px'); }
        var cell = e.closest(cellSel).getBoundingClientRect();
        if (r.left < cell.left - 0.5 || r.right > cell.right + 0.5 || r.top < cell.top - 0.5 || r.bottom > cell.bottom + 0.5) {
          out.push(e.textContent + ' leaves its cell');
        }
        boxes.forEach(function (o) {
          if (r.left < o.r.right && o.r.left < r.right && r.top < o.r.bottom && o.r.top < r.bottom) {
            out.push(e.textContent + ' overlaps ' + o.text);
          }
        });
        boxes.push({r: r, text: e.textContent});
      });
      return out;
    })(%s, %s)""" % (json.dumps(labels), json.dumps(cell)))


"""Take the screenshots shown in docs/rendering.md: ``.venv/bin/python tests/screenshots.py docs/images``.

Trace pages, sequence diagrams and the explorer, each at 1400 and 800 pixels
wide, in headless Chromium (``tests/browser.py``).  Not a test: run it after
changing what a page looks like, look at every picture, and commit them.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from browser import Browser  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
KNOWN = os.path.join(ROOT, "counterexamples", "known")
READY = "document.body && document.body.dataset.ready === 'yes'"


def scroll_to(b: Browser, selector: str) -> None:
    b.eval(f"document.querySelector({json.dumps(selector)}).scrollIntoView({{block: 'start'}}); true")
    time.sleep(0.2)


def trace_pages(b: Browser, out: str, width: int) -> None:
    page = "file://" + os.path.join(KNOWN, "hw-data-loss", "trace.html")
    b.resize(width, 1000)
    b.goto(page + "#step=9", READY)
    b.eval("window.scrollTo(0, 0); true")
    b.screenshot(os.path.join(out, f"trace-page-{width}.png"))
    scroll_to(b, "#lanes")
    b.screenshot(os.path.join(out, f"trace-lanes-{width}.png"))
    story = "file://" + os.path.join(KNOWN, "seeds-1-hw-data-loss", "trace.html")
    b.goto(story + "#step=5", READY)
    scroll_to(b, "#lanes")
    b.screenshot(os.path.join(out, f"story1-lanes-{width}.png"))


def sequence_diagrams(b: Browser, out: str, width: int) -> None:
    for name, shot in (("seeds-3-kip101-fast-leader-changes", "sequence-kip101"),
                       ("seeds-1-hw-data-loss", "sequence-story1"),
                       ("producer-duplicate", "sequence-producer-duplicate")):
        b.resize(width, 1000)
        b.goto("file://" + os.path.join(KNOWN, name, "trace.html"), READY)
        scroll_to(b, "#messages")
        b.screenshot(os.path.join(out, f"{shot}-{width}.png"))


def explorer(b: Browser, out: str, width: int) -> None:
    trace = os.path.join(KNOWN, "hw-data-loss", "trace.json")
    p = subprocess.Popen([sys.executable, "-m", "modelcheck", "explore", "truncate-to-hw", "--trace", trace,
                          "--port", "0"], cwd=ROOT, stdout=subprocess.PIPE, text=True)
    try:
        url = re.search(r"(http://127\.0\.0\.1:\d+/)", p.stdout.readline()).group(1)
        b.resize(width, 1000)
        b.goto(url, READY)
        b.screenshot(os.path.join(out, f"explorer-{width}.png"))
        b.click("#cmp-go")
        b.wait("!document.getElementById('compare').hidden")
        scroll_to(b, "#compare")
        b.screenshot(os.path.join(out, f"explorer-compare-{width}.png"))
    finally:
        p.send_signal(signal.SIGINT)
        p.wait(timeout=20)


def main(out: str) -> None:
    os.makedirs(out, exist_ok=True)
    with Browser() as b:
        for width in (1400, 800):
            trace_pages(b, out, width)
            sequence_diagrams(b, out, width)
            explorer(b, out, width)
        if b.errors():
            raise SystemExit(f"the pages reported errors: {b.errors()}")
    print("\n".join(sorted(os.listdir(out))))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "docs", "images"))

"""The explorer: replaying paths through a spec, its JSON API on 127.0.0.1, and bad input, as a user meets it."""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import sys
import urllib.error
import urllib.request

import pytest

from conftest import ROOT, run_cli
from modelcheck.spec.constants import build_constants
from modelcheck.counterexamples.explore.server import HOST, ExploreServer
from modelcheck.counterexamples.explore.session import Explorer, PathError, parse_path
from modelcheck.counterexamples.regenerate import KNOWN_DIR
from modelcheck.spec.loader import load_spec

HW_TRACE = os.path.join(KNOWN_DIR, "hw-data-loss", "trace.json")


@pytest.fixture(scope="module")
def explorer():
    spec = load_spec("truncate-to-hw")
    return Explorer(spec, build_constants(spec, ()))


@pytest.fixture(scope="module")
def hw_path(explorer):
    with open(HW_TRACE, encoding="utf-8") as f:
        return explorer.path_of_trace(json.load(f))


def test_a_counterexample_replays_as_a_path(explorer, hw_path):
    assert len(hw_path) == 9
    view = explorer.view(hw_path)
    assert [t["action"] for t in view["trail"]][-1] == "BecomeFollowerTruncateToHighWatermark(leader=r1, replica=r3)"
    strong = next(i for i in view["invariants"] if i["name"] == "StrongIsr")
    assert not strong["holds"]
    assert strong["explanation"] == ("record 0@e1 at offset 0 is below leader r1's HW 1 but missing on r3, which is "
                                     "in the quorum ISR {r1, r3}")
    assert 'class="cell empty culprit"' in view["lanes"]  # r3's missing offset 0, in red
    assert next(i for i in view["invariants"] if i["name"] == "TypeOk")["holds"]


def test_every_enabled_action_with_its_changes(explorer):
    view = explorer.view([0])
    assert [s["action"] for s in view["successors"]] == [
        "ControllerElectLeader(new_leader=r1)", "ControllerElectLeader(new_leader=r2)",
        "ControllerElectLeader(new_leader=r3)", "ControllerShrinkIsr(replica=r1)", "ControllerShrinkIsr(replica=r2)",
        "ControllerShrinkIsr(replica=r3)"]
    first = view["successors"][0]
    assert "<code>quorumState.leader</code> None &rarr; <b>r1</b>" in first["changes"]
    assert "<b>+ [epoch 0, leader r1, isr {r1, r2, r3}]</b>" in first["changes"]  # appended, not the whole list
    assert first["violates"] == [] and first["mends"] == ["LeaderInIsr"]  # the initial state violates it
    shrink = view["successors"][3]  # shrinking r1 away leaves it violated: not "broken" by this step
    assert (shrink["violates"], shrink["breaks"], shrink["mends"]) == (["LeaderInIsr"], [], [])
    initial = {i["name"]: i for i in view["invariants"]}
    assert not initial["LeaderInIsr"]["holds"] and initial["LeaderInIsrWhenElected"]["holds"]
    assert initial["LeaderInIsr"]["explanation"].startswith("the quorum names no leader (None)")


def test_compare_two_states_side_by_side(explorer, hw_path):
    html = explorer.compare(hw_path, 8, 9)["html"]
    assert "<h4>State 8</h4>" in html and "<h4>State 9</h4>" in html
    assert '<tr class="changed"><td>replicaLog.r3</td><td>[0@e1]</td><td>[]</td></tr>' in html
    with pytest.raises(PathError, match="there is no state 12 on this path"):
        explorer.compare(hw_path, 1, 12)


def test_each_step_of_the_path_lists_its_messages_as_the_trace_page_does(explorer, hw_path):
    """A receive or a drop names a message sent steps earlier: the whole path is followed, as the trace page does."""
    view = explorer.view(hw_path)
    msgs = [t["messages"] for t in view["trail"]]
    assert msgs[0] == "" and msgs[4] == "" and msgs[7] == ""  # the initial state, LeaderWrite, LeaderIncHighWatermark
    assert msgs[1].count('<span class="k">sent</span> controller &rarr;') == 3
    assert ('<li class="dropped"><span class="k">dropped</span> controller &rarr; r1: LeaderAndIsr(epoch 0, leader r1, '
            'isr {r1, r2, r3}) (superseded by epoch 1)</li>') in msgs[3]
    assert '<span class="k">applied</span> controller &rarr; r1: LeaderAndIsr(epoch 1, leader r1, isr {r1, r3})' \
        in msgs[3]
    assert '<span class="k">sent and applied</span> r3 &rarr; r1: Fetch(offset 0)' in msgs[6]
    last = '<span class="k">applied</span> controller &rarr; r3: LeaderAndIsr(epoch 1, leader r1, isr {r1, r3})'
    assert last in msgs[8] and view["messages"] == msgs[8]
    with open(HW_TRACE, encoding="utf-8") as f:  # the trace page's own events for the same steps
        doc = json.load(f)
    assert [bool(m) for m in msgs] == [bool(step.get("messages")) for step in doc["steps"]]


def test_a_documented_finding_is_labelled_as_such(explorer, hw_path):
    """LeaderInIsr as published is violated by Init: its module declares it in FINDINGS, the view says so."""
    from modelcheck.invariants.kafka_isr import FINDINGS

    for spec in (explorer.spec, load_spec("kip320")):
        ex = explorer if spec is explorer.spec else Explorer(spec, build_constants(spec, ()))
        initial = {i["name"]: i for i in ex.view([0])["invariants"]}
        assert initial["LeaderInIsr"]["finding"] == FINDINGS["LeaderInIsr"]
        assert not initial["LeaderInIsr"]["holds"]  # still reported as violated, with its explanation
        assert initial["LeaderInIsr"]["explanation"].startswith("the quorum names no leader")
        assert ex.view([0])["findings"] == {"LeaderInIsr": FINDINGS["LeaderInIsr"]}
    end = {i["name"]: i for i in explorer.view(hw_path)["invariants"]}
    assert "finding" not in end["StrongIsr"] and "finding" not in end["WeakIsr"]  # real violations stay alarms
    other = load_spec("partition-reassignment")  # its own LeaderInIsr is no declared finding
    assert Explorer(other, build_constants(other, ())).findings == {}


@pytest.mark.parametrize("text,message", [
    ("", "the path is empty"),
    ("0.a", "the path must be numbers separated by dots (such as 0.3.1), got '0.a'"),
    ("0..1", "the path must be numbers"),
    ("-1", "the path must be numbers"),
    ("0." + ".".join(["0"] * 10_001), "more than the 10000 the explorer replays"),
])
def test_malformed_paths_are_refused(text, message):
    with pytest.raises(PathError, match=re.escape(message)):
        parse_path(text)


def test_choices_that_are_not_enabled_are_refused(explorer):
    with pytest.raises(PathError, match=re.escape("there is no initial state #3: the spec has 1 (numbered from 0)")):
        explorer.walk([3])
    with pytest.raises(PathError, match=re.escape("step 2 of the path: there is no enabled action #99 in state 1 "
                                                  "(6 are enabled, numbered from 0)")):
        explorer.walk([0, 99])


def test_the_server_listens_on_loopback_only(explorer):
    server = ExploreServer(explorer, 0)
    try:
        assert server.server_address[0] == HOST == "127.0.0.1"
        assert server.url.startswith("http://127.0.0.1:")
    finally:
        server.server_close()


# -- the command, as a user runs it ------------------------------------------------------------------


@pytest.fixture
def serve():
    """Start ``modelcheck explore ARGS --port 0`` and yield its URL; stopped (by its pid) afterwards."""
    started = []

    def start(*args: str) -> str:
        p = subprocess.Popen([sys.executable, "-m", "modelcheck", "explore", *args, "--port", "0"], cwd=ROOT,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        started.append(p)
        line = p.stdout.readline()
        m = re.search(r"at (http://127\.0\.0\.1:\d+/) \(Ctrl-C to stop\)", line)
        assert m, line + p.stderr.read() if p.poll() is not None else line
        return m.group(1)

    yield start
    for p in started:
        p.send_signal(signal.SIGINT)
        try:
            p.wait(timeout=20)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()


def _get(url: str) -> tuple[int, dict | str]:
    try:
        with urllib.request.urlopen(url, timeout=60) as r:
            body = r.read().decode()
            return r.status, json.loads(body) if r.headers["Content-Type"] == "application/json" else body
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read().decode())


@pytest.mark.slow
def test_bad_requests_get_one_line_and_the_server_keeps_serving(serve):
    url = serve("truncate-to-hw")
    status, page = _get(url)
    assert status == 200 and "<title>truncate-to-hw: explorer</title>" in page
    assert "http://" not in page and "https://" not in page  # self-contained: no network
    status, data = _get(url + "api/view?path=0.99")
    assert status == 400
    assert data == {"error": "step 2 of the path: there is no enabled action #99 in state 1 (6 are enabled, "
                             "numbered from 0)"}
    status, data = _get(url + "api/view?path=0.1%3Cscript%3E")
    assert status == 400 and data["error"].startswith("the path must be numbers separated by dots")
    status, data = _get(url + "api/view")
    assert status == 400 and data == {"error": "the request needs path=..."}
    status, data = _get(url + "api/compare?path=0.0&a=1&b=x")
    assert status == 400 and data == {"error": "b must be a step number, got 'x'"}
    status, data = _get(url + "etc/passwd")
    assert status == 404
    status, data = _get(url + "api/view?path=0.0")  # still serving
    assert status == 200 and data["trail"][1]["action"] == "ControllerElectLeader(new_leader=r1)"


@pytest.mark.slow
def test_explore_from_a_counterexample(serve):
    url = serve("truncate-to-hw", "--trace", HW_TRACE)
    status, page = _get(url)
    start = re.search(r'data-start="([0-9.]+)"', page).group(1)
    assert start.count(".") == 8
    status, data = _get(url + "api/view?path=" + start)
    assert status == 200 and data["trail"][-1]["step"] == 9
    assert [i["name"] for i in data["invariants"] if not i["holds"]] == ["WeakIsr", "StrongIsr"]


@pytest.mark.parametrize("args,message", [
    (("kip101", "--trace", HW_TRACE), "error: the trace is of spec 'truncate-to-hw', not 'kip101'"),
    (("truncate-to-hw", "--trace", HW_TRACE, "--const", "Replicas=2"),
     "error: the trace does not replay: the trace's first state is not an initial state of this spec"),
    (("truncate-to-hw", "--trace", "missing.json"), "error: cannot read trace file missing.json"),
    (("no-such-spec",), "error: unknown spec"),
])
def test_bad_command_lines_exit_2_with_one_line(args, message):
    p = run_cli("explore", *args, "--port", "0", timeout=120)
    assert p.returncode == 2, p.stderr
    assert p.stderr.startswith(message) and "Traceback" not in p.stderr and p.stderr.count("\n") == 1


def test_a_port_in_use_is_one_line():
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen(1)
        port = busy.getsockname()[1]
        p = subprocess.run([sys.executable, "-m", "modelcheck", "explore", "truncate-to-hw", "--port", str(port)],
                           cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert p.returncode == 2
    assert p.stderr.startswith(f"error: cannot listen on 127.0.0.1:{port}: ") and "Traceback" not in p.stderr


# -- hostile requests and failing specs -----------------------------------------------------------


def _raw(url: str, request: bytes) -> bytes:
    """``request`` sent as it is on a fresh connection; the whole answer (the server closes after one)."""
    port = int(url.rsplit(":", 1)[1].strip("/"))
    with socket.create_connection((HOST, port), timeout=60) as sock:
        sock.sendall(request)
        chunks = []
        while True:
            chunk = sock.recv(65536)
            if not chunk:
                return b"".join(chunks)
            chunks.append(chunk)


@pytest.mark.parametrize("text", ["\u00b2", "0.\u00b2", "0.\u0663", "\uff10"])
def test_unicode_digits_are_refused_as_paths(text):
    """``str.isdigit`` accepts ``²`` (which ``int`` refuses) and ``٣`` (which it takes): only ASCII digits count."""
    with pytest.raises(PathError, match="the path must be numbers separated by dots"):
        parse_path(text)


@pytest.mark.slow
def test_unicode_digits_get_400_and_the_server_keeps_serving(serve):
    url = serve("truncate-to-hw")
    status, data = _get(url + "api/view?path=%C2%B2")
    assert status == 400 and data["error"].startswith("the path must be numbers separated by dots")
    status, data = _get(url + "api/compare?path=0.0&a=1&b=%C2%B2")
    assert status == 400 and data["error"].startswith("b must be a step number")
    status, data = _get(url + "api/view?path=0.0")
    assert status == 200


@pytest.mark.slow
@pytest.mark.parametrize("fails,message", [
    ("1", "spec explore-raises: invariant Small raised ZeroDivisionError: the invariant fails at 2"),
    ("2", "spec explore-raises: lanes raised KeyError: 'the lanes hook fails at 2'"),
])
def test_a_spec_that_raises_on_a_successor_gets_500_with_one_line(serve, fails, message):
    url = serve(str(ROOT / "tests" / "models" / "explore_raises.py"), "--const", f"Fails={fails}")
    status, data = _get(url + "api/view?path=0")
    assert status == 200
    status, data = _get(url + "api/view?path=0.0")  # state 1: its successor, 2, makes the spec raise
    assert status == 500, data
    assert data["error"].startswith(message) and "\n" not in data["error"]
    status, data = _get(url + "api/view?path=0")  # still serving
    assert status == 200


@pytest.mark.slow
def test_another_host_is_refused(serve):
    """DNS rebinding: a page of another site whose name resolves to 127.0.0.1 sends its own Host."""
    url = serve("truncate-to-hw")
    answer = _raw(url, b"GET /api/view?path=0 HTTP/1.1\r\nHost: evil.example:80\r\nConnection: close\r\n\r\n")
    assert answer.startswith(b"HTTP/1.0 421 ") or answer.startswith(b"HTTP/1.1 421 "), answer[:200]
    assert b"trail" not in answer
    port = url.rsplit(":", 1)[1].strip("/")
    for host in (f"127.0.0.1:{port}", f"localhost:{port}"):
        answer = _raw(url, f"GET /api/view?path=0 HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n".encode())
        assert b" 200 " in answer.split(b"\r\n", 1)[0] and b"trail" in answer


@pytest.mark.slow
def test_a_connection_that_sends_nothing_is_closed(explorer):
    """Half-open or idle connections are closed after the request timeout, and others are answered meanwhile."""
    import threading

    server = ExploreServer(explorer, 0, request_timeout=1.0)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        port = server.server_address[1]
        idle = socket.create_connection((HOST, port), timeout=30)
        idle.sendall(b"GET /api/view?path=0 HTTP/1.1\r\n")  # and never the rest
        status, _data = _get(f"http://{HOST}:{port}/api/view?path=0")
        assert status == 200
        assert idle.recv(65536) == b""  # closed by the server, long before this socket's 30 s
        idle.close()
    finally:
        server.shutdown()
        server.server_close()


def test_the_replay_cache_is_bounded_in_bytes(monkeypatch):
    from modelcheck.counterexamples.explore import session

    monkeypatch.setattr(session, "CACHE_BYTES", 200_000)
    spec = load_spec(str(ROOT / "tests" / "models" / "die_hard.py"))  # the jugs never deadlock
    ex = Explorer(spec, build_constants(spec, ()))
    path = [0]
    for _ in range(60):  # long paths: 60 entries, each holding every state of its path
        path.append(0)
        ex.walk(path)
        assert ex.cache_bytes <= 200_000
    assert 0 < len(ex._cache) < 60


# -- fuzz: random requests -------------------------------------------------------------------------------

def _random_path(rng) -> str:
    """A path as a user, a script or an attacker might send it: mostly near-valid, sometimes hostile."""
    pieces = [str(rng.choice([0, 1, 2, 3, 9, 99, 10**30])) for _ in range(rng.randint(0, 12))]
    path = ".".join(pieces)
    damage = rng.random()
    if damage < 0.15:
        path += rng.choice([".", "..", "-1", ".x", "%00", "%FF", "%C2%B2", "+", " ", "\u0663"])
    elif damage < 0.25:
        path = rng.choice(["", "%", "%%", "0" * 5000, ".".join(["0"] * 20_000), "1e3", "0x1", "\ud800"])
    return path


def _random_target(rng) -> str:
    from urllib.parse import quote

    page = rng.choice(["/api/view", "/api/view", "/api/compare", "/", "/api/nope", "//api/view"])
    query = [f"path={quote(_random_path(rng), safe='.%', errors='surrogatepass')}"]
    if page == "/api/compare" or rng.random() < 0.2:
        query += [f"a={rng.choice(['0', '1', '-1', '99', '²', ''])}", f"b={rng.choice(['0', '2', '10' * 20])}"]
    rng.shuffle(query)
    return page + "?" + "&".join(query[: rng.randint(0, len(query))])


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(2))
def test_random_requests_get_an_answer_and_the_server_keeps_serving(serve, seed):
    """Every request is answered with 200, 400 or 404 (a 500 is only for a spec that raises, which
    truncate-to-hw does not) and a JSON body for the API; the server answers a good request afterwards."""
    import random

    url = serve("truncate-to-hw")
    host = url.split("//", 1)[1].rstrip("/")
    rng = random.Random(seed)
    statuses = set()
    for _ in range(120):
        target = _random_target(rng)
        answer = _raw(url, f"GET {target} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n".encode(
            "utf-8", "surrogatepass"))
        head, _, body = answer.partition(b"\r\n\r\n")
        status = int(head.split(b" ", 2)[1])
        statuses.add(status)
        assert status in (200, 400, 404), (target, answer[:300])
        if target.startswith("/api/"):
            assert isinstance(json.loads(body), dict), target
    assert {200, 400} <= statuses
    assert _get(url + "api/view?path=0")[0] == 200


@pytest.mark.slow
def test_random_bytes_as_a_request_leave_the_server_serving(serve):
    import random

    url = serve("truncate-to-hw")
    rng = random.Random(7)
    for _ in range(40):
        junk = bytes(rng.randrange(256) for _ in range(rng.randint(1, 300)))
        try:
            _raw(url, junk + b"\r\n\r\n")
        except OSError:  # the server may close a connection whose request it cannot read
            pass
    assert _get(url + "api/view?path=0")[0] == 200

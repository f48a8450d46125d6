"""docs/writing-specs.md runs as printed: every code block is executed, and what it prints is what the doc shows.

The tutorial's rules for its blocks: a ``python`` block whose first line is
``# file: NAME`` is appended to the file NAME (the spec is assembled block by
block, as a reader copies it); any other ``python`` block is run as a
script; every line of an ``sh`` block is run as a command, and must end with
``# exit status N``; a ``text`` block lists lines that the block before it
printed, in that order (each one a part of a printed line).  The numbers the
doc gives (states, depth, trace lengths) are also worked out independently
with the naive explorer (tests/naive.py).
"""

from __future__ import annotations

import importlib.util
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ROOT
from naive import naive_explore, naive_shortest

DOC = ROOT / "docs" / "writing-specs.md"
EXIT = re.compile(r"\s+# exit status (\d+)\s*$")


def blocks() -> list[tuple[str, str]]:
    """The doc's fenced blocks, (language, body), in order."""
    return re.findall(r"^```(\w+)\n(.*?)^```$", DOC.read_text(encoding="utf-8"), re.S | re.M)


def command(line: str) -> tuple[list[str], int]:
    """A doc command as argv (``modelcheck`` and ``python`` as this interpreter runs them) and its exit status."""
    m = EXIT.search(line)
    assert m, f"every command in the doc says its exit status: {line!r}"
    argv = shlex.split(line[:m.start()])
    head = {"modelcheck": [sys.executable, "-m", "modelcheck"], "python": [sys.executable]}[argv[0]]
    return head + argv[1:], int(m.group(1))


def has_c_compiler() -> bool:
    from modelcheck.build.compiled import c_compiler

    cc = c_compiler()
    return bool(cc) and shutil.which(cc[0]) is not None and importlib.util.find_spec("Cython") is not None


def test_every_block_of_the_tutorial_runs_as_printed(tmp_path):
    env = dict(os.environ, PYTHONPATH=str(tmp_path))
    env.pop("MODELCHECK_USER_BUILD", None)  # the tutorial shows the compiled build of the user's spec
    output: str | None = None
    languages = set()
    ran = 0
    for lang, body in blocks():
        languages.add(lang)
        if lang == "python" and body.startswith("# file: "):
            name = body.split("\n", 1)[0][len("# file: "):].strip()
            with open(tmp_path / name, "a", encoding="utf-8") as f:
                f.write(body)
            output = None
        elif lang == "python":
            p = subprocess.run([sys.executable, "-c", body], cwd=tmp_path, env=env, capture_output=True, text=True,
                               timeout=600)
            assert p.returncode == 0, p.stderr[-3000:]
            output = p.stdout + p.stderr
            ran += 1
        elif lang == "sh":
            output = ""
            for line in filter(str.strip, body.splitlines()):
                argv, status = command(line)
                if "compile" in argv and not has_c_compiler():
                    output = None  # nothing to compare: this machine cannot build
                    break
                p = subprocess.run(argv, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=900)
                assert p.returncode == status, (line, p.stdout[-3000:], p.stderr[-3000:])
                output += p.stdout + p.stderr
                ran += 1
        elif lang == "text":
            if output is None:
                continue
            at = 0
            lines = output.splitlines()
            for expected in filter(str.strip, body.splitlines()):
                while at < len(lines) and expected.strip() not in lines[at]:
                    at += 1
                assert at < len(lines), f"{expected!r} is not printed (in order) by the block before:\n{output}"
                at += 1
        else:
            raise AssertionError(f"a {lang} block cannot be run; the tutorial's blocks are python, sh and text")
    assert languages == {"python", "sh", "text"}
    planned = sum(len(list(filter(str.strip, body.splitlines()))) if lang == "sh" else 1
                  for lang, body in blocks() if lang == "sh" or (lang == "python" and not body.startswith("# file: ")))
    assert ran == planned or not has_c_compiler()  # every command and script ran (the compile ones need a compiler)
    assert (tmp_path / "my_protocol.py").is_file()


@pytest.fixture(scope="module")
def quorum_log(tmp_path_factory):
    """The tutorial's spec, assembled from its ``# file: quorum_log.py`` blocks and imported."""
    path = tmp_path_factory.mktemp("tutorial") / "quorum_log.py"
    path.write_text("".join(body for lang, body in blocks()
                            if lang == "python" and body.startswith("# file: quorum_log.py")), encoding="utf-8")
    spec = importlib.util.spec_from_file_location("tutorial_quorum_log", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_tutorials_numbers_by_the_naive_explorer(quorum_log):
    """1,734 distinct states, 3,349 generated, depth 15; shortest violations of 7 and 12 states, as the doc says."""
    spec, Config = quorum_log.SPEC, quorum_log.Config
    assert naive_explore(spec, Config()) == {"distinct": 1734, "generated": 3349, "depth": 15}
    assert naive_shortest(spec, Config(Clean=False), "CommittedSurvives") == 7
    assert naive_shortest(spec, Config(CommitRule="any-term", MaxTerm=4), "CommittedSurvives") == 12
    # And Raft's rule keeps the record in that configuration too (no violating state at all).
    assert naive_shortest(spec, Config(MaxTerm=4), "CommittedSurvives") == 0


def test_the_doc_shows_the_numbers_the_naive_explorer_found():
    text = DOC.read_text(encoding="utf-8")
    assert "3,349 states generated, 1,734 distinct states found" in text
    assert "(7 states)" in text and "(12 states)" in text


def test_modelcheck_new_refuses_to_overwrite(tmp_path):
    (tmp_path / "taken.py").write_text("# mine\n")
    p = subprocess.run([sys.executable, "-m", "modelcheck", "new", "taken"], cwd=tmp_path, capture_output=True,
                       text=True, timeout=120)
    assert p.returncode == 2
    assert p.stderr.strip() == "error: taken.py exists; choose another name or remove it"
    assert (tmp_path / "taken.py").read_text() == "# mine\n"


@pytest.mark.parametrize("name", ["my-protocol", "1abc", "class"])
def test_modelcheck_new_wants_a_python_module_name(tmp_path, name):
    p = subprocess.run([sys.executable, "-m", "modelcheck", "new", name], cwd=tmp_path, capture_output=True,
                       text=True, timeout=120)
    assert p.returncode == 2
    assert "is not a Python module name" in p.stderr
    assert list(Path(tmp_path).iterdir()) == []

"""Running a document's code blocks as printed (docs/writing-specs.md, docs/porting-from-tla.md).

The documents' rules for their blocks: a ``python`` block whose first line
is ``# file: NAME`` is appended to the file NAME (a spec is assembled block
by block, as a reader copies it); any other ``python`` block is run as a
script; every line of an ``sh`` block is run as a command, and must end with
``# exit status N``; a ``text`` block lists lines that the block before it
printed, in that order (each one a part of a printed line).
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

EXIT = re.compile(r"\s+# exit status (\d+)\s*$")


def blocks(doc: Path) -> list[tuple[str, str]]:
    """The doc's fenced blocks, (language, body), in order."""
    return re.findall(r"^```(\w+)\n(.*?)^```$", doc.read_text(encoding="utf-8"), re.S | re.M)


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


def run_blocks(doc: Path, tmp_path: Path) -> set[str]:
    """Run every block of ``doc`` in ``tmp_path`` and check what it prints; the languages met.

    Every script and command must run (those that compile need a C compiler).
    """
    env = dict(os.environ, PYTHONPATH=str(tmp_path))
    env.pop("MODELCHECK_USER_BUILD", None)  # the docs show the compiled build of the user's spec
    output: str | None = None
    languages = set()
    ran = 0
    for lang, body in blocks(doc):
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
            raise AssertionError(f"a {lang} block cannot be run; the docs' blocks are python, sh and text")
    planned = sum(len(list(filter(str.strip, body.splitlines()))) if lang == "sh" else 1
                  for lang, body in blocks(doc) if lang == "sh" or (lang == "python" and not body.startswith("# file: ")))
    assert ran == planned or not has_c_compiler()  # every command and script ran (the compile ones need a compiler)
    return languages


def import_assembled(doc: Path, name: str, directory: Path, module_name: str):
    """The module a doc assembles from its ``# file: NAME`` blocks, written to ``directory`` and imported."""
    path = directory / name
    path.write_text("".join(body for lang, body in blocks(doc)
                            if lang == "python" and body.startswith(f"# file: {name}")), encoding="utf-8")
    spec = importlib.util.spec_from_file_location(module_name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module

"""Writing output files so that nothing is lost and nothing is overwritten by accident.

Output directories are checked before a long search starts, not after it.
Each file is written under a temporary name that cannot be planted
(``mkstemp`` in the target directory: a fresh name, opened with
``O_EXCL``, never through a symbolic link) and renamed over its target, so
a reader sees the old file or the new one, and a link planted at the
target's name is replaced, not followed.
"""

from __future__ import annotations

import os
import tempfile

from modelcheck.errors import UsageError


def check_writable_directory(directory: str, what: str) -> None:
    """Create ``directory`` if needed and make sure files can be created in it; one clear line if not."""
    try:
        os.makedirs(directory, exist_ok=True)
        probe = tempfile.NamedTemporaryFile(dir=directory, prefix=".modelcheck-probe-", delete=True)
        probe.close()
    except OSError as exc:
        raise UsageError(f"{what} {directory}: cannot write there: {exc.strerror or exc}") from None


def check_writable_file(path: str, what: str) -> None:
    """The directory ``path`` goes into exists and takes new files (``path`` itself is not created)."""
    directory = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(directory):
        raise UsageError(f"{what} {path}: the directory {directory} does not exist")
    if os.path.isdir(path):
        raise UsageError(f"{what} {path}: is a directory")
    try:
        probe = tempfile.NamedTemporaryFile(dir=directory, prefix=".modelcheck-probe-", delete=True)
        probe.close()
    except OSError as exc:
        raise UsageError(f"{what} {path}: cannot write there: {exc.strerror or exc}") from None


def write_atomically(path: str, data: bytes) -> None:
    """Replace ``path`` with ``data`` through a fresh temporary file in the same directory."""
    directory = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(dir=directory, prefix="." + os.path.basename(path) + ".", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise

"""Finds the packages to install; the metadata and the rest of the options stay in setup.cfg.

setup.cfg's ``package_dir`` maps each installed root package (``modelcheck``,
``modelcheck.specs``, ...) to its folder in the repository.  Every package under
those folders is installed, found here by its ``__init__.py``, so that a new
subpackage cannot be left out of the wheel by a list nobody updated.
"""

import configparser
import os

from setuptools import find_packages, setup

HERE = os.path.dirname(os.path.abspath(__file__))


def package_dir() -> dict[str, str]:
    """setup.cfg's ``[options] package_dir``: installed package name -> folder."""
    cfg = configparser.ConfigParser()
    cfg.read(os.path.join(HERE, "setup.cfg"), encoding="utf-8")
    lines = cfg.get("options", "package_dir").strip().splitlines()
    return {name.strip(): folder.strip() for name, _, folder in (line.partition("=") for line in lines)}


def packages() -> list[str]:
    """Each mapped root and every package below its folder, under the root's installed name."""
    out = []
    for name, folder in package_dir().items():
        out.append(name)
        out += [f"{name}.{sub}" for sub in find_packages(os.path.join(HERE, folder))]
    return sorted(set(out))


setup(packages=packages())

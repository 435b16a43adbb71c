"""The op families re-exported by ``arignote.tensor`` must not shadow each other's names."""

from __future__ import annotations

import importlib
import pkgutil
from collections import defaultdict

import arignote.tensor as pt


def family_exports() -> dict[str, list[str]]:
    owners: dict[str, list[str]] = defaultdict(list)
    for info in pkgutil.iter_modules(pt.__path__):
        module = importlib.import_module(f"arignote.tensor.{info.name}")
        for name in getattr(module, "__all__", ()):
            owners[name].append(info.name)
    return owners


def test_no_two_families_export_the_same_name():
    clashes = {n: m for n, m in family_exports().items() if len(set(m)) > 1}
    for name, modules in clashes.items():
        objects = {
            id(getattr(importlib.import_module(f"arignote.tensor.{m}"), name)) for m in modules
        }
        assert len(objects) == 1, f"{name} is exported with different meanings by {modules}"


def test_every_family_export_is_reachable_from_the_package():
    for name, modules in family_exports().items():
        assert hasattr(pt, name), f"pt.{name} (from {modules}) is missing"

"""Saving graphs and compiled functions without pickle: ``save(obj, path)`` and ``load(path)``.

The file is a zip archive holding ``arignote.json`` (the format's name and version and the
objects as data, see :mod:`arignote.serialize.encoder`) and ``arrays.npz`` (constants, shared
values and other arrays, read with ``allow_pickle=False``). Loading never runs code from the
file: ops, types and variables are rebuilt from a registry of classes (arignote's own, and a
user's after :func:`register_op_class`), by their ``__setstate__``. What :func:`load` refuses
raises a :class:`FormatError` subclass (see :mod:`arignote.serialize.errors`).

What can be saved: variables (alone, or in lists, tuples and dicts, whose graphs are saved
with them), ``FunctionGraph``\\ s, compiled functions (their rewritten graph, inputs, outputs,
updates, mode and the current values of their shared variables and states) and any nesting
of these. Shared variables used by several saved objects stay shared after loading.
"""

from __future__ import annotations

import json
import os
import zipfile
from typing import Any

import numpy as np

from arignote.serialize.decoder import Decoder
from arignote.serialize.encoder import Encoder
from arignote.serialize.errors import (
    FormatError,
    FormatVersionError,
    SaveError,
    UnregisteredClassError,
    UnsafeFileError,
)
from arignote.serialize.registry import register_op_class

FORMAT = "arignote"
VERSION = 1
DOCUMENT = "arignote.json"
ARRAYS = "arrays.npz"
_PICKLE_MARKERS = (b"\x80", b"(dp", b"(lp", b"cnumpy", b"ccopy_reg")

__all__ = [
    "FormatError",
    "FormatVersionError",
    "SaveError",
    "UnregisteredClassError",
    "UnsafeFileError",
    "load",
    "register_op_class",
    "save",
]


def save(obj: Any, path: str | os.PathLike) -> None:
    """Write ``obj`` (graphs, compiled functions, see the module docstring) to ``path``.

    Parameters
    ----------
    obj
        A variable, a FunctionGraph, a compiled function, or lists, tuples and dicts of them.
    path
        The file to write (a zip archive; ``.arignote`` is a good suffix).

    Raises
    ------
    SaveError
        ``obj`` holds what a data-only file cannot (a Python function in an op, an object
        array, a mode built from objects).
    """
    encoder = Encoder()
    root = encoder.value(obj)
    encoder.finish()
    document = {"format": FORMAT, "version": VERSION, "items": encoder.items, "root": root}
    text = json.dumps(document, allow_nan=False, separators=(",", ":"))
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        archive.writestr(DOCUMENT, text)
        with archive.open(ARRAYS, "w") as member:
            np.savez(member, **encoder.arrays)


def load(path: str | os.PathLike) -> Any:
    """Read back what :func:`save` wrote, without running any code from the file.

    Raises
    ------
    UnsafeFileError
        The file is a pickle, or carries pickled objects.
    UnregisteredClassError
        The file names a class that is not registered (see :func:`register_op_class`).
    FormatVersionError
        The file was written by a newer format version.
    FormatError
        Anything else wrong with the file (not an archive, truncated, malformed).
    """
    document, arrays = _read(path)
    try:
        decoder = Decoder(document["items"], arrays)
        return decoder.value(document["root"])
    except FormatError:
        raise
    except (KeyError, TypeError, ValueError, IndexError, AttributeError) as err:
        raise FormatError(f"{os.fspath(path)!r} is not a valid arignote file: {err!r}") from err


def _read(path: str | os.PathLike) -> tuple[dict, dict]:
    with open(path, "rb") as f:
        head = f.read(4)
    if head.startswith(_PICKLE_MARKERS):
        raise UnsafeFileError(
            f"{os.fspath(path)!r} is a pickle, not an arignote file: loading it would run code "
            "from the file. Use pickle.load only on files you trust."
        )
    try:
        with zipfile.ZipFile(path) as archive:
            names = set(archive.namelist())
            if DOCUMENT not in names or ARRAYS not in names:
                raise FormatError(f"{os.fspath(path)!r} lacks {DOCUMENT} or {ARRAYS}")
            document = _document(archive.read(DOCUMENT), path)
            arrays = _arrays(archive, path)
    except (zipfile.BadZipFile, EOFError, zipfile.LargeZipFile, OSError) as err:
        if isinstance(err, FileNotFoundError):
            raise
        raise FormatError(
            f"{os.fspath(path)!r} is not a complete arignote file (truncated or corrupted): {err}"
        ) from err
    return document, arrays


def _document(raw: bytes, path: Any) -> dict:
    try:
        document = json.loads(raw.decode("utf-8"), parse_constant=_no_constant)
    except (UnicodeDecodeError, json.JSONDecodeError) as err:
        raise FormatError(f"{os.fspath(path)!r}: its JSON document is malformed: {err}") from err
    if not isinstance(document, dict) or document.get("format") != FORMAT:
        raise FormatError(f"{os.fspath(path)!r} is not an arignote file (format name)")
    version = document.get("version")
    if not isinstance(version, int) or isinstance(version, bool):
        raise FormatError(f"{os.fspath(path)!r} has no valid format version")
    if version > VERSION:
        raise FormatVersionError(
            f"{os.fspath(path)!r} was written in format version {version}; this arignote "
            f"reads versions up to {VERSION}: upgrade arignote to load it"
        )
    if not isinstance(document.get("items"), list) or "root" not in document:
        raise FormatError(f"{os.fspath(path)!r}: the document lacks its items or root")
    return document


def _no_constant(name: str) -> Any:
    raise FormatError(f"Non-standard JSON constant {name} in the document")


def _arrays(archive: zipfile.ZipFile, path: Any) -> dict:
    with archive.open(ARRAYS) as member:
        try:
            with np.load(member, allow_pickle=False) as npz:
                return {key: npz[key] for key in npz.files}
        except ValueError as err:
            if "allow_pickle" in str(err):
                raise UnsafeFileError(
                    f"{os.fspath(path)!r} holds pickled (object) arrays: refused, loading them "
                    "would run code from the file"
                ) from err
            raise FormatError(f"{os.fspath(path)!r}: its arrays are unreadable: {err}") from err

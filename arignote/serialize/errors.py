"""The exceptions of :mod:`arignote.serialize`.

Every file that :func:`arignote.load` refuses raises a :class:`FormatError` (a ``ValueError``)
or one of its subclasses, before any object of the file is built: the file is not an arignote
archive, or is truncated (:class:`FormatError`), carries a pickle payload
(:class:`UnsafeFileError`), names a class nobody registered (:class:`UnregisteredClassError`),
or was written by a newer format version (:class:`FormatVersionError`). :func:`arignote.save`
raises :class:`SaveError` (a ``TypeError``) for what a data-only file cannot hold (a Python
function inside an op, an object array, a linker given as an object).
"""

from __future__ import annotations


class FormatError(ValueError):
    """The file is not a valid arignote archive (truncated, corrupted, or of another format)."""


class UnsafeFileError(FormatError):
    """The file carries a pickle payload (code that would run when loaded): refused."""


class UnregisteredClassError(FormatError):
    """The file names a class that is not registered (see :func:`register_op_class`)."""


class FormatVersionError(FormatError):
    """The file was written by a newer version of the format than this arignote reads."""


class SaveError(TypeError):
    """The object holds something a data-only file cannot represent."""

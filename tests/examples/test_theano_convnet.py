"""examples/theano_convnet.py, a Theano-era convolutional network, runs and learns."""

from __future__ import annotations

import ast
import importlib.util
from pathlib import Path

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "theano_convnet.py"


def _load():
    spec = importlib.util.spec_from_file_location("theano_convnet", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_theano_convnet_learns_the_shapes(capsys):
    error = _load().main(n_train=200, n_test=60, n_epochs=8)
    assert error < 0.25  # chance is 0.75
    assert "test error" in capsys.readouterr().out


def test_only_the_imports_name_arignote():
    source = EXAMPLE.read_text()
    docstring_end = ast.parse(source).body[0].end_lineno
    lines = source.splitlines()[docstring_end:]
    mentions = [line for line in lines if "arignote" in line]
    assert mentions and all(
        line.startswith(("import arignote", "from arignote")) for line in mentions
    )

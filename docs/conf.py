"""Sphinx configuration of arignote's documentation site."""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE / "_ext"))
sys.path.insert(0, str(HERE.parent))

import arignote  # noqa: E402

project = "arignote"
author = "the arignote developers"
copyright = "2026, the arignote developers"  # noqa: A001 (Sphinx's name)
release = "0.1.0"

extensions = [
    "myst_nb",
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.intersphinx",
    "sphinx.ext.mathjax",
    "numpydoc",
    "sphinx_gallery.gen_gallery",
    "apigen",
    "benchpage",
]

exclude_patterns = ["_build", "jupyter_execute", "**.ipynb_checkpoints", "gallery/*.ipynb"]
html_theme = "pydata_sphinx_theme"
html_title = "arignote"
html_static_path = ["_static"]
html_css_files = ["custom.css"]
html_theme_options = {
    "navbar_align": "left",
    "show_toc_level": 2,
    "navigation_with_keys": False,
}

# Executed pages: every code cell runs when the site is built, and a failing cell fails the
# build. Results are cached by cell content, so a rebuild runs only what changed.
nb_execution_mode = "cache"
nb_execution_cache_path = str(HERE / "_build" / ".jupyter_cache")
nb_execution_raise_on_error = True
nb_execution_timeout = 120
nb_merge_streams = True
myst_enable_extensions = ["dollarmath", "colon_fence"]

templates_path = ["_templates"]
autosummary_generate = True
autodoc_default_options = {"members": False}
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_xref_param_type = False

# Inventories are shipped in _inv/ (generated offline by tools/make_inventories.py from the
# installed packages): the build reads no network.
intersphinx_mapping = {
    "python": ("https://docs.python.org/3/", str(HERE / "_inv" / "python.inv")),
    "numpy": ("https://numpy.org/doc/stable/", str(HERE / "_inv" / "numpy.inv")),
    "scipy": ("https://docs.scipy.org/doc/scipy/", str(HERE / "_inv" / "scipy.inv")),
    "jax": ("https://docs.jax.dev/en/latest/", str(HERE / "_inv" / "jax.inv")),
}

sphinx_gallery_conf = {
    "examples_dirs": str(HERE.parent / "examples"),
    "gallery_dirs": "gallery",
    "filename_pattern": r"/.*\.py",
    "download_all_examples": False,
    "remove_config_comments": True,
    "within_subsection_order": "FileNameSortKey",
    "write_computation_times": False,
}

suppress_warnings = ["mystnb.unknown_mime_type"]

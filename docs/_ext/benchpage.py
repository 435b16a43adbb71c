"""The benchmarks page: BENCHMARKS.md's latest comparison table as a bar chart of ratios.

At build time the first table of BENCHMARKS.md that compares arignote with PyTensor and JAX is
read, each cell's first number taken as its time, and the ratio of arignote's time to each
anchor's plotted per workload (log scale: below 1 means arignote is faster). The record itself
is included below the chart, so the page is always the latest run.
"""

from __future__ import annotations

import re
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
from sphinx.util import logging

logger = logging.getLogger(__name__)
NUMBER = re.compile(r"\d+(?:\.\d+)?")


def table_rows(lines: list[str], start: int) -> list[list[str]]:
    rows = []
    for line in lines[start:]:
        if not line.startswith("|"):
            break
        rows.append([cell.strip() for cell in line.strip().strip("|").split("|")])
    return rows


def comparison_table(text: str) -> list[list[str]] | None:
    """The first table whose header names arignote, PyTensor and JAX."""
    lines = text.splitlines()
    for i, line in enumerate(lines):
        header = line.lower()
        if (
            line.startswith("|")
            and "arignote" in header
            and "pytensor" in header
            and "jax" in header
        ):
            return table_rows(lines, i)
    return None


def first_number(cell: str) -> float | None:
    match = NUMBER.search(cell.replace(",", ""))
    return float(match.group()) if match else None


def ratios(rows: list[list[str]]) -> dict[str, dict[str, float]]:
    """``{anchor: {workload: arignote time / anchor time}}``."""
    header, body = rows[0], rows[2:]
    ours = next(i for i, name in enumerate(header) if name.lower() == "arignote")
    anchors = {
        i: name
        for i, name in enumerate(header)
        if "pytensor" in name.lower() or "jax" in name.lower()
    }
    result: dict[str, dict[str, float]] = {name: {} for name in anchors.values()}
    for row in body:
        mine = first_number(row[ours]) if len(row) > ours else None
        for i, name in anchors.items():
            theirs = first_number(row[i]) if len(row) > i else None
            if mine and theirs:
                result[name][row[0].split(",")[0]] = mine / theirs
    return result


def draw(result: dict[str, dict[str, float]], path: Path) -> None:
    workloads = sorted({w for per in result.values() for w in per})
    fig, ax = plt.subplots(figsize=(8, 3.6))
    width = 0.8 / max(len(result), 1)
    for k, (anchor, per) in enumerate(result.items()):
        xs = [j + k * width for j, w in enumerate(workloads) if w in per]
        ax.bar(xs, [per[w] for w in workloads if w in per], width, label=f"vs {anchor}")
    ax.axhline(1.0, color="black", linewidth=0.8)
    ax.set_yscale("log")
    ax.set_xticks([j + 0.4 - width / 2 for j in range(len(workloads))], workloads)
    ax.set_ylabel("arignote time / anchor time")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def write_page(app: object) -> None:
    src = Path(app.srcdir)  # type: ignore[attr-defined]
    record = src.parent / "BENCHMARKS.md"
    rows = comparison_table(record.read_text())
    if rows is None:
        logger.warning("BENCHMARKS.md has no table comparing arignote with PyTensor and JAX")
        return
    (src / "_static").mkdir(exist_ok=True)
    draw(ratios(rows), src / "_static" / "benchmark_ratios.png")


def setup(app: object) -> dict:
    app.connect("builder-inited", write_page)  # type: ignore[attr-defined]
    return {"parallel_read_safe": True}

"""``arignote.printing.html``: one self-contained HTML file with an interactive graph view."""

import json
import re
import shutil
import subprocess

import numpy as np
import pytest

import arignote
import arignote.tensor as pt
from arignote.printing.html import graph_data, html


def _profiled_function():
    x, y = pt.dvectors("x", "y")
    w = arignote.shared(np.ones(3), name="w")
    f = arignote.function([x, y], (pt.exp(x) * y + w).sum(), profile=True, name="demo")
    for _ in range(3):
        f(np.ones(3), np.ones(3))
    return f


def _embedded_data(text):
    match = re.search(r'<script type="application/json" id="graph-data">(.*?)</script>', text, re.S)
    return json.loads(match.group(1))


def test_html_is_self_contained_and_carries_the_graph(tmp_path):
    f = _profiled_function()
    path = tmp_path / "graph.html"
    text = html(f, path)
    assert path.read_text(encoding="utf-8") == text
    # nothing fetched from the network: no external scripts, styles or images
    assert not re.search(r"<(script|link|img)[^>]+(src|href)=", text)
    assert re.findall(r"https?://[^\"'\s)]+", text) == ["http://www.w3.org/2000/svg"] * 2
    data = _embedded_data(text)
    assert data["title"] == "demo" and data["profiled"]
    kinds = sorted(n["kind"] for n in data["nodes"])
    assert kinds == ["apply", "apply", "input", "input", "output", "shared"]
    assert all("x" in n and "y" in n for n in data["nodes"])


def test_node_details_types_shapes_props_and_profile():
    data = graph_data(_profiled_function())
    applies = [n for n in data["nodes"] if n["kind"] == "apply"]
    total = sum(n["profile"]["share"] for n in applies)
    assert total == pytest.approx(1.0)
    summed = next(n for n in applies if n["op"] == "Sum")
    assert summed["props"]["acc_dtype"] == "'float64'"
    assert summed["outputs"] == [{"name": None, "type": "TensorType(float64, ())", "shape": []}]
    assert summed["profile"]["calls"] == 3 and summed["profile"]["bytes"] == 8
    fused = next(n for n in applies if n["op"] == "Elemwise")
    assert fused["inputs"][0]["shape"] == ["?"]
    inner = fused["inner"]  # the fused loop's scalar graph, unfoldable
    assert any(n["kind"] == "output" for n in inner["nodes"]) and inner["edges"]


def test_layout_places_producers_above_consumers():
    x = pt.dvector("x")
    data = graph_data(pt.exp(pt.sin(x)) + x)
    y = {n["label"]: n["y"] for n in data["nodes"]}
    assert y["x"] < y["Elemwise{sin,no_inplace}"] < y["Elemwise{exp,no_inplace}"]
    assert y["Elemwise{exp,no_inplace}"] < y["Elemwise{add,no_inplace}"] < y["output 0"]


def test_unprofiled_graphs_and_script_safe_json():
    x = pt.dvector("x")
    x.name = "</script><b>"
    text = html([x * 2], title="a <title>")
    assert "<title>a &lt;title&gt;</title>" in text
    assert _embedded_data(text)["profiled"] is False
    assert "</script><b>" not in text.split('id="graph-data">')[1].split("</script>")[0]


CHROMIUM = next(
    (shutil.which(n) for n in ("chromium", "chromium-browser") if shutil.which(n)), None
)


@pytest.mark.slow
@pytest.mark.skipif(CHROMIUM is None, reason="Chromium is not installed (apt-get install chromium)")
def test_view_renders_and_a_click_shows_details_in_a_real_browser(tmp_path):
    f = _profiled_function()
    path = tmp_path / "graph.html"
    html(f, path)
    data = graph_data(f)
    summed = next(n["id"] for n in data["nodes"] if n.get("op") == "Sum")
    fused = next(n["id"] for n in data["nodes"] if n.get("inner"))
    url = f"file://{path}#open={fused}&select={summed}"
    dom = subprocess.run(
        [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--dump-dom", url],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    ).stdout
    assert f'data-rendered="{len(data["nodes"])}"' in dom  # the script ran
    assert dom.count('class="node ') >= len(data["nodes"])  # every node drawn (and inner ones)
    details = dom.split('id="details"')[1]
    assert "<h2>Sum{acc_dtype=float64}</h2>" in details  # the click showed the details
    assert "<td>calls</td><td>3</td>" in details
    assert 'class="node apply selected"' in dom
    frame = re.search(r'<g class="inner"[^>]*>', dom).group(0)
    assert "display: none" not in frame  # the inner graph was unfolded

"""``html``: an interactive view of a graph in one self-contained HTML file.

The file holds the graph as JSON and a small script that draws it as SVG: no network access is
needed to view it. Drag to pan, scroll to zoom, click a node for its details (op, properties,
input and output types with static shapes). Ops with an inner graph (OpFromGraph, scan, fused
elementwise loops) carry a ``+`` that unfolds it. For a function compiled with
``profile=True`` and called, each node is coloured by its share of the run time and labelled
with its time and output memory.

The layout is computed here: nodes are placed in layers by their depth from the inputs, and
ordered within a layer by the mean position of their producers (one barycentre sweep).
"""

from __future__ import annotations

import html as html_escape
import json
from pathlib import Path
from typing import Any

from arignote.graph.basic import Apply, Constant, Variable, io_toposort
from arignote.graph.shared import SharedVariable
from arignote.printing.debug import graph_of, inner_graph_op

X_STEP, Y_STEP = 190, 90  # layout grid, in SVG units


def _type_info(var: Variable) -> dict:
    shape = getattr(var.type, "shape", None)
    return {
        "name": var.name,
        "type": str(var.type),
        "shape": None if shape is None else ["?" if s is None else s for s in shape],
    }


def _leaf_kind(var: Variable) -> str:
    if isinstance(var, Constant):
        return "constant"
    if isinstance(var, SharedVariable):
        return "shared"
    return "input"


def _leaf_label(var: Variable) -> str:
    if var.name:
        return var.name
    if isinstance(var, Constant):
        text = str(var.data)
        return text if len(text) <= 24 else text[:21] + "..."
    return str(var.type)


def _props(op: Any) -> dict:
    return {p: repr(getattr(op, p, None)) for p in getattr(op, "__props__", ())}


class _GraphData:
    """The JSON-ready description of one (outer or inner) graph."""

    def __init__(self, outputs: list[Variable], inputs: list[Variable], profile: Any) -> None:
        self.nodes: list[dict] = []
        self.edges: list[list] = []
        self.ids: dict = {}
        self.profile = profile
        self.total_time = _total_time(profile)
        order = io_toposort(inputs, outputs)
        for node in order:
            self._add_apply(node)
        for k, out in enumerate(outputs):
            self._add_output(out, k)

    def _id(self, obj: Any) -> str:
        return self.ids.setdefault(obj, f"n{len(self.ids)}")

    def _source(self, var: Variable) -> str:
        """The id of what produces ``var``: its apply node, or a leaf added on first use."""
        if var.owner is not None and var.owner in self.ids:
            return self.ids[var.owner]
        if var not in self.ids:
            self.nodes.append(
                {
                    "id": self._id(var),
                    "kind": _leaf_kind(var),
                    "label": _leaf_label(var),
                    "outputs": [_type_info(var)],
                    "inputs": [],
                }
            )
        return self.ids[var]

    def _add_apply(self, node: Apply) -> None:
        sources = [self._source(v) for v in node.inputs]
        data = {
            "id": self._id(node),
            "kind": "apply",
            "label": str(node.op),
            "op": type(node.op).__name__,
            "props": _props(node.op),
            "inputs": [_type_info(v) for v in node.inputs],
            "outputs": [_type_info(v) for v in node.outputs],
        }
        data.update(self._profile_of(node))
        host = inner_graph_op(node.op)
        if host is not None:
            inner = _GraphData(list(host.inner_outputs), list(host.inner_inputs), None)
            data["inner"] = inner.as_json()
        self.nodes.append(data)
        for position, source in enumerate(sources):
            self.edges.append([source, data["id"], position])

    def _add_output(self, var: Variable, k: int) -> None:
        source = self._source(var)
        out_id = f"out{k}"
        label = f"output {k}" + (f": {var.name}" if var.name else "")
        self.nodes.append(
            {"id": out_id, "kind": "output", "label": label, "inputs": [_type_info(var)]}
        )
        self.edges.append([source, out_id, 0])

    def _profile_of(self, node: Apply) -> dict:
        stats = getattr(self.profile, "apply_stats", {}).get(node)
        if stats is None or not stats.calls:
            return {}
        share = stats.time / self.total_time if self.total_time else 0.0
        return {
            "profile": {
                "calls": stats.calls,
                "time": stats.time,
                "share": share,
                "bytes": stats.output_bytes,
            }
        }

    def as_json(self) -> dict:
        _layout(self.nodes, self.edges)
        return {"nodes": self.nodes, "edges": self.edges}


def _total_time(profile: Any) -> float:
    stats = getattr(profile, "apply_stats", None) or {}
    return sum(s.time for s in stats.values())


def _layout(nodes: list[dict], edges: list[list]) -> None:
    """Give each node ``x``/``y``: layer = longest path from a leaf; order by barycentre."""
    parents: dict[str, list[str]] = {n["id"]: [] for n in nodes}
    for source, target, _ in edges:
        parents[target].append(source)
    layer: dict[str, int] = {}
    for n in nodes:  # nodes are listed producers first
        layer[n["id"]] = 1 + max((layer[p] for p in parents[n["id"]]), default=-1)
    rows: dict[int, list[dict]] = {}
    for n in nodes:
        rows.setdefault(layer[n["id"]], []).append(n)
    x: dict[str, float] = {}
    for depth in sorted(rows):
        row = rows[depth]
        if depth:
            row.sort(key=lambda n: _barycentre(parents[n["id"]], x))
        for position, n in enumerate(row):
            x[n["id"]] = position - (len(row) - 1) / 2
            n["x"], n["y"] = x[n["id"]] * X_STEP, depth * Y_STEP


def _barycentre(parents: list[str], x: dict) -> float:
    placed = [x[p] for p in parents if p in x]
    return sum(placed) / len(placed) if placed else 0.0


def graph_data(obj: Any) -> dict:
    """The JSON-ready graph ``html`` draws: nodes (with layout and details) and edges."""
    outputs, fgraph = graph_of(obj)
    inputs = list(fgraph.inputs) if fgraph is not None else []
    profile = getattr(obj, "profile", None)
    data = _GraphData(outputs, inputs, profile).as_json()
    data["title"] = getattr(obj, "name", None) or "arignote graph"
    data["profiled"] = _total_time(profile) > 0
    return data


def html(obj: Any, path: str | Path | None = None, title: str | None = None) -> str:
    """Write an interactive view of a graph to ``path`` (one HTML file, viewable offline).

    Parameters
    ----------
    obj
        A compiled function (profiled or not), a variable, a list of variables or a
        FunctionGraph.
    path
        Where to write the file; with None, the HTML text is only returned.
    title
        The page title (default: the function's name).

    Returns
    -------
    The HTML text.
    """
    data = graph_data(obj)
    if title is not None:
        data["title"] = title
    # "</" must not appear inside the script element that carries the JSON
    payload = json.dumps(data).replace("</", "<\\/")
    text = (
        _PAGE.replace("__TITLE__", html_escape.escape(data["title"]))
        .replace("__STYLE__", _STYLE)
        .replace("__DATA__", payload)
        .replace("__SCRIPT__", _SCRIPT)
    )
    if path is not None:
        Path(path).write_text(text, encoding="utf-8")
    return text


_PAGE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>__TITLE__</title>
<style>__STYLE__</style>
</head>
<body>
<header><h1>__TITLE__</h1><span id="hint">drag to pan, scroll to zoom, click a node</span></header>
<main>
<svg id="canvas" xmlns="http://www.w3.org/2000/svg"><g id="viewport"></g></svg>
<aside id="details"><p class="empty">Click a node to see its details.</p></aside>
</main>
<script type="application/json" id="graph-data">__DATA__</script>
<script>__SCRIPT__</script>
</body>
</html>
"""

_STYLE = """
body { margin: 0; font: 13px sans-serif; display: flex; flex-direction: column; height: 100vh; }
header { padding: 6px 12px; background: #223; color: #eee; display: flex; gap: 16px;
  align-items: baseline; }
header h1 { font-size: 15px; margin: 0; }
#hint { color: #aab; }
main { flex: 1; display: flex; min-height: 0; }
#canvas { flex: 1; background: #fafafa; cursor: grab; }
#details { width: 340px; overflow: auto; border-left: 1px solid #ccc; padding: 8px 12px; }
#details h2 { font-size: 14px; margin: 4px 0 8px; word-break: break-all; }
#details table { border-collapse: collapse; width: 100%; }
#details td { border-top: 1px solid #eee; padding: 2px 4px; vertical-align: top;
  word-break: break-all; }
.node rect, .node ellipse { stroke: #334; stroke-width: 1.2; }
.node.apply rect { fill: #dde8ff; }
.node.input ellipse { fill: #fff; }
.node.shared ellipse { fill: #eef7e4; }
.node.constant rect { fill: #eee; }
.node.output ellipse { fill: #ffe9c8; }
.node.selected rect, .node.selected ellipse { stroke: #d22; stroke-width: 3; }
.node text { font-size: 11px; pointer-events: none; }
.node .metric { fill: #733; }
.toggle { cursor: pointer; }
.toggle rect { fill: #fff; stroke: #334; }
.edge { stroke: #889; fill: none; stroke-width: 1.2; marker-end: url(#arrow); }
.inner-frame { fill: #fffdf3; stroke: #cb9; stroke-dasharray: 4 3; }
"""

_SCRIPT = r"""
(function () {
  const SVG = "http://www.w3.org/2000/svg";
  const data = JSON.parse(document.getElementById("graph-data").textContent);
  const svg = document.getElementById("canvas");
  const viewport = document.getElementById("viewport");
  const details = document.getElementById("details");
  const byId = {};
  let selected = null;

  function el(tag, attrs, parent) {
    const e = document.createElementNS(SVG, tag);
    for (const k in attrs) e.setAttribute(k, attrs[k]);
    if (parent) parent.appendChild(e);
    return e;
  }
  const defs = el("defs", {}, svg);
  const marker = el("marker", {id: "arrow", viewBox: "0 0 10 10", refX: 10, refY: 5,
    markerWidth: 7, markerHeight: 7, orient: "auto-start-reverse"}, defs);
  el("path", {d: "M 0 0 L 10 5 L 0 10 z", fill: "#889"}, marker);

  function heat(share) {  // white -> red with the node's share of the run time
    const g = Math.round(235 - 200 * share), b = Math.round(255 - 230 * share);
    return "rgb(255," + g + "," + b + ")";
  }
  function human(bytes) {
    if (bytes < 1024) return bytes + " B";
    if (bytes < 1048576) return (bytes / 1024).toFixed(1) + " KB";
    return (bytes / 1048576).toFixed(1) + " MB";
  }
  function shorten(text, n) { return text.length > n ? text.slice(0, n - 1) + "\u2026" : text; }

  function drawGraph(graph, parent, prefix) {
    const layer = el("g", {}, parent);
    const edges = el("g", {}, layer);
    const pos = {};
    for (const n of graph.nodes) pos[n.id] = n;
    for (const [s, t] of graph.edges) {
      const a = pos[s], b = pos[t];
      const midY = (a.y + b.y) / 2;
      el("path", {class: "edge", d: "M " + a.x + " " + (a.y + 18) + " C " + a.x + " " + midY +
        ", " + b.x + " " + midY + ", " + b.x + " " + (b.y - 18)}, edges);
    }
    for (const n of graph.nodes) drawNode(n, layer, prefix);
    return layer;
  }

  function drawNode(n, parent, prefix) {
    const key = prefix + n.id;
    const g = el("g", {class: "node " + n.kind, "data-id": key,
      transform: "translate(" + n.x + "," + n.y + ")"}, parent);
    byId[key] = {node: n, element: g};
    const label = shorten(n.label, 26);
    if (n.kind === "apply" || n.kind === "constant") {
      const box = el("rect", {x: -80, y: -18, width: 160, height: 36, rx: 4}, g);
      if (n.profile) box.style.fill = heat(n.profile.share);
    } else {
      el("ellipse", {rx: 80, ry: 18}, g);
    }
    const text = el("text", {"text-anchor": "middle", y: n.profile ? -2 : 4}, g);
    text.textContent = label;
    if (n.profile) {
      const m = el("text", {"text-anchor": "middle", y: 12, class: "metric"}, g);
      m.textContent = (n.profile.time * 1000).toFixed(3) + " ms \u00b7 " + human(n.profile.bytes);
    }
    g.addEventListener("click", function (event) { event.stopPropagation(); select(key); });
    if (n.inner) drawInner(n, g, key);
  }

  function drawInner(n, g, key) {
    const toggle = el("g", {class: "toggle", "data-toggle": key,
      transform: "translate(84,-18)"}, g);
    el("rect", {width: 14, height: 14, rx: 2}, toggle);
    const sign = el("text", {x: 7, y: 11, "text-anchor": "middle"}, toggle);
    sign.textContent = "+";
    const xs = n.inner.nodes.map(m => m.x), ys = n.inner.nodes.map(m => m.y);
    const left = Math.min(...xs) - 100, top = Math.min(...ys) - 40;
    const frame = el("g", {class: "inner", transform: "translate(" + (260 - left) + "," +
      (-top - 20) + ")"}, g);
    el("rect", {class: "inner-frame", x: left, y: top, width: Math.max(...xs) - left + 100,
      height: Math.max(...ys) - top + 40, rx: 8}, frame);
    drawGraph(n.inner, frame, key + "/");
    frame.style.display = "none";
    toggle.addEventListener("click", function (event) {
      event.stopPropagation();
      const open = frame.style.display === "none";
      frame.style.display = open ? "" : "none";
      sign.textContent = open ? "\u2212" : "+";
    });
  }

  function row(table, name, value) {
    const tr = document.createElement("tr");
    const a = document.createElement("td"), b = document.createElement("td");
    a.textContent = name; b.textContent = value;
    tr.appendChild(a); tr.appendChild(b); table.appendChild(tr);
  }
  function typeText(t) {
    return (t.name ? t.name + ": " : "") + t.type +
      (t.shape ? "  shape=(" + t.shape.join(", ") + (t.shape.length === 1 ? ",)" : ")") : "");
  }

  function select(key) {
    const entry = byId[key];
    if (!entry) return;
    if (selected) selected.classList.remove("selected");
    selected = entry.element;
    selected.classList.add("selected");
    const n = entry.node;
    details.innerHTML = "";
    const h = document.createElement("h2");
    h.textContent = n.label;
    details.appendChild(h);
    const table = document.createElement("table");
    table.id = "details-table";
    row(table, "kind", n.kind);
    if (n.op) row(table, "op", n.op);
    for (const p in (n.props || {})) row(table, "prop " + p, n.props[p]);
    (n.inputs || []).forEach((t, i) => row(table, "input " + i, typeText(t)));
    (n.outputs || []).forEach((t, i) => row(table, "output " + i, typeText(t)));
    if (n.profile) {
      row(table, "calls", n.profile.calls);
      row(table, "time", (n.profile.time * 1000).toFixed(3) + " ms (" +
        (100 * n.profile.share).toFixed(1) + "% of the nodes' time)");
      row(table, "output memory", human(n.profile.bytes));
    }
    if (n.inner) row(table, "inner graph", n.inner.nodes.length + " nodes (click + to unfold)");
    details.appendChild(table);
  }

  // pan and zoom: one transform on the viewport group
  let view = {x: 0, y: 0, k: 1}, drag = null;
  function apply() {
    viewport.setAttribute("transform", "translate(" + view.x + "," + view.y + ") scale(" +
      view.k + ")");
  }
  svg.addEventListener("mousedown", e => {
    drag = {x: e.clientX - view.x, y: e.clientY - view.y};
  });
  window.addEventListener("mouseup", () => { drag = null; });
  window.addEventListener("mousemove", e => {
    if (drag) { view.x = e.clientX - drag.x; view.y = e.clientY - drag.y; apply(); }
  });
  svg.addEventListener("wheel", e => {
    e.preventDefault();
    const factor = Math.exp(-e.deltaY * 0.0015), r = svg.getBoundingClientRect();
    const cx = e.clientX - r.left, cy = e.clientY - r.top;
    view.x = cx - (cx - view.x) * factor; view.y = cy - (cy - view.y) * factor;
    view.k *= factor; apply();
  }, {passive: false});

  drawGraph(data, viewport, "");
  const xs = data.nodes.map(n => n.x);
  view.x = (svg.clientWidth || 800) / 2 - (Math.min(...xs) + Math.max(...xs)) / 2;
  view.y = 40;
  apply();
  document.body.setAttribute("data-rendered", String(data.nodes.length));

  // "#open=<id>&select=<id>" unfolds an inner graph and selects a node on load, by clicking
  // them (to link to a node; the browser test uses it)
  function clickOn(element) {
    if (element) element.dispatchEvent(new MouseEvent("click", {bubbles: true}));
  }
  const opened = /open=([^&]+)/.exec(location.hash);
  if (opened) clickOn(document.querySelector('[data-toggle="' + decodeURIComponent(opened[1]) +
    '"]'));
  const wanted = /select=([^&]+)/.exec(location.hash);
  if (wanted && byId[decodeURIComponent(wanted[1])]) {
    clickOn(byId[decodeURIComponent(wanted[1])].element);
  }
})();
"""

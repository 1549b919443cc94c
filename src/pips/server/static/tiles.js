// Domino faces as SVG: pips for 0-9, numerals above (double-12 and up).
"use strict";
const PIP_SPOTS = {
  0: [], 1: [[2, 2]], 2: [[1, 1], [3, 3]], 3: [[1, 1], [2, 2], [3, 3]],
  4: [[1, 1], [3, 1], [1, 3], [3, 3]], 5: [[1, 1], [3, 1], [2, 2], [1, 3], [3, 3]],
  6: [[1, 1], [3, 1], [1, 2], [3, 2], [1, 3], [3, 3]],
  7: [[1, 1], [3, 1], [1, 2], [2, 2], [3, 2], [1, 3], [3, 3]],
  8: [[1, 1], [2, 1], [3, 1], [1, 2], [3, 2], [1, 3], [2, 3], [3, 3]],
  9: [[1, 1], [2, 1], [3, 1], [1, 2], [2, 2], [3, 2], [1, 3], [2, 3], [3, 3]],
};
const SVG = "http://www.w3.org/2000/svg";

function svg(tag, attrs) {
  const el = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs || {})) el.setAttribute(k, v);
  return el;
}

function half(group, n, x, y) {
  if (n <= 9) {
    for (const [cx, cy] of PIP_SPOTS[n]) {
      group.appendChild(svg("circle", { cx: x + cx * 10, cy: y + cy * 10, r: 3.2, class: "pip" }));
    }
  } else {
    const t = svg("text", { x: x + 20, y: y + 27, "text-anchor": "middle", class: "numeral" });
    t.textContent = String(n);
    group.appendChild(t);
  }
}

// A tile [a|b]: upright (a over b) or lying (a left of b). Returns an <svg> element.
function tileSvg(a, b, upright, extra) {
  const w = upright ? 40 : 80, h = upright ? 80 : 40;
  const el = svg("svg", { viewBox: `0 0 ${w} ${h}`, class: "tile" + (upright ? " upright" : ""),
                          "data-tile": `${Math.max(a, b)}-${Math.min(a, b)}`, role: "img",
                          "aria-label": `${a}-${b}` });
  el.appendChild(svg("rect", { x: 1, y: 1, width: w - 2, height: h - 2, rx: 6, class: "face" }));
  if (upright) {
    el.appendChild(svg("line", { x1: 6, y1: 40, x2: 34, y2: 40, class: "bar" }));
    half(el, a, 0, 0); half(el, b, 0, 40);
  } else {
    el.appendChild(svg("line", { x1: 40, y1: 6, x2: 40, y2: 34, class: "bar" }));
    half(el, a, 0, 0); half(el, b, 40, 0);
  }
  if (extra) el.classList.add(...extra);
  return el;
}

// The layout as lanes (the same picture as the terminal client): the first lane runs
// through the first tile; every other arm hangs below, under its tile.
function layoutLanes(layout) {
  const children = {}, open = {};
  layout.tiles.forEach((t, i) => { if (t.parent >= 0) (children[t.parent] ||= {})[t.slot] = i; });
  for (const p of layout.points) (open[p.node] ||= {})[p.slot] = p;
  const order = ["free", "half-a", "half-b", "side-a", "side-b"];
  const slots = (n) => order.filter((s) => (children[n] || {})[s] !== undefined || (open[n] || {})[s]);
  const pending = [];
  function arm(node, slot, flipped, found) {
    const cells = [];
    for (;;) {
      const p = (open[node] || {})[slot];
      if (p) { cells.push({ point: p }); return cells; }
      const child = (children[node] || {})[slot];
      if (child === undefined) return cells;
      cells.push({ node: child, flipped });
      const ss = slots(child);
      if (!ss.length) return cells;
      const onward = ss.includes("free") ? "free" : ss.includes("half-a") ? "half-a" : ss[0];
      for (const s of ss) if (s !== onward) found.push({ anchor: child, slot: s });
      node = child; slot = onward;
    }
  }
  if (!layout.tiles.length) return [];
  const left = arm(0, "half-a", true, pending).reverse();
  const right = arm(0, "half-b", false, pending);
  for (const s of slots(0)) if (s !== "half-a" && s !== "half-b") pending.push({ anchor: 0, slot: s });
  const lanes = [{ cells: [...left, { node: 0 }, ...right], anchor: -1 }];
  while (pending.length) {
    const lane = pending.shift();
    const found = [];
    lane.cells = arm(lane.anchor, lane.slot, false, found);
    lanes.push(lane);
    pending.unshift(...found);
  }
  return lanes;
}

function drawLayout(box, layout, options) {
  const { playable = new Set(), onPoint = null, last = -1 } = options || {};
  box.replaceChildren();
  for (const lane of layoutLanes(layout)) {
    const row = document.createElement("div");
    row.className = "lane" + (lane.anchor >= 0 ? " branch " + lane.slot : "");
    if (lane.anchor >= 0) {
      const tag = document.createElement("span");
      tag.className = "hang";
      const t = layout.tiles[lane.anchor].tile;
      tag.textContent = `${lane.slot.startsWith("side") ? "side of" : "from"} ${t[0]}-${t[1]} ▸`;
      row.appendChild(tag);
    }
    for (const cell of lane.cells) {
      if (cell.point) {
        const p = cell.point;
        const b = document.createElement("button");
        b.className = `socket ${p.kind}` + (playable.has(p.id) ? " target" : "");
        b.dataset.point = p.id;
        b.textContent = p.value;
        b.title = p.kind === "side" ? "naked side" : "open end";
        if (onPoint) b.addEventListener("click", () => onPoint(p.id));
        row.appendChild(b);
        continue;
      }
      const laid = layout.tiles[cell.node];
      const near = laid.touching;
      const far = laid.tile[0] === near ? laid.tile[1] : laid.tile[0];
      const [a, b] = cell.flipped ? [far, near] : [near, far];
      row.appendChild(tileSvg(a, b, laid.across, cell.node === last ? ["last"] : []));
    }
    box.appendChild(row);
  }
}

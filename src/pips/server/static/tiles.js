// Domino faces as SVG: pips for 0-9, numerals above (double-12 and up) and on small tiles.
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

function half(group, n, x, y, numerals) {
  if (n <= 9 && !numerals) {
    for (const [cx, cy] of PIP_SPOTS[n]) {
      group.appendChild(svg("circle", { cx: x + cx * 10, cy: y + cy * 10, r: 3.2, class: "pip" }));
    }
  } else {
    const t = svg("text", { x: x + 20, y: y + (numerals ? 31 : 27), "text-anchor": "middle", class: "numeral" + (numerals ? " large" : "") });
    // Two digits are fitted to the half, whatever the font: a numeral never reaches
    // over the tile's edge onto the next tile.
    if (n > 9) { t.setAttribute("textLength", numerals ? "34" : "30"); t.setAttribute("lengthAdjust", "spacingAndGlyphs"); }
    t.textContent = String(n);
    group.appendChild(t);
  }
}

// A tile [a|b]: upright (a over b) or lying (a left of b), its halves as pips (0 to 9)
// or, with ``numerals`` (a small tile), as large numerals. Returns an <svg> element.
function tileSvg(a, b, upright, extra, numerals) {
  const w = upright ? 40 : 80, h = upright ? 80 : 40;
  const el = svg("svg", { viewBox: `0 0 ${w} ${h}`, class: "tile" + (upright ? " upright" : ""),
                          "data-tile": tileKey([a, b]), role: "img", "aria-label": `${a}-${b}` });
  el.appendChild(svg("rect", { x: 1, y: 1, width: w - 2, height: h - 2, rx: 6, class: "face" }));
  if (upright) {
    el.appendChild(svg("line", { x1: 6, y1: 40, x2: 34, y2: 40, class: "bar" }));
    half(el, a, 0, 0, numerals); half(el, b, 0, 40, numerals);
  } else {
    el.appendChild(svg("line", { x1: 40, y1: 6, x2: 40, y2: 34, class: "bar" }));
    half(el, a, 0, 0, numerals); half(el, b, 40, 0, numerals);
  }
  if (extra) el.classList.add(...extra);
  return el;
}


function tileKey(t) { return `${Math.max(t[0], t[1])}-${Math.min(t[0], t[1])}`; }

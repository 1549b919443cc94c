// The layout drawn as on a table: every tile placed in true geometry, in one SVG.
//
// Units: a tile is 2 units long and 1 wide; the SVG draws a unit as 40. The first tile
// lies at the centre; each tile is placed, in the order it was laid, against the point
// it was laid on: straight on, or round a corner when the board's edge (or a tile already
// there) is in the way, so a long line snakes back and forth and never widens the page.
// What grows from where is read from the slots the server sends (free, half-a, half-b,
// side-a, side-b), never from the game's name:
//   - "free" continues the arm; a double across in an arm offers its far long side
//     (side-a) straight on and its two halves (half-a, half-b) to the left and right;
//   - the first tile's halves run west and east, or, when it also offers sides (the
//     FIDO cross, the Doubles spinner), its sides run west and east and its halves
//     north and south: the spinner opens four ways.
"use strict";
const UNIT = 40;
const E = [1, 0], W = [-1, 0], N = [0, -1], S = [0, 1];
const add = (p, d, k) => [p[0] + d[0] * k, p[1] + d[1] * k];
const leftOf = (d) => [d[1], -d[0]];
const rightOf = (d) => [-d[1], d[0]];
const neg = (d) => [-d[0], -d[1]];
const horizontal = (d) => d[1] === 0;

// A rectangle from ``start`` along ``dir``: ``length`` units along it, ``width`` across.
function rectFrom(start, dir, length, width) {
  const c = add(start, dir, length / 2);
  const w = horizontal(dir) ? length : width, h = horizontal(dir) ? width : length;
  return { x: c[0] - w / 2, y: c[1] - h / 2, w, h };
}

function overlaps(a, b) {
  const e = 0.01;
  return a.x + a.w > b.x + e && b.x + b.w > a.x + e && a.y + a.h > b.y + e && b.y + b.h > a.y + e;
}

// The ways a tile may lie at an anchor, in order of preference.
function candidates(anchor, across) {
  const length = across ? 1 : 2, width = across ? 2 : 1;
  const straight = () => ({ start: anchor.pos, dir: anchor.dir, length, width, turn: null });
  const corner = (t) => across
    ? { start: add(add(anchor.pos, anchor.dir, 1), t, -0.5), dir: t, length, width, turn: t }
    : { start: add(add(anchor.pos, anchor.dir, 0.5), t, -0.5), dir: t, length, width, turn: t };
  if (anchor.back) return [corner(anchor.back), straight(), corner(neg(anchor.back))];
  if (horizontal(anchor.dir)) return [straight(), corner(anchor.grow), corner(neg(anchor.grow))];
  // Going up or down: turn towards the middle first.
  const towards = anchor.pos[0] > 0 ? W : E;
  return [straight(), corner(towards), corner(neg(towards))];
}

// Place every tile and open point; ``half`` is how far from the centre a tile may reach
// sideways (Infinity: anywhere). Returns null when some tile found no room.
function place(layout, half, strict) {
  const tiles = [], rects = [], anchors = {};
  let failed = false;
  const inside = (r) => r.x >= -half - 1e-9 && r.x + r.w <= half + 1e-9;
  const free = (r) => !rects.some((o) => overlaps(o, r));
  const rectOf = (c) => rectFrom(c.start, c.dir, c.length, c.width);
  const sidesAtRoot = layout.tiles.some((t) => t.parent === 0 && t.slot.startsWith("side")) ||
    layout.points.some((p) => p.node === 0 && p.slot.startsWith("side"));
  layout.tiles.forEach((laid, i) => {
    const [a, b] = laid.tile;
    if (i === 0) {
      const r = laid.across ? { x: -0.5, y: -1, w: 1, h: 2 } : { x: -1, y: -0.5, w: 2, h: 1 };
      tiles.push({ ...r, vertical: laid.across, values: [a, b], node: 0 });
      rects.push(r);
      const ew = laid.across ? 0.5 : 1;
      const west = { pos: [-ew, 0], dir: W, grow: N }, east = { pos: [ew, 0], dir: E, grow: S };
      if (sidesAtRoot) {
        anchors["0/side-a"] = west; anchors["0/side-b"] = east;
        anchors["0/half-a"] = { pos: [0, -1], dir: N, grow: W };
        anchors["0/half-b"] = { pos: [0, 1], dir: S, grow: E };
      } else {
        anchors["0/half-a"] = west; anchors["0/half-b"] = east;
      }
      return;
    }
    const anchor = anchors[`${laid.parent}/${laid.slot}`];
    if (!anchor || failed) return;
    const ways = candidates(anchor, laid.across);
    // Inside the board and clear of other tiles; else clear of them past the edge (the
    // drawing is scaled to fit); else, at the last attempt, straight on regardless.
    let way = ways.find((c) => inside(rectOf(c)) && free(rectOf(c))) || ways.find((c) => free(rectOf(c)));
    if (!way) {
      if (strict) { failed = true; return; }
      way = ways[0];
    }
    const r = rectFrom(way.start, way.dir, way.length, way.width);
    rects.push(r);
    const d = way.dir;
    // The touching half comes first along the way the arm runs.
    const near = laid.touching, far = a === near ? b : a;
    const forward = d[0] + d[1] > 0;
    const vertical = horizontal(d) === laid.across;
    tiles.push({ ...r, vertical, values: forward ? [near, far] : [far, near], node: i });
    let next = { dir: d, grow: anchor.grow, back: anchor.back };
    if (way.turn) {
      next = horizontal(anchor.dir) && !anchor.back
        ? { dir: d, grow: anchor.grow, back: neg(anchor.dir) }
        : { dir: d, grow: anchor.grow, back: null };
    }
    const end = add(way.start, d, way.length);
    anchors[`${i}/free`] = { ...next, pos: end };
    anchors[`${i}/side-a`] = { ...next, pos: end };
    const centre = add(way.start, d, way.length / 2);
    anchors[`${i}/half-a`] = { pos: add(centre, leftOf(d), way.width / 2), dir: leftOf(d), grow: d };
    anchors[`${i}/half-b`] = { pos: add(centre, rightOf(d), way.width / 2), dir: rightOf(d), grow: d };
  });
  if (failed) return null;
  // Each open point is shown where a tile laid there would go.
  const points = layout.points.map((p) => {
    const anchor = anchors[`${p.node}/${p.slot}`];
    if (!anchor) return null;
    const ways = candidates(anchor, false);
    const way = ways.find((c) => {
      const r = rectFrom(c.start, c.dir, c.length, c.width);
      return !rects.some((o) => overlaps(o, r)) && (!isFinite(half) || (r.x >= -half - 1 && r.x + r.w <= half + 1));
    }) || ways[0];
    const r = rectFrom(way.start, way.dir, way.length, way.width);
    rects.push(r);
    return { ...r, point: p };
  }).filter(Boolean);
  return { tiles, points };
}

// The geometry of a layout for a board ``columns`` units wide: it snakes within them
// when it can and otherwise widens (the drawing is then scaled down to fit).
function layoutGeometry(layout, columns) {
  let half = Math.max(4, columns / 2);
  for (let attempt = 0; attempt < 6; attempt++) {
    const placed = place(layout, half, true);
    if (placed) return placed;
    half *= 1.4;
  }
  return place(layout, Infinity, false);
}

// The id of the one place on an empty table, where the opening tile goes.
const OPENING = "open";

function describePoint(p) {
  if (p.kind === OPENING) return t("middle of the table");
  return p.kind === "side" ? t("side showing {value}", { value: p.value }) : t("end showing {value}", { value: p.value });
}

// Draw ``layout`` into ``box``. Options: ``targets`` (point id -> label of the play),
// ``onPoint(id)``, ``last`` (tile index to mark), ``unitPx`` (preferred size of a unit).
function drawLayout(box, layout, options) {
  const { targets = new Map(), onPoint = null, last = -1, unitPx = 26 } = options || {};
  const room = Math.max(160, box.clientWidth - 8);
  const geometry = layoutGeometry(layout, Math.floor(room / unitPx));
  if (!layout.tiles.length && targets.has(OPENING)) {
    geometry.points.push({ x: -1, y: -0.5, w: 2, h: 1, point: { id: OPENING, kind: OPENING, value: "" } });
  }
  const all = [...geometry.tiles, ...geometry.points];
  const minX = Math.min(-1, ...all.map((r) => r.x)) - 0.25, minY = Math.min(-1, ...all.map((r) => r.y)) - 0.25;
  const maxX = Math.max(1, ...all.map((r) => r.x + r.w)) + 0.25, maxY = Math.max(1, ...all.map((r) => r.y + r.h)) + 0.25;
  const vbW = (maxX - minX) * UNIT, vbH = (maxY - minY) * UNIT;
  const board = svg("svg", { viewBox: `${minX * UNIT} ${minY * UNIT} ${vbW} ${vbH}`, class: "board",
                             role: "group", "aria-label": t("layout of {count} tiles", { count: layout.tiles.length }) });
  // Never wider than the box (no sideways scrolling), never larger than the preferred size.
  const widthPx = Math.min(room, (maxX - minX) * unitPx);
  board.setAttribute("width", String(Math.floor(widthPx)));
  board.setAttribute("height", String(Math.ceil(widthPx * vbH / vbW)));
  for (const t of geometry.tiles) {
    const g = svg("g", { class: "laid" + (t.node === last ? " last" : ""), "data-node": t.node });
    const face = tileSvg(t.values[0], t.values[1], t.vertical, t.node === last ? ["last"] : []);
    face.setAttribute("x", t.x * UNIT); face.setAttribute("y", t.y * UNIT);
    face.setAttribute("width", t.w * UNIT); face.setAttribute("height", t.h * UNIT);
    g.appendChild(face);
    board.appendChild(g);
  }
  for (const spot of geometry.points) {
    const p = spot.point, isTarget = targets.has(String(p.id));
    const g = svg("g", { class: `place ${p.kind}` + (isTarget ? " target" : ""), "data-point": p.id });
    const inset = 0.08;
    g.appendChild(svg("rect", { x: (spot.x + inset) * UNIT, y: (spot.y + inset) * UNIT,
      width: (spot.w - 2 * inset) * UNIT, height: (spot.h - 2 * inset) * UNIT, rx: p.kind === "side" ? 4 : 14 }));
    const label = svg("text", { x: (spot.x + spot.w / 2) * UNIT, y: (spot.y + spot.h / 2) * UNIT + 7, "text-anchor": "middle" });
    label.textContent = p.kind === "side" ? `◆${p.value}` : String(p.value);
    g.appendChild(label);
    const title = svg("title");
    title.textContent = describePoint(p);
    g.appendChild(title);
    if (isTarget) {
      g.setAttribute("role", "button");
      g.setAttribute("tabindex", "0");
      g.setAttribute("aria-label", t("play {tile} at the {place}", { tile: targets.get(String(p.id)), place: describePoint(p) }));
      if (onPoint) {
        g.addEventListener("click", () => onPoint(p.id));
        g.addEventListener("keydown", (e) => {
          if (e.key === "Enter" || e.key === " ") { e.preventDefault(); onPoint(p.id); }
        });
      }
    }
    board.appendChild(g);
  }
  box.replaceChildren(board);
  return board;
}

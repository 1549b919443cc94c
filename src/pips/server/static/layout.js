// The layout drawn as on a table: every tile placed in true geometry, in one SVG.
//
// Units: a tile is 2 units long and 1 wide; the SVG draws a unit as 40. The first tile
// lies at the centre of a board of the drawing box's shape (its aspect). Each tile is
// placed, in the order it was laid, against the point it was laid on: straight on, or
// round a corner when the board's edge or another tile is in the way. Every arm turns,
// the horizontal ones and the vertical ones alike, and after a turn it turns back the
// next time (a snake), so a long arm folds within the board. What grows from where is
// read from the slots the server sends (free, half-a, half-b, side-a, side-b), never
// from the game's name:
//   - "free" continues the arm; a double across in an arm offers its far long side
//     (side-a) straight on and its two halves (half-a, half-b) to the left and right
//     (FIDO's branches);
//   - the first tile's halves run west and east, or, when it also offers sides (the
//     FIDO cross, the Doubles spinner), its sides run west and east and its halves
//     north and south: the spinner opens four ways.
// Nothing is ever drawn over anything else: a tile goes only where no tile lies, and
// every open point gets a place of its own, free of tiles and of the other points. A
// board too small for that is made larger (keeping its shape) until everything fits;
// the drawing is then scaled to the box (see drawLayout for the smallest tile drawn).
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

// The ways a tile may lie at an anchor: straight on, or round a corner either way; a
// double ``across`` lies with its long side facing the way the arm runs.
function way(anchor, across, turn) {
  const length = across ? 1 : 2, width = across ? 2 : 1;
  if (!turn) return { start: anchor.pos, dir: anchor.dir, length, width, turn: null };
  const start = across
    ? add(add(anchor.pos, anchor.dir, 1), turn, -0.5)
    : add(add(anchor.pos, anchor.dir, 0.5), turn, -0.5);
  return { start, dir: turn, length, width, turn };
}

function waysAt(anchor, across, box) {
  // An arm that turned goes on two tiles before it turns back, so that its runs lie a
  // tile's length apart: room for the branches of the doubles in them.
  if (anchor.back && anchor.since >= 2) {
    return [way(anchor, across, anchor.back), way(anchor, across, null), way(anchor, across, neg(anchor.back))];
  }
  // Not just turned: straight on first; round a corner away from the middle of the
  // board first, so that arms keep to the outside and leave the middle to branches.
  const l = leftOf(anchor.dir), r = rightOf(anchor.dir);
  const outward = (d) => d[0] * anchor.pos[0] + d[1] * anchor.pos[1];
  const first = outward(l) >= outward(r) ? l : r;
  return [way(anchor, across, null), way(anchor, across, first), way(anchor, across, neg(first))];
}

const rectOf = (w) => rectFrom(w.start, w.dir, w.length, w.width);
const range = (a, b) => Array.from({ length: b - a + 1 }, (_, k) => a + k);

// The free board an arm should find ahead, in cells of half a unit (a tile covers 8):
// room for what will hang on it, at least six tiles' worth, at most sixty.
const ENOUGH = 48, LIMIT = 240;
// The board size (in steps of 15 %) from which a piece that finds no way is laid apart.
const LAST_RESORT = 10;


// The anchors a tile laid along ``w`` offers its children, by slot.
function anchorsOf(w, anchor) {
  const d = w.dir;
  // After a turn the arm turns back the next time it may (a snake); going straight it
  // keeps the preference it had, one tile further from its turn.
  const back = w.turn ? neg(anchor.dir) : anchor.back;
  const since = w.turn ? 0 : (anchor.since || 0) + 1;
  const end = add(w.start, d, w.length), centre = add(w.start, d, w.length / 2);
  return {
    free: { pos: end, dir: d, back, since },
    "side-a": { pos: end, dir: d, back, since },
    "half-a": { pos: add(centre, leftOf(d), w.width / 2), dir: leftOf(d), back: null, since: 0 },
    "half-b": { pos: add(centre, rightOf(d), w.width / 2), dir: rightOf(d), back: null, since: 0 },
  };
}

// Place every tile, then every open point, on a board ``box`` (x, y, w, h in units,
// around the first tile): each tile in the first of its ways that lies on the board and
// on nothing else, the ways after which an arm could not go on tried last; each open
// point at once after its tile, so that no later tile walls an open end in. When a piece
// finds no way, conflict-directed backjumping: the latest piece that stood in the way
// (of it, or of the pieces that jumped back to it), or the tile it hangs on, takes its
// next way and what came after it is placed again, at most ``budget`` times. Returns
// null when nothing helps: the board is too small.
function place(layout, box, budget, seed, detach, fixed) {
  // A try with a seed breaks ties between equally good ways by lot (the same lot every
  // time: the layout depends on nothing but the layout and the board).
  let state = (seed || 0) * 2654435761 >>> 0;
  const lot = () => {
    if (!seed) return 0;
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const n = layout.tiles.length;
  const order = [];
  const pointsOf = new Map();
  layout.points.forEach((p) => { if (!pointsOf.has(p.node)) pointsOf.set(p.node, []); pointsOf.get(p.node).push(p); });
  const seat = new Array(n);
  layout.tiles.forEach((laid, k) => {
    seat[k] = order.length;
    order.push({ tile: laid, node: k, across: laid.across && k > 0, hangsOn: laid.parent, slot: laid.slot });
  });
  for (const p of layout.points) order.push({ point: p, node: -1, across: false, hangsOn: p.node, slot: p.slot });
  const total = order.length;
  // How much will hang on each slot of each tile: the room its arm will want (in cells
  // of half a unit; a tile covers 8), known from the whole layout.
  const wants = new Map();
  const below = new Array(n).fill(0);
  for (let k = n - 1; k > 0; k--) below[layout.tiles[k].parent] += below[k] + 1;
  layout.tiles.forEach((laid, k) => {
    if (k === 0) return;
    const key = `${laid.parent}/${laid.slot}`;
    wants.set(key, (wants.get(key) || 0) + below[k] + 1);
  });
  layout.points.forEach((p) => { const key = `${p.node}/${p.slot}`; wants.set(key, (wants.get(key) || 0) + 1); });
  const room = (key) => Math.min(LIMIT, Math.max(ENOUGH, 12 * (wants.get(key) || 0)));
  // The board as a grid of cells of half a unit: -1 free, -2 taken for a look ahead,
  // else the piece there.
  const x0 = Math.round(box.x * 2), y0 = Math.round(box.y * 2);
  const gw = Math.round(box.w * 2), gh = Math.round(box.h * 2);
  const grid = new Int32Array(gw * gh).fill(-1);
  // The cells of a rectangle, or null when it leaves the board.
  const cellsOf = (r) => {
    const ax = Math.round(r.x * 2) - x0, ay = Math.round(r.y * 2) - y0;
    const bx = Math.round((r.x + r.w) * 2) - x0, by = Math.round((r.y + r.h) * 2) - y0;
    if (ax < 0 || ay < 0 || bx > gw || by > gh) return null;
    const out = [];
    for (let y = ay; y < by; y++) for (let x = ax; x < bx; x++) out.push(y * gw + x);
    return out;
  };
  const isFree = (c) => c !== null && c.every((k) => grid[k] === -1);
  const cells = new Array(total), rects = new Array(total), ways = new Array(total);
  const choice = new Array(total).fill(0), anchors = {};
  const conflicts = Array.from({ length: total }, () => new Set());
  // The square in front of every anchor something will still be laid at is kept clear
  // where possible: another arm passing there would shut that arm in.
  const kept = new Int32Array(gw * gh);
  const keeps = new Array(total);
  // What will hang on each slot: the tile (across or not), or an open point.
  const across = new Map();
  layout.tiles.forEach((laid, k) => { if (k > 0) across.set(`${laid.parent}/${laid.slot}`, laid.across); });
  // The place straight ahead of an anchor that what hangs there takes if it goes
  // straight on.
  const front = (anchor, key) => cellsOf(rectOf(way(anchor, across.get(key) || false, null))) || [];
  const take = (i, r, c) => {
    for (const k of c) grid[k] = i;
    cells[i] = c; rects[i] = r;
    const piece = order[i], mine = [];
    // Its own anchor is in use now; its slots that will be used are kept.
    const ownKey = `${piece.hangsOn}/${piece.slot}`, own = anchors[ownKey];
    if (own) for (const k of front(own, ownKey)) { kept[k]--; mine.push(-1 - k); }
    if (piece.tile) {
      for (const slot of ["free", "side-a", "half-a", "half-b"]) {
        const key = `${piece.node}/${slot}`, next = anchors[key];
        if (next && wants.has(key)) for (const k of front(next, key)) { kept[k]++; mine.push(k); }
      }
    }
    keeps[i] = mine;
  };
  const drop = (i) => {
    for (const k of cells[i] || []) grid[k] = -1;
    for (const k of keeps[i] || []) { if (k >= 0) kept[k]--; else kept[-1 - k]++; }
    cells[i] = null; rects[i] = null; keeps[i] = null;
  };
  // The free cells reachable from where an arm goes on, counted up to ``enough``.
  const seen = new Uint32Array(gw * gh);
  let stamp = 0;
  const reach = (anchor, enough) => {
    stamp++;
    const start = add(anchor.pos, anchor.dir, 0.25);
    const sx = Math.floor(start[0] * 2) - x0, sy = Math.floor(start[1] * 2) - y0;
    if (sx < 0 || sy < 0 || sx >= gw || sy >= gh) return 0;
    const todo = [sy * gw + sx];
    let count = 0;
    while (todo.length && count < enough) {
      const k = todo.pop();
      if (seen[k] === stamp || grid[k] !== -1) continue;
      seen[k] = stamp;
      count++;
      const x = k % gw;
      if (x + 1 < gw) todo.push(k + 1);
      if (x > 0) todo.push(k - 1);
      if (k + gw < gw * gh) todo.push(k + gw);
      if (k >= gw) todo.push(k - gw);
    }
    return count;
  };
  const mark = (c, value) => { for (const k of c) grid[k] = value; };
  // Whether an arm can go on ``depth`` tiles from ``anchor``.
  const canGo = (anchor, depth) => {
    if (depth === 0) return true;
    for (const w of waysAt(anchor, false, box)) {
      const c = cellsOf(rectOf(w));
      if (!isFree(c)) continue;
      mark(c, -2);
      const ok = canGo(anchorsOf(w, anchor).free, depth - 1);
      mark(c, -1);
      if (ok) return true;
    }
    return false;
  };
  // A tile's ways in order of preference, but those after which the arm (or a double's
  // branches) could not go on come last, and among them those with least room.
  const ordered = (options, anchor, across, node, key) => {
    const score = new Map();
    const slots = across ? ["side-a", "half-a", "half-b"] : ["free"];
    const mine = new Set(front(anchor, key));
    for (const w of options) {
      const c = cellsOf(rectOf(w));
      if (!isFree(c)) { score.set(w, -1); continue; }
      const blocks = c.some((k) => kept[k] - (mine.has(k) ? 1 : 0) > 0);
      mark(c, -2);
      const next = anchorsOf(w, anchor);
      const alive = canGo(next[slots[0]], 3) &&
        (!across || (canGo(next["half-a"], 1) && canGo(next["half-b"], 1)));
      // The share of the room each end will want that it finds (1: all of it).
      const fill = Math.min(...slots.map((slot) => {
        const enough = room(`${node}/${slot}`);
        return reach(next[slot], enough) / enough;
      }));
      mark(c, -1);
      score.set(w, (blocks ? 0 : 4) + (alive ? 2 : 0) + fill + 0.5 * lot());
    }
    const roomy = options.filter((w) => score.get(w) >= 7);
    if (seed) roomy.sort((a, b) => score.get(b) - score.get(a));
    const rest = options.filter((w) => score.get(w) < 7).sort((a, b) => score.get(b) - score.get(a));
    return [...roomy, ...rest];
  };
  // An open point's place: where it keeps no other arm's square, if it can.
  const clear = (options, anchor, key) => {
    const mine = new Set(front(anchor, key));
    const blocks = (w) => (cellsOf(rectOf(w)) || []).some((k) => kept[k] - (mine.has(k) ? 1 : 0) > 0);
    return [...options.filter((w) => !blocks(w)), ...options.filter(blocks)];
  };
  // The first tile, at the centre.
  const first = layout.tiles[0];
  const root = first.across ? { x: -0.5, y: -1, w: 1, h: 2 } : { x: -1, y: -0.5, w: 2, h: 1 };
  const rootCells = cellsOf(root);
  if (rootCells === null) return null;
  take(0, root, rootCells);
  const sidesAtRoot = layout.tiles.some((t) => t.parent === 0 && t.slot.startsWith("side")) ||
    layout.points.some((p) => p.node === 0 && p.slot.startsWith("side"));
  const ew = first.across ? 0.5 : 1;
  const west = { pos: [-ew, 0], dir: W, back: null }, east = { pos: [ew, 0], dir: E, back: null };
  if (sidesAtRoot) {
    anchors["0/side-a"] = west; anchors["0/side-b"] = east;
    anchors["0/half-a"] = { pos: [0, first.across ? -1 : -0.5], dir: N, back: null };
    anchors["0/half-b"] = { pos: [0, first.across ? 1 : 0.5], dir: S, back: null };
  } else {
    anchors["0/half-a"] = west; anchors["0/half-b"] = east;
  }
  drop(0);
  take(0, root, rootCells);
  // The last resort (``detach``): a piece with no way at all is laid apart, at the
  // nearest free place, and drawn linked to where it hangs.
  const links = new Map();
  const apart = (j, anchor) => {
    const piece = order[j];
    const along = piece.across ? 1 : 2, wide = piece.across ? 2 : 1;
    for (let reach = 1; reach < 2 * (gw + gh); reach++) {
      for (let dx = -reach; dx <= reach; dx++) {
        for (const dy of Math.abs(dx) === reach ? range(-reach, reach) : [-reach, reach]) {
          const pos = [anchor.pos[0] + dx / 2, anchor.pos[1] + dy / 2];
          for (const dir of [anchor.dir, leftOf(anchor.dir), rightOf(anchor.dir), neg(anchor.dir)]) {
            const w = { start: pos, dir, length: along, width: wide, turn: null };
            const r = rectOf(w), got = cellsOf(r);
            if (!isFree(got)) continue;
            const moved = { pos, dir, back: null, since: 0 };
            if (piece.tile) for (const [slot, next] of Object.entries(anchorsOf(w, moved))) anchors[`${piece.node}/${slot}`] = next;
            ways[j] = [w]; choice[j] = 0;
            take(j, r, got);
            links.set(j, anchor.pos);
            return true;
          }
        }
      }
    }
    return false;  // the board is full: a larger one is needed
  };
  let i = 1, steps = 0;
  while (i < total) {
    const piece = order[i];
    const anchor = anchors[`${piece.hangsOn}/${piece.slot}`];
    if (!anchor) return null;
    // The ways are worked out once for an anchor: placed again after a backjump at the
    // same anchor, a piece keeps its order (whether a way is free is checked anew).
    if (ways[i] && ways[i].anchor !== anchor) ways[i] = null;
    if (!ways[i] && fixed && fixed.ways[i]) {
      // Laid where it lay before (the layout has grown by a tile since), apart too.
      ways[i] = [fixed.ways[i]];
      ways[i].anchor = anchor;
      if (fixed.links[i]) links.set(i, fixed.links[i]);
    }
    if (!ways[i]) {
      let options = waysAt(anchor, piece.across, box);
      // A double across with branches lies across its arm (F-05): round a corner its
      // halves would face the tiles it came from.
      if (piece.across && (wants.has(`${piece.node}/half-a`) || wants.has(`${piece.node}/half-b`))) {
        options = options.filter((w) => !w.turn);
      }
      ways[i] = piece.tile ? ordered(options, anchor, piece.across, piece.node, `${piece.hangsOn}/${piece.slot}`) : clear(options, anchor, `${piece.hangsOn}/${piece.slot}`);
      ways[i].anchor = anchor;
    }
    let placed = false;
    for (let c = choice[i]; c < ways[i].length; c++) {
      const r = rectOf(ways[i][c]), got = cellsOf(r);
      if (isFree(got)) {
        choice[i] = c; placed = true;
        if (piece.tile) for (const [slot, next] of Object.entries(anchorsOf(ways[i][c], anchor))) anchors[`${piece.node}/${slot}`] = next;
        take(i, r, got);
        break;
      }
    }
    if (placed) { i++; continue; }
    if (++steps > budget) {
      if (!detach) return null;
      if (!apart(i, anchor)) return null;
      i++;
      continue;
    }
    // What stands in the way of its ways, the tile it hangs on, and what stood in the
    // way of the pieces that jumped back to it: the latest of those takes its next way,
    // and inherits the rest.
    const conflict = new Set(conflicts[i]);
    conflict.add(seat[piece.hangsOn]);
    for (const w of ways[i]) {
      const c = cellsOf(rectOf(w));
      if (c) for (const k of c) if (grid[k] >= 0) conflict.add(grid[k]);
    }
    conflict.delete(i);
    const culprit = Math.max(...conflict);
    // Growing a layout moves nothing laid before: where that would help, the caller
    // lays the whole layout out again.
    if (fixed && fixed.ways[culprit]) {
      if (!detach) return null;
      if (!apart(i, anchor)) return null;
      i++;
      continue;
    }
    if (culprit <= 0) {
      if (!detach) return null;
      if (!apart(i, anchor)) return null;
      i++;
      continue;
    }
    for (const k of conflict) if (k !== culprit) conflicts[culprit].add(k);
    for (let k = i; k >= culprit; k--) {
      drop(k);
      if (k > culprit) { choice[k] = 0; conflicts[k] = new Set(); }
    }
    choice[culprit]++;
    i = culprit;
  }
  const tiles = [], points = [];
  order.forEach((piece, k) => {
    const link = links.has(k) ? { link: links.get(k), from: ways[k][0].start } : {};
    if (piece.point) { points.push({ ...rects[k], point: piece.point, ...link }); return; }
    const laid = piece.tile, r = rects[k], [a, b] = laid.tile;
    if (k === 0) { tiles.push({ ...r, vertical: laid.across, values: [a, b], node: 0 }); return; }
    const d = ways[k][choice[k]].dir;
    // The touching half comes first along the way the arm runs.
    const near = laid.touching, far = a === near ? b : a;
    const forward = d[0] + d[1] > 0;
    tiles.push({ ...r, vertical: horizontal(d) === laid.across, values: forward ? [near, far] : [far, near], node: piece.node, ...link });
  });
  points.sort((p, q) => p.point.id - q.point.id);
  // Each tile's way (by its number), for laying out the layout grown by a tile.
  const laid = {
    ways: layout.tiles.map((_, k) => (k > 0 ? ways[k][choice[k]] : null)),
    links: layout.tiles.map((_, k) => links.get(k) || null),
  };
  return { tiles, points, laid };
}

// The geometry of a layout on a board of shape ``aspect`` (width / height): the
// smallest such board (in steps of 15 % of its area) on which every tile and open point
// has a place of its own. ``box`` is that board, ``used`` the share of it the tiles
// cover. ``from`` is the geometry of the layout before this one in the same hand (a
// layout only grows within a hand: its tiles stay put and its board too, while it
// fits), or an area to start from.
function layoutGeometry(layout, aspect, from) {
  const shape = Math.max(0.3, Math.min(4, aspect || 1.6));
  if (!layout.tiles.length) {
    // The empty table: a board the size of a few tiles (the opening goes in its middle).
    const h = 3, w = Math.max(4, Math.ceil(h * shape));
    const box = { x: -w / 2, y: -h / 2, w, h };
    return { tiles: [], points: [], laid: { ways: [], links: [] }, box, area: w * h, shape, used: 0, attempts: 0, apart: 0, content: box };
  }
  const pieces = layout.tiles.length + layout.points.length;
  // Lines fill two fifths of their board at best; layouts that branch (FIDO's) a quarter.
  const branching = layout.tiles.some((t) => t.slot === "half-a" || t.slot === "half-b") &&
    layout.tiles.length > 12;
  const estimate = Math.max(12, pieces * 2 / (branching ? 0.25 : 0.4));
  if (from && typeof from === "object") {
    // The layout of the board before, grown by a tile or more: its tiles stay where
    // they lie and the new ones go on from them, on the same board, if they find room
    // (a few milliseconds, where laying it all out again takes a large layout a
    // quarter of a second). Else it is laid out anew on that board, then on one a
    // size larger. Where that fails too and the board is no smaller than a new
    // layout's would be (a tangle a larger board does not undo), the new pieces are
    // laid apart on it, everything else staying put, unless that lays more than two
    // more apart; last, the board grows as for a new layout.
    const grows = from.shape === shape && from.laid.ways.length <= layout.tiles.length;
    const budget = 4 * pieces;
    const grown = grows && place(layout, from.box, budget, 0, false, from.laid);
    if (grown) return finished(grown, from.box, from.area, 0, shape, from);
    for (const [scale, attempts] of [[1, 1], [1.15, 2]]) {
      const size = from.area * scale;
      const w = Math.max(4, Math.ceil(Math.sqrt(size * shape))), h = Math.max(3, Math.ceil(w / shape));
      const box = { x: -w / 2, y: -h / 2, w, h };
      for (const seed of [0, 1, 2]) {
        const again = place(layout, box, 5 * budget, seed, false);
        if (again) return finished(again, box, size, attempts, shape);
      }
    }
    if (grows && from.area >= estimate) {
      const detached = place(layout, from.box, budget, 0, true, from.laid);
      const apart = detached && finished(detached, from.box, from.area, 0, shape, from);
      if (apart && apart.apart <= from.apart + 2) return apart;
    }
    // A board smaller than a new layout's starts as a new layout's would.
    from = from.area >= estimate ? from.area * 1.3 : 0;
  }
  let area = Math.max(estimate, from || 0);
  // Started from the last board, the last resort comes at the next size: a board that
  // grew ten times for a move would soon grow without end.
  const resort = from ? 1 : LAST_RESORT;
  for (let attempt = 0; attempt < 40; attempt++) {
    const w = Math.max(4, Math.ceil(Math.sqrt(area * shape))), h = Math.max(3, Math.ceil(w / shape));
    const box = { x: -w / 2, y: -h / 2, w, h };
    // A quick try on a small board; from the fourth size on (at once from the last
    // board: it is the size the layout had), a longer search and, when it does not get
    // there, two more with ties broken by lot (a search that is stuck often gets out by
    // starting again a little differently). At the eleventh size (the second from the
    // last board), the last resort: what finds no way is laid apart, linked to its
    // place. A search stops where it succeeds: a longer one costs more only in failing.
    const tries = attempt < 3 && !from ? [[0, 4]] : [[0, 20], [1, 20], [2, 20]];
    for (const [seed, budget] of tries) {
      const placed = place(layout, box, budget * pieces, seed, attempt >= resort);
      if (placed) return finished(placed, box, area, attempt + 1, shape);
    }
    area *= 1.15;
  }
  throw new Error("no board holds this layout");
}

function finished(placed, box, area, attempts, shape, before) {
  const covered = placed.tiles.reduce((sum, t) => sum + t.w * t.h, 0);
  const apart = [...placed.tiles, ...placed.points].filter((t) => t.link).length;
  // What is drawn: the part of the board the pieces lie on (a board large enough for a
  // tangled layout is often half empty), never smaller than it was before in the hand
  // on the same board, so that the picture does not jump from move to move.
  let content = around([...placed.tiles, ...placed.points]);
  if (before && before.box === box && before.content) content = around([content, before.content]);
  return { ...placed, box, area, shape, used: covered / (box.w * box.h), attempts, apart, content };
}

// The smallest rectangle around ``rects``.
function around(rects) {
  const x = Math.min(...rects.map((r) => r.x)), y = Math.min(...rects.map((r) => r.y));
  const w = Math.max(...rects.map((r) => r.x + r.w)) - x, h = Math.max(...rects.map((r) => r.y + r.h)) - y;
  return { x, y, w, h };
}

// The id of the one place on an empty table, where the opening tile goes.
const OPENING = "open";

function describePoint(p) {
  if (p.kind === OPENING) return t("middle of the table");
  return p.kind === "side" ? t("side showing {value}", { value: p.value }) : t("end showing {value}", { value: p.value });
}

// The smallest tile drawn, in CSS pixels per unit (a tile is 2 units by 1): 14 px makes
// a tile 28 x 14 px, its numbers drawn as numerals. A board that would draw smaller
// shows a window of the layout at this size instead, to drag (see drawLayout).
const MIN_UNIT_PX = 14;
// Below this many pixels a unit, halves show numerals rather than pips.
const NUMERALS_BELOW_PX = 24;
// The largest magnification a player may ask for, in pixels a unit.
const MAX_UNIT_PX = 56;

// The CSS pixels a board drawn into ``box`` may take: its width, and ``height`` or the
// box's own height (else a third of the window).
function boardRoom(box, height) {
  return [Math.max(160, box.clientWidth - 8), Math.max(120, height || box.clientHeight - 8 || window.innerHeight / 3)];
}

// Draw ``layout`` into ``box`` (its size decides the board's shape and scale).
// Options: ``targets`` (point id -> label of the play), ``onPoint(id)``, ``last`` (tile
// index to mark), ``maxUnitPx`` (the largest unit drawn when the whole layout shows),
// ``height`` (px the board may take; else the box's own height, else a third of the
// window), ``whole`` (draw all of it, smaller than MIN_UNIT_PX if need be), ``fill``
// (the drawing fills its box and scales with it), ``geometry`` (from layoutGeometry, when the caller keeps it), ``zoom`` (a
// magnification the player asked for, 1 and up) and ``focus`` (the point of the layout,
// in units, the window is centred on; else the places of ``targets``, else the last
// tile) with ``onFocus(point)`` told when the player drags the window.
//
// The whole layout is drawn when it fits at MIN_UNIT_PX a unit or more; otherwise the
// board shows a window of it at that size (or the zoom's), which the player drags. The
// returned <svg> has data-unit (px a unit), data-used (share of the board the tiles
// cover) and data-window ("1" when it shows a window).
function drawLayout(box, layout, options) {
  const { targets = new Map(), onPoint = null, last = -1, maxUnitPx = 40, height = 0,
          zoom = 1, focus = null, onFocus = null, geometry: known = null, fill = false,
          whole: entire = false } = options || {};
  const [roomW, roomH] = boardRoom(box, height);
  const geometry = known || layoutGeometry(layout, roomW / roomH);
  // The part of the board the layout lies on, not the whole board it was laid out on.
  const frame = geometry.content || geometry.box;
  const points = [...geometry.points];
  if (!layout.tiles.length && targets.has(OPENING)) {
    points.push({ x: -1, y: -0.5, w: 2, h: 1, point: { id: OPENING, kind: OPENING, value: "" } });
  }
  const pad = 0.25;
  const whole = { x: (frame.x - pad) * UNIT, y: (frame.y - pad) * UNIT, w: (frame.w + 2 * pad) * UNIT, h: (frame.h + 2 * pad) * UNIT };
  const fit = Math.min(maxUnitPx, roomW / (frame.w + 2 * pad), roomH / (frame.h + 2 * pad));
  // A picture to look at (``whole``: the end of a hand) shows all of the layout, however
  // small; a board to play on never draws a tile below MIN_UNIT_PX.
  const unitPx = entire ? fit : Math.min(MAX_UNIT_PX, Math.max(fit, MIN_UNIT_PX) * Math.max(1, zoom));
  const wholeW = whole.w / UNIT * unitPx, wholeH = whole.h / UNIT * unitPx;
  const windowed = wholeW > roomW + 0.5 || wholeH > roomH + 0.5;
  // The open ends in words with the board's name: a screen reader hears what can be
  // played on without finding each place of the drawing.
  const ends = points.filter((s) => s.point.kind !== OPENING).map((s) => describePoint(s.point));
  const named = t("layout of {count} tiles", { count: layout.tiles.length });
  const board = svg("svg", { class: "board", role: "group",
                             "aria-label": ends.length ? `${named}; ${ends.join(", ")}` : named });
  board.dataset.unit = unitPx.toFixed(2);
  board.dataset.used = geometry.used.toFixed(3);
  board.dataset.window = windowed ? "1" : "0";
  const widthPx = Math.floor(Math.min(roomW, wholeW)), heightPx = Math.floor(Math.min(roomH, wholeH));
  if (fill) {
    // The drawing fills its box and is scaled to it, whatever becomes of the box after
    // it was drawn (the hand or a line of buttons growing): nothing runs off its edge.
    board.classList.add("fill");
  } else {
    board.setAttribute("width", String(widthPx));
    board.setAttribute("height", String(heightPx));
  }
  const numerals = unitPx < NUMERALS_BELOW_PX;
  // A piece the engine had to lay apart (its last resort) is linked to where it hangs.
  for (const piece of [...geometry.tiles, ...points]) {
    if (!piece.link) continue;
    board.appendChild(svg("line", { class: "link", x1: piece.link[0] * UNIT, y1: piece.link[1] * UNIT,
      x2: piece.from[0] * UNIT, y2: piece.from[1] * UNIT }));
  }
  for (const t of geometry.tiles) {
    const g = svg("g", { class: "laid" + (t.node === last ? " last" : ""), "data-node": t.node });
    const face = tileSvg(t.values[0], t.values[1], t.vertical, t.node === last ? ["last"] : [], numerals);
    face.setAttribute("x", t.x * UNIT); face.setAttribute("y", t.y * UNIT);
    face.setAttribute("width", t.w * UNIT); face.setAttribute("height", t.h * UNIT);
    g.appendChild(face);
    board.appendChild(g);
  }
  const aimed = [];
  for (const spot of points) {
    const p = spot.point, isTarget = targets.has(String(p.id));
    if (isTarget) aimed.push(spot);
    const g = svg("g", { class: `place ${p.kind}` + (isTarget ? " target" : ""), "data-point": p.id });
    const inset = 0.08;
    g.appendChild(svg("rect", { x: (spot.x + inset) * UNIT, y: (spot.y + inset) * UNIT,
      width: (spot.w - 2 * inset) * UNIT, height: (spot.h - 2 * inset) * UNIT, rx: p.kind === "side" ? 4 : 14 }));
    const label = svg("text", { x: (spot.x + spot.w / 2) * UNIT, y: (spot.y + spot.h / 2) * UNIT + 9, "text-anchor": "middle" });
    label.textContent = p.kind === "side" ? `◆${p.value}` : String(p.value);
    // Read as words ("end showing 5"), never as a bare number.
    label.setAttribute("aria-hidden", "true");
    g.appendChild(label);
    const title = svg("title");
    title.textContent = describePoint(p);
    g.appendChild(title);
    if (!isTarget) {
      g.setAttribute("role", "img");
      g.setAttribute("aria-label", describePoint(p));
    } else {
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
  if (!windowed) {
    if (fill) {
      // Filled, the drawing keeps its scale (unitPx) in the room it was drawn for: the
      // view reaches round the layout to the room's edges.
      const w = Math.max(whole.w, roomW / unitPx * UNIT), h = Math.max(whole.h, roomH / unitPx * UNIT);
      board.setAttribute("viewBox", `${whole.x + whole.w / 2 - w / 2} ${whole.y + whole.h / 2 - h / 2} ${w} ${h}`);
    } else {
      board.setAttribute("viewBox", `${whole.x} ${whole.y} ${whole.w} ${whole.h}`);
    }
  } else {
    // The window: the places the chosen tile may go, else the last tile, unless the
    // player has dragged it elsewhere.
    const around = (pieces) => {
      const x1 = Math.min(...pieces.map((r) => r.x)), x2 = Math.max(...pieces.map((r) => r.x + r.w));
      const y1 = Math.min(...pieces.map((r) => r.y)), y2 = Math.max(...pieces.map((r) => r.y + r.h));
      return [(x1 + x2) / 2, (y1 + y2) / 2];
    };
    const lastTile = geometry.tiles.find((tile) => tile.node === last);
    const centre = focus || (aimed.length ? around(aimed) : lastTile ? around([lastTile]) : [0, 0]);
    showWindow(board, whole, widthPx / unitPx * UNIT, heightPx / unitPx * UNIT, [centre[0] * UNIT, centre[1] * UNIT], onFocus);
  }
  box.replaceChildren(board);
  return board;
}

// Show the part ``w`` x ``h`` (drawing units) of a board around ``centre``, kept inside
// ``whole``, and let the player drag it (mouse, pen or finger; a tap on a place still
// plays there).
function showWindow(board, whole, w, h, centre, onFocus) {
  const at = [...centre];
  const show = () => {
    at[0] = Math.max(whole.x + w / 2, Math.min(whole.x + whole.w - w / 2, at[0]));
    at[1] = Math.max(whole.y + h / 2, Math.min(whole.y + whole.h - h / 2, at[1]));
    board.setAttribute("viewBox", `${at[0] - w / 2} ${at[1] - h / 2} ${w} ${h}`);
  };
  show();
  board.classList.add("magnified");
  board.addEventListener("pointerdown", (down) => {
    if (down.button !== 0 || down.target.closest(".place.target")) return;
    const scale = w / board.getBoundingClientRect().width;
    let x = down.clientX, y = down.clientY;
    const drag = (e) => {
      at[0] -= (e.clientX - x) * scale; at[1] -= (e.clientY - y) * scale;
      x = e.clientX; y = e.clientY; show();
    };
    const stop = () => {
      window.removeEventListener("pointermove", drag);
      window.removeEventListener("pointerup", stop);
      if (onFocus) onFocus([at[0] / UNIT, at[1] / UNIT]);
    };
    window.addEventListener("pointermove", drag);
    window.addEventListener("pointerup", stop);
  });
}

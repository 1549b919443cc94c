// The table in the browser: one websocket, each message the seat's own view.
"use strict";
// What a player who cannot play does, in the game's word (the table's face.pass_word).
const PASS_BUTTON = { pass: t("Pass"), knock: t("Knock") };
const PASS_WORD = { pass: t("pass"), knock: t("knock") };
(() => {
  const root = document.getElementById("board");
  const tableId = root.dataset.table;
  const invite = root.dataset.invite;
  const csrf = document.querySelector("meta[name=csrf]").content;
  const $ = (id) => document.getElementById(id);
  const reduced = window.matchMedia("(prefers-reduced-motion: reduce)").matches;
  let socket = null, last = null, chosen = null, retry = 500, rejoining = false;
  let pending = false;          // a move is on its way: further clicks wait for the answer
  let handOverShown = 0, lastTiles = -1, lastHand = 0, hinted = null, timer = null;
  let zoom = 1, focus = null;  // magnification of the board (1: all of it fits) and its centre
  const soundBox = $("sound");
  soundBox.checked = localStorage.getItem("pips-sound") !== "off";
  soundBox.addEventListener("change", () => localStorage.setItem("pips-sound", soundBox.checked ? "on" : "off"));

  function beep(double) {
    if (!soundBox.checked) return;
    try {
      const ctx = beep.ctx ||= new AudioContext();
      const osc = ctx.createOscillator(), gain = ctx.createGain();
      osc.frequency.value = double ? 220 : 660;
      gain.gain.setValueAtTime(0.15, ctx.currentTime);
      gain.gain.exponentialRampToValueAtTime(0.001, ctx.currentTime + (double ? 0.35 : 0.12));
      osc.connect(gain).connect(ctx.destination);
      osc.start(); osc.stop(ctx.currentTime + 0.4);
    } catch (e) { /* no audio: nothing to do */ }
  }

  function connect() {
    const scheme = location.protocol === "https:" ? "wss" : "ws";
    // The page's own language: a browser need not send its Accept-Language with a socket.
    const lang = encodeURIComponent(document.documentElement.lang || "");
    socket = new WebSocket(`${scheme}://${location.host}/ws/${tableId}?invite=${encodeURIComponent(invite)}&lang=${lang}`);
    socket.addEventListener("open", () => { retry = 500; say(""); $("chat-lines").replaceChildren(); });
    socket.addEventListener("message", (e) => receive(JSON.parse(e.data)));
    socket.addEventListener("close", () => {
      // Joining closes the socket on purpose, to come back as the new seat at once.
      if (rejoining) { rejoining = false; say(t("taking your seat…")); connect(); return; }
      say(t("connection lost: reconnecting…"), "error");
      setTimeout(connect, retry);
      retry = Math.min(retry * 2, 8000);
    });
  }

  function send(message) {
    if (socket && socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify({ v: 1, ...message }));
  }

  function move(index) {
    if (pending || !last) return;
    pending = true;
    send({ type: "move", move: index, moves_made: last.moves_made });
  }

  function say(text, kind) {
    const box = $("message");
    box.textContent = text;
    box.className = "message " + (kind || "");
  }

  function logLine(text, kind) {
    const list = $("log-lines");
    const item = document.createElement("li");
    item.textContent = text;
    if (kind) item.className = kind;
    list.appendChild(item);
    while (list.children.length > 300) list.firstChild.remove();
    list.scrollTop = list.scrollHeight;
  }

  function receive(msg) {
    if (msg.type === "error") { pending = false; return say(msg.message, "error"); }
    if (msg.type === "chat") {
      const line = document.createElement("div");
      line.textContent = `${msg.from}: ${msg.text}`;
      $("chat-lines").appendChild(line);
      $("chat-lines").scrollTop = $("chat-lines").scrollHeight;
      return;
    }
    if (msg.type === "hint") return showHint(msg);
    if (msg.type !== "state") return;
    const before = last;
    last = msg; pending = false; hinted = null;
    if (!before || before.moves_made !== msg.moves_made) chosen = null;
    // Kept on the page for the player to compare with the record after the game.
    if (msg.commitment && $("commitment")) $("commitment").textContent = msg.commitment;
    const view = msg.view;
    if (msg.log) {
      $("log-lines").replaceChildren();
      if (view) logLine(t("hand {number}", { number: view.hand_number }), "hand");
      msg.log.forEach((line) => logLine(line));
    } else if (msg.event && msg.said) {
      logLine(msg.said);  // a scoring play says what it scored (F-15)
    }
    if (msg.hand_over && msg.event && handOverShown !== msg.hand_over.hand) logLine(msg.hand_over.sheet.title, "hand");
    if (view && lastHand && view.hand_number !== lastHand && !msg.log) logLine(t("hand {number}", { number: view.hand_number }), "hand");
    if (msg.event && msg.event.play) beep(msg.event.play[0] === msg.event.play[1]);
    render(msg.event || null);
    if (view) lastHand = view.hand_number;
  }

  // -- drawing -----------------------------------------------------------------------

  function playsOf(key) {
    const offered = new Set(last.choices || []);
    return (last.legal || []).map((m, i) => [m, i]).filter(([m, i]) => m.play && offered.has(i) && tileKey(m.play) === key);
  }

  // The place a play goes: an open point of the layout, or the empty table's middle.
  const pointOf = (m) => (m.at === "open" ? OPENING : String(m.end));

  function myTurn() {
    return last && last.view && last.seat >= 0 && last.view.turn === last.seat && last.legal;
  }

  function render(event) {
    const msg = last, view = msg.view, table = msg.table;
    document.title = `${table.title} · pips`;
    drawSeats(msg);
    const info = [];
    if (table.status === "waiting") info.push(t("waiting for players: {count} open seat(s)", { count: table.seats.filter((s) => s.kind === "open").length }));
    if (view) {
      info.push(t("hand {number}", { number: view.hand_number }));
      if (table.face.stock) info.push(t("stock {count}", { count: view.stock_size }));
      if (view.options.divisor) {
        const s = view.layout.count, d = view.options.divisor;
        info.push(t("S = {s} · divisor {d} · S mod {d} = {rest}", { s, d, rest: s % d }));
      }
      if (msg.match.target) info.push(t("match to {target}", { target: msg.match.target }));
    }
    $("info").textContent = info.join(" · ");
    $("join").hidden = !(table.status === "waiting" && msg.seat < 0 && table.seats.some((s) => s.kind === "open"));
    $("hint").hidden = !(table.hints && myTurn());
    $("sheet-open").hidden = !(msg.hands && msg.hands.length);
    if (!view) { $("layout").replaceChildren(); $("hand").replaceChildren(); drawActions(msg); return; }
    // Redrawing replaces the buttons: a keyboard player keeps the focus at the table.
    const active = document.activeElement;
    const atTable = active && active !== document.body && ["hand", "layout", "actions"].some((id) => $(id).contains(active));
    const focusedTile = active && active.dataset ? active.dataset.tile : null;
    drawBoard(msg, event);
    drawHand(msg);
    drawActions(msg);
    if ((atTable || active === document.body) && keyboardUsed && !chosen) {
      const again = (focusedTile && document.querySelector(`#hand button[data-tile="${focusedTile}"]`)) ||
        document.querySelector("#hand button.playable") || [$("draw"), $("knock")].find((b) => !b.hidden);
      if (again) again.focus(); else if (atTable) $("hand").focus();
    }
    if (myTurn()) say(chosen ? t("choose where: a highlighted place (Esc to choose again)") : t("your turn"));
    else if (msg.match.over) say(t("the match is over"));
    else if (view.turn !== null && view.turn !== undefined) say(t("{name} to play", { name: msg.names[view.turn] }));
    startTimer(msg);
    if (msg.hand_over && handOverShown !== msg.hand_over.hand) showHandOver(msg);
  }

  function drawSeats(msg) {
    const view = msg.view, table = msg.table, seats = $("seats");
    seats.replaceChildren();
    msg.names.forEach((name, seat) => {
      const div = document.createElement("div");
      const away = msg.away && msg.away[seat];
      div.className = "seat-box" + (view && view.turn === seat ? " turn" : "") + (seat === msg.seat ? " me" : "") + (away ? " away" : "");
      div.dataset.seat = seat;
      const size = view ? view.hand_sizes[seat] : "";
      const score = view ? (view.result ? view.result.final[seat] : view.scores[seat]) : "";
      // Pairs exist once the lots are drawn, that is once the game has begun.
      const pair = table.pairs && view ? " · " + t("pair {letter}", { letter: "AB"[seat % 2] }) : "";
      const label = seat === msg.seat ? t("{name} (you)", { name }) : name;
      const parts = [(view && view.turn === seat ? "▶ " : "") + label + pair];
      if (view) parts.push(t("tiles {count}", { count: size }), `${score}`);
      div.textContent = parts.join(" · ");
      if (away) {
        const tag = document.createElement("span");
        tag.className = "away-tag";
        tag.textContent = name.endsWith("(bot)") ? t("away: a bot plays") : t("away");
        div.append(" ", tag);
      }
      const clock = document.createElement("span");
      clock.className = "clock";
      div.append(clock);
      seats.appendChild(div);
    });
  }

  function drawBoard(msg, event) {
    const view = msg.view;
    const targets = new Map();
    if (chosen) for (const [m] of playsOf(chosen)) targets.set(pointOf(m), `${m.play[0]}-${m.play[1]}`);
    // The legend explains what the board shows: sides only once there are any.
    $("legend-side").hidden = !view.layout.points.some((p) => p.kind === "side");
    const lastIndex = view.layout.tiles.length - 1;
    const board = drawLayout($("layout"), view.layout, {
      targets, last: lastIndex,
      onPoint: (id) => {
        const found = chosen && playsOf(chosen).find(([m]) => pointOf(m) === String(id));
        if (found) move(found[1]);
      },
    });
    board.querySelectorAll(".place.target").forEach((b) => b.setAttribute("data-drop", "1"));
    magnify(board);
    const grew = lastTiles >= 0 && lastIndex === lastTiles + 1 && event && event.play;
    if (grew && !reduced) flyIn(board, lastIndex, event);
    if (event && event.play && event.points) scoreAt(board, lastIndex, event.points, msg.names[event.seat]);
    lastTiles = lastIndex;
  }

  // The tile just laid moves from where it came (the hand, or the player's place at
  // the table) to where it lies.
  function flyIn(board, index, event) {
    const laid = board.querySelector(`g.laid[data-node="${index}"]`);
    if (!laid) return;
    const from = event.seat === last.seat ? $("hand") : document.querySelector(`.seat-box[data-seat="${event.seat}"]`);
    if (!from) return;
    const a = from.getBoundingClientRect(), b = laid.getBoundingClientRect();
    const scale = board.viewBox.baseVal.width / board.getBoundingClientRect().width;
    const dx = (a.left + a.width / 2 - (b.left + b.width / 2)) * scale;
    const dy = (a.top + a.height / 2 - (b.top + b.height / 2)) * scale;
    laid.animate([{ transform: `translate(${dx}px, ${dy}px)`, opacity: 0.4 }, { transform: "translate(0, 0)", opacity: 1 }],
      { duration: 550, easing: "ease-out" });
  }

  function scoreAt(board, index, points, name) {
    const laid = board.querySelector(`g.laid[data-node="${index}"]`);
    if (!laid) return;
    const box = laid.getBBox();
    const text = svg("text", { x: box.x + box.width / 2, y: box.y - 6, "text-anchor": "middle", class: "scored" });
    text.textContent = `+${points} ${name}`;
    board.appendChild(text);
    // The board may be small: let the label show outside its box.
    board.style.overflow = "visible";
  }

  function drawHand(msg) {
    const hand = $("hand"), view = msg.view;
    hand.replaceChildren();
    const turn = myTurn();
    for (const tile of msg.hand_order || view.hand) {
      const key = tileKey(tile);
      const plays = turn ? playsOf(key) : [];
      const face = tileSvg(tile[0], tile[1], false, []);
      face.setAttribute("aria-hidden", "true");
      if (plays.length) {
        const button = document.createElement("button");
        button.type = "button";
        button.className = "hand-tile playable" + (key === chosen ? " chosen" : "") + (hinted && hinted.key === key ? " hinted" : "");
        button.dataset.tile = key;
        button.setAttribute("aria-label", plays.length > 1 ? t("{tile}, fits {count} places", { tile: key, count: plays.length }) : t("{tile}, fits", { tile: key }));
        button.setAttribute("aria-pressed", key === chosen ? "true" : "false");
        button.appendChild(face);
        button.addEventListener("click", () => { if (!button.dataset.dragged) choose(key); delete button.dataset.dragged; });
        dragFrom(button, key);
        hand.appendChild(button);
      } else {
        const span = document.createElement("span");
        span.className = "hand-tile";
        span.setAttribute("role", "img");
        span.setAttribute("aria-label", turn ? t("{tile}, does not fit", { tile: key }) : key);
        span.appendChild(face);
        hand.appendChild(span);
      }
    }
    hand.setAttribute("aria-label", t("your hand, {count} tiles", { count: view.hand.length }));
  }

  function drawActions(msg) {
    const legal = msg.legal || [];
    const drawAt = legal.findIndex((m) => "draw" in m), passAt = legal.findIndex((m) => "pass" in m);
    $("draw").hidden = drawAt < 0;
    $("knock").hidden = passAt < 0;
    $("knock").textContent = PASS_BUTTON[msg.table.face.pass_word] || msg.table.face.pass_word;
    $("draw").onclick = () => move(drawAt);
    $("knock").onclick = () => move(passAt);
  }

  // Drag a tile from the hand onto a place (mouse, pen and touch alike).
  function dragFrom(button, key) {
    button.addEventListener("pointerdown", (down) => {
      if (down.button !== 0) return;
      let ghost = null;
      const startX = down.clientX, startY = down.clientY;
      const moveTo = (e) => {
        if (!ghost && Math.hypot(e.clientX - startX, e.clientY - startY) < 8) return;
        if (!ghost) {
          chosen = key; render(null);
          ghost = button.cloneNode(true);
          ghost.className = "hand-tile ghost";
          document.body.appendChild(ghost);
        }
        ghost.style.left = `${e.clientX - 30}px`;
        ghost.style.top = `${e.clientY - 15}px`;
      };
      const up = (e) => {
        window.removeEventListener("pointermove", moveTo);
        window.removeEventListener("pointerup", up);
        if (!ghost) return;
        ghost.remove();
        const now = document.querySelector(`#hand [data-tile="${key}"]`);
        if (now) now.dataset.dragged = "1";
        const place = document.elementFromPoint(e.clientX, e.clientY)?.closest("[data-point]");
        const found = place && playsOf(key).find(([m]) => pointOf(m) === place.dataset.point);
        if (found) move(found[1]);
      };
      window.addEventListener("pointermove", moveTo);
      window.addEventListener("pointerup", up);
    });
  }

  function choose(key) {
    if (pending) return;
    const plays = playsOf(key);
    if (plays.length === 1) return move(plays[0][1]);
    chosen = key;
    render(null);
    // The keyboard goes on to the places the tile can go.
    const first = document.querySelector("#layout .place.target");
    if (first) first.focus();
  }

  // -- the turn timer ----------------------------------------------------------------

  function startTimer(msg) {
    clearInterval(timer);
    document.querySelectorAll(".seat-box .clock").forEach((c) => (c.textContent = ""));
    $("timer").hidden = true;
    if (!msg.timer) return;
    const ends = performance.now() + msg.timer.left * 1000;
    const tick = () => {
      const left = Math.max(0, Math.ceil((ends - performance.now()) / 1000));
      const clock = document.querySelector(`.seat-box[data-seat="${msg.timer.seat}"] .clock`);
      if (clock) clock.textContent = ` ⏱ ${left}s`;
      if (msg.timer.seat === msg.seat) {
        $("timer").hidden = false;
        $("timer").textContent = t("{seconds} s left to play", { seconds: left });
        $("timer").className = "timer" + (left <= 5 ? " urgent" : "");
      }
      if (left <= 0) clearInterval(timer);
    };
    tick();
    timer = setInterval(tick, 250);
  }

  // -- hints, sheets ------------------------------------------------------------------

  function showHint(msg) {
    if (!last || msg.moves_made !== last.moves_made) return;
    const m = last.legal[msg.move];
    const what = m.play ? t("play {tile}", { tile: m.play[0] + "-" + m.play[1] }) : m.draw !== undefined ? t("draw") : PASS_WORD[last.table.face.pass_word] || last.table.face.pass_word;
    say(t("Hint: {what}, because {reasons}", { what, reasons: msg.reasons.join("; ") }), "hint");
    if (m.play) {
      hinted = { key: tileKey(m.play) };
      const tile = document.querySelector(`#hand [data-tile="${hinted.key}"]`);
      if (tile) tile.classList.add("hinted");
    }
  }

  function escape(text) { const d = document.createElement("div"); d.textContent = String(text); return d.innerHTML; }

  function sheetHtml(sheet) {
    const head = sheet.columns.map((c) => `<th scope="col">${escape(c)}</th>`).join("");
    const rows = sheet.rows.map((r) => `<tr>${r.map((c) => `<td>${escape(c)}</td>`).join("")}</tr>`).join("");
    return `<table class="list sheet-table"><thead><tr>${head}</tr></thead><tbody>${rows}</tbody></table><p class="explanation">${escape(sheet.explanation)}</p>`;
  }

  function showHandOver(msg) {
    const over = msg.hand_over;
    handOverShown = over.hand;
    const body = $("sheet-body");
    const lastMove = t("Last move: {move}", { move: over.said || "–" });
    const finalLayout = t("the layout at the end of the hand"), handsWord = t("Hands");
    body.innerHTML = `<h2 id="sheet-title">${escape(over.sheet.title)}</h2><p class="last-move">${escape(lastMove)}</p>` +
      `<div class="final-layout" aria-label="${escape(finalLayout)}"></div><h3>${escape(handsWord)}</h3><div class="open-hands"></div>` + sheetHtml(over.sheet);
    const hands = body.querySelector(".open-hands");
    over.hands.forEach((tiles, seat) => {
      const row = document.createElement("div");
      row.className = "open-hand";
      const pips = tiles.reduce((sum, tile) => sum + tile[0] + tile[1], 0);
      row.append(`${msg.names[seat]}: `);
      if (!tiles.length) row.append(t("went out"));
      for (const tile of tiles) row.appendChild(tileSvg(tile[0], tile[1], false));
      if (tiles.length) row.append(" " + t("({pips} pips)", { pips }));
      hands.appendChild(row);
    });
    const dialog = $("sheet");
    if (!dialog.open) dialog.showModal();
    drawLayout(body.querySelector(".final-layout"), over.layout, { last: over.layout.tiles.length - 1, unitPx: 16 });
    const actions = $("sheet-actions");
    actions.replaceChildren();
    if (over.match_over) {
      const done = document.createElement("p");
      const ended = msg.match.target ? t("Match over.") : t("Game over."), replay = t("Replay"), download = t("Download record");
      done.innerHTML = `<strong>${escape(ended)}</strong> <a href="/replay/${tableId}">${escape(replay)}</a> · <a href="/api/records/${tableId}">${escape(download)}</a>`;
      actions.appendChild(done);
      if (msg.seat >= 0) actions.appendChild(button(t("Rematch"), rematch, "rematch"));
      actions.appendChild(button(t("Close"), () => dialog.close(), "sheet-close"));
    } else {
      actions.appendChild(button(t("Next hand"), () => dialog.close(), "sheet-close"));
    }
    $("sheet-close").focus();
  }

  function button(text, onClick, id) {
    const b = document.createElement("button");
    b.type = "button"; b.textContent = text; b.id = id; b.onclick = onClick;
    return b;
  }

  function showMatchSheet() {
    const msg = last, lines = msg.hands || [];
    const head = [t("hand"), ...msg.names].map((c) => `<th scope="col">${escape(c)}</th>`).join("");
    const rows = lines.map((h) => `<tr><td>${h.hand}</td>${h.totals.map((total, s) => `<td>${total} <small>(${h.change[s] >= 0 ? "+" : ""}${h.change[s]})</small></td>`).join("")}</tr>`).join("");
    const title = msg.match.target ? t("Match sheet (to {target})", { target: msg.match.target }) : t("Match sheet");
    $("sheet-body").innerHTML = `<h2 id="sheet-title">${escape(title)}</h2><table class="list"><thead><tr>${head}</tr></thead><tbody>${rows}</tbody></table>`;
    const actions = $("sheet-actions");
    actions.replaceChildren(button(t("Close"), () => $("sheet").close(), "sheet-close"));
    if (!$("sheet").open) $("sheet").showModal();
  }

  async function rematch() {
    const table = last.table;
    const seats = table.seats.map((s, i) => (s.kind === "bot" && !s.name.endsWith("(bot)") ? { kind: "bot", bot: s.bot } : i === 0 ? { kind: "me" } : { kind: "open" }));
    if (!seats.some((s) => s.kind === "me")) seats[seats.findIndex((s) => s.kind === "open")] = { kind: "me" };
    const response = await fetch("/api/tables", { method: "POST", headers: { "Content-Type": "application/json", "X-CSRF-Token": csrf },
      body: JSON.stringify({ game: table.game, options: table.options, seats }) });
    const data = await response.json();
    if (response.ok) location.href = data.url; else say(data.detail, "error");
  }

  // -- controls -------------------------------------------------------------------------

  $("sheet-open").addEventListener("click", showMatchSheet);
  $("hint").addEventListener("click", () => send({ type: "hint" }));
  $("zoom-in").addEventListener("click", () => setZoom(zoom * 1.5));
  $("zoom-out").addEventListener("click", () => setZoom(zoom / 1.5));
  function setZoom(value) {
    zoom = Math.max(1, Math.min(5, value));
    if (zoom === 1) focus = null;
    if (last && last.view) render(null);
  }

  // A magnified board shows part of the layout (its viewBox), dragged to move around:
  // nothing on the page scrolls sideways however large the layout grows.
  function magnify(board) {
    const full = board.viewBox.baseVal;
    const whole = { x: full.x, y: full.y, w: full.width, h: full.height };
    $("zoom-out").disabled = zoom === 1;
    if (zoom === 1) return;
    if (!focus) {
      const laid = board.querySelector("g.laid.last") || board.querySelector("g.laid");
      const box = laid ? laid.getBBox() : { x: whole.x, y: whole.y, width: whole.w, height: whole.h };
      focus = [box.x + box.width / 2, box.y + box.height / 2];
    }
    const w = whole.w / zoom, h = whole.h / zoom;
    const show = () => {
      focus[0] = Math.max(whole.x + w / 2, Math.min(whole.x + whole.w - w / 2, focus[0]));
      focus[1] = Math.max(whole.y + h / 2, Math.min(whole.y + whole.h - h / 2, focus[1]));
      board.setAttribute("viewBox", `${focus[0] - w / 2} ${focus[1] - h / 2} ${w} ${h}`);
    };
    show();
    board.classList.add("magnified");
    board.addEventListener("pointerdown", (down) => {
      if (down.target.closest(".place.target")) return;
      const scale = w / board.getBoundingClientRect().width;
      let x = down.clientX, y = down.clientY;
      const drag = (e) => {
        focus[0] -= (e.clientX - x) * scale; focus[1] -= (e.clientY - y) * scale;
        x = e.clientX; y = e.clientY; show();
      };
      const stop = () => { window.removeEventListener("pointermove", drag); window.removeEventListener("pointerup", stop); };
      window.addEventListener("pointermove", drag);
      window.addEventListener("pointerup", stop);
    });
  }
  let resizing = null;
  window.addEventListener("resize", () => { clearTimeout(resizing); resizing = setTimeout(() => last && render(null), 150); });
  $("join").addEventListener("click", async () => {
    const response = await fetch(`/api/tables/${tableId}/join?invite=${encodeURIComponent(invite)}`, { method: "POST", headers: { "X-CSRF-Token": csrf } });
    const data = await response.json();
    if (!response.ok) return say(data.detail, "error");
    rejoining = true;
    socket.close();  // reconnect as the new seat
  });
  if ($("invite-copy")) {
    $("invite-copy").addEventListener("click", async () => {
      const field = $("invite-link");
      try { await navigator.clipboard.writeText(field.value); } catch (e) { field.select(); document.execCommand("copy"); }
      $("invite-copy").textContent = t("Copied");
    });
  }
  $("chat-form").addEventListener("submit", (e) => {
    e.preventDefault();
    const text = $("chat-text").value.trim();
    if (text) send({ type: "chat", text });
    $("chat-text").value = "";
  });
  let keyboardUsed = false;
  document.addEventListener("keydown", () => { keyboardUsed = true; }, true);
  document.addEventListener("pointerdown", () => { keyboardUsed = false; }, true);
  document.addEventListener("keydown", (e) => {
    if (e.key === "Escape" && chosen && !$("sheet").open) {
      const key = chosen;
      chosen = null; render(null);
      const back = document.querySelector(`#hand [data-tile="${key}"]`);
      if (back) back.focus();
    }
  });
  // For the benchmark of a redraw (benchmarks/web_table.py).
  window.pipsRedraw = () => last && last.view && render(null);
  connect();
})();

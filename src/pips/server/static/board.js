// The table in the browser: one websocket, each message the seat's own view.
"use strict";
(() => {
  const board = document.getElementById("board");
  const tableId = board.dataset.table;
  const invite = board.dataset.invite;
  const csrf = document.querySelector("meta[name=csrf]").content;
  const $ = (id) => document.getElementById(id);
  let socket = null, last = null, chosen = null, sheetShown = "", retry = 500, rejoining = false;
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
    socket = new WebSocket(`${scheme}://${location.host}/ws/${tableId}?invite=${encodeURIComponent(invite)}`);
    socket.addEventListener("open", () => { retry = 500; say(""); });
    socket.addEventListener("message", (e) => receive(JSON.parse(e.data)));
    socket.addEventListener("close", () => {
      // Joining closes the socket on purpose, to come back as the new seat at once.
      if (rejoining) { rejoining = false; say("taking your seat…"); connect(); return; }
      say("connection lost: reconnecting…");
      setTimeout(connect, retry);
      retry = Math.min(retry * 2, 8000);
    });
  }

  function send(message) {
    if (socket && socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify({ v: 1, ...message }));
  }

  function say(text, kind) {
    const box = $("message");
    box.textContent = text;
    box.className = "message " + (kind || "");
  }

  function receive(msg) {
    if (msg.type === "error") return say(msg.message, "error");
    if (msg.type === "chat") {
      const line = document.createElement("div");
      line.textContent = `${msg.from}: ${msg.text}`;
      $("chat-lines").appendChild(line);
      return;
    }
    if (msg.type !== "state") return;
    last = msg; chosen = null;
    // Kept on the page for the player to compare with the record after the game.
    if (msg.commitment && $("commitment")) $("commitment").textContent = msg.commitment;
    if (msg.event && msg.event.play) beep(msg.event.play[0] === msg.event.play[1]);
    render();
  }

  function tileKey(t) { return `${Math.max(t[0], t[1])}-${Math.min(t[0], t[1])}`; }

  function playsOf(key) {
    return (last.legal || []).map((m, i) => [m, i]).filter(([m]) => m.play && tileKey(m.play) === key);
  }

  function render() {
    const msg = last, view = msg.view, table = msg.table;
    document.title = `${table.title} · pips`;
    // Seats
    const seats = $("seats");
    seats.replaceChildren();
    msg.names.forEach((name, seat) => {
      const div = document.createElement("div");
      div.className = "seat-box" + (view && view.turn === seat ? " turn" : "") + (seat === msg.seat ? " me" : "");
      const size = view ? view.hand_sizes[seat] : "";
      const score = view ? (view.result ? view.result.final[seat] : view.scores[seat]) : "";
      const pair = table.pairs ? ` · pair ${"AB"[seat % 2]}` : "";
      div.textContent = `${view && view.turn === seat ? "▶ " : ""}${name}${seat === msg.seat ? " (you)" : ""}${pair} · tiles ${size} · ${score}`;
      seats.appendChild(div);
    });
    // Info line
    const info = [];
    if (table.status === "waiting") info.push("waiting for players: " + table.seats.filter((s) => s.kind === "open").length + " open seat(s)");
    if (view) {
      info.push(`hand ${view.hand_number}`);
      if (table.face.stock) info.push(`stock ${view.stock_size}`);
      if (view.options.divisor) {
        const s = view.layout.count, d = view.options.divisor;
        info.push(`S = ${s} · divisor ${d} · S mod ${d} = ${s % d}`);
      }
      if (msg.match.target) info.push(`match to ${msg.match.target}`);
    }
    $("info").textContent = info.join(" · ");
    $("join").hidden = !(table.status === "waiting" && msg.seat < 0 && table.seats.some((s) => s.kind === "open"));
    if (!view) { $("layout").replaceChildren(); $("hand").replaceChildren(); return; }
    // Layout, with the places the chosen tile can go
    const targets = new Map();
    if (chosen) for (const [m, i] of playsOf(chosen)) targets.set(m.end, i);
    drawLayout($("layout"), view.layout, {
      playable: new Set(targets.keys()),
      last: view.layout.tiles.length - 1,
      onPoint: (id) => { if (targets.has(id)) send({ type: "move", move: targets.get(id), moves_made: msg.moves_made }); },
    });
    // Hand
    const hand = $("hand");
    hand.replaceChildren();
    for (const t of msg.hand_order || view.hand) {
      const key = tileKey(t);
      const plays = playsOf(key);
      const el = tileSvg(t[0], t[1], false, plays.length ? ["playable"] : []);
      if (key === chosen) el.classList.add("chosen");
      if (plays.length) {
        el.setAttribute("tabindex", "0");
        el.setAttribute("draggable", "true");
        el.addEventListener("click", () => choose(key));
        el.addEventListener("dragstart", (e) => { chosen = key; e.dataTransfer.setData("text/plain", key); render(); });
      }
      hand.appendChild(el);
    }
    $("layout").querySelectorAll(".socket.target").forEach((b) => {
      b.addEventListener("dragover", (e) => e.preventDefault());
      b.addEventListener("drop", (e) => { e.preventDefault(); b.click(); });
    });
    const legal = msg.legal || [];
    const drawAt = legal.findIndex((m) => "draw" in m), passAt = legal.findIndex((m) => "pass" in m);
    $("draw").hidden = drawAt < 0;
    $("knock").hidden = passAt < 0;
    $("knock").textContent = table.face.pass_word;
    $("draw").onclick = () => send({ type: "move", move: drawAt, moves_made: msg.moves_made });
    $("knock").onclick = () => send({ type: "move", move: passAt, moves_made: msg.moves_made });
    if (view.turn === msg.seat && msg.seat >= 0) say(chosen ? "choose where: a highlighted place" : "your turn");
    else if (msg.match.over) say("the match is over");
    else if (view.turn !== null && view.turn !== undefined) say(`${msg.names[view.turn]} to play`);
    if (view.result && sheetShown !== `${view.hand_number}`) showSheet(msg);
  }

  function choose(key) {
    const plays = playsOf(key);
    if (plays.length === 1) {
      send({ type: "move", move: plays[0][1], moves_made: last.moves_made });
    } else {
      chosen = key;
      render();
    }
  }

  function showSheet(msg) {
    sheetShown = `${msg.view.hand_number}`;
    const sheet = msg.sheet;
    const head = sheet.columns.map((c) => `<th>${escape(c)}</th>`).join("");
    const rows = sheet.rows.map((r) => `<tr>${r.map((c) => `<td>${escape(c)}</td>`).join("")}</tr>`).join("");
    let html = `<h2>${escape(sheet.title)}</h2><table class="list"><thead><tr>${head}</tr></thead><tbody>${rows}</tbody></table><p>${escape(sheet.explanation)}</p>`;
    if (msg.match.over) {
      html += `<p><strong>Match over.</strong> <a href="/replay/${tableId}">Replay</a> · <a href="/api/records/${tableId}">Download record</a></p><button id="rematch">Rematch</button>`;
    }
    $("sheet-body").innerHTML = html;
    const dialog = $("sheet");
    if (!dialog.open) dialog.showModal();
    const again = $("rematch");
    if (again) again.onclick = rematch;
  }

  async function rematch() {
    const t = last.table;
    const seats = t.seats.map((s, i) => (s.kind === "bot" ? { kind: "bot", bot: s.bot } : i === 0 ? { kind: "me" } : { kind: "open" }));
    const mine = seats.findIndex((s) => s.kind === "me");
    if (mine < 0) seats[seats.findIndex((s) => s.kind === "open")] = { kind: "me" };
    const response = await fetch("/api/tables", { method: "POST", headers: { "Content-Type": "application/json", "X-CSRF-Token": csrf },
      body: JSON.stringify({ game: t.game, options: t.options, seats }) });
    const data = await response.json();
    if (response.ok) location.href = data.url; else say(data.detail, "error");
  }

  function escape(text) { const d = document.createElement("div"); d.textContent = text; return d.innerHTML; }

  $("sheet-close").addEventListener("click", () => $("sheet").close());
  $("join").addEventListener("click", async () => {
    const response = await fetch(`/api/tables/${tableId}/join?invite=${encodeURIComponent(invite)}`, { method: "POST", headers: { "X-CSRF-Token": csrf } });
    const data = await response.json();
    if (!response.ok) return say(data.detail, "error");
    rejoining = true;
    socket.close();  // reconnect as the new seat
  });
  $("chat-form").addEventListener("submit", (e) => {
    e.preventDefault();
    const text = $("chat-text").value.trim();
    if (text) send({ type: "chat", text });
    $("chat-text").value = "";
  });
  document.addEventListener("keydown", (e) => { if (e.key === "Escape" && chosen) { chosen = null; render(); } });
  connect();
})();

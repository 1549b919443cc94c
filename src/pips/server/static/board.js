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
  // The board's magnification asked for (1: the whole layout when it is readable) and
  // the point the window shows when the player has dragged it (null: follow the play).
  let zoom = 1, focus = null;
  // The geometry of the layout drawn last, kept: a redraw (a tile chosen, a message)
  // lays nothing out again, and a grown layout starts from the last board's size.
  let kept = { key: "", geometry: null, hand: 0, aspect: 0 };
  let knockAsked = false;       // a knock that sets tiles aside is asked twice
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
    socket.addEventListener("open", () => { retry = 500; unsent = false; say(""); $("chat-lines").replaceChildren(); });
    socket.addEventListener("message", (e) => receive(JSON.parse(e.data)));
    socket.addEventListener("close", () => {
      // Joining closes the socket on purpose, to come back as the new seat at once.
      if (rejoining) { rejoining = false; say(t("taking your seat…")); connect(); return; }
      say(unsent ? UNSENT : t("connection lost: reconnecting…"), "error");
      setTimeout(connect, retry);
      retry = Math.min(retry * 2, 8000);
    });
  }

  // Whether the message went: a tap while the connection is down is told, not dropped.
  function send(message) {
    if (socket && socket.readyState === WebSocket.OPEN) { socket.send(JSON.stringify({ v: 1, ...message })); return true; }
    unsent = true;
    say(UNSENT, "error");
    return false;
  }
  // Said until the connection is back: a redraw meanwhile (a resize) keeps it.
  const UNSENT = t("not connected: your move was not sent; try again once reconnected");
  let unsent = false;

  function move(index) {
    if (pending || !last) return;
    pending = send({ type: "move", move: index, moves_made: last.moves_made });
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
    root.classList.remove("loading");
    fitPlay();
    tellTurn(msg);
    drawSeats(msg);
    const info = [];
    if (table.status === "waiting") {
      const open = table.seats.filter((s) => s.kind === "open").length;
      info.push(open === 1 ? t("waiting for one more player") : t("waiting for {count} more players", { count: open }));
    }
    if (view) {
      info.push(t("hand {number}", { number: view.hand_number }));
      if (table.face.stock) info.push(t("stock {count}", { count: view.stock_size }));
      // The count of an empty table says nothing (nothing has been laid to score).
      if (view.options.divisor && view.layout.tiles.length) {
        const s = view.layout.count, d = view.options.divisor, rest = s % d;
        info.push(rest ? t("count {s}: {rest} over a multiple of {d}", { s, d, rest }) : t("count {s}: divisible by {d}", { s, d }));
      }
      if (table.pairs && view.scores.length === 4) info.push(t("pair A {a} : {b} pair B", { a: view.scores[0], b: view.scores[1] }));
      if (msg.match.target) info.push(t("match to {target}", { target: msg.match.target }));
    }
    $("info").textContent = info.join(" · ");
    $("join").hidden = !(table.status === "waiting" && msg.seat < 0 && table.seats.some((s) => s.kind === "open" && !s.kept));
    $("hint").hidden = !(table.hints && myTurn());
    $("sheet-open").hidden = !(msg.hands && msg.hands.length);
    drawStanding(msg);
    if (table.status === "abandoned") {
      $("layout").replaceChildren(); $("hand").replaceChildren(); drawActions({ ...msg, legal: [] });
      return say(t("This table was closed before the end of its game: nobody wins, nothing is recorded."));
    }
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
    if (unsent) {
      say(UNSENT, "error");
    } else if (myTurn()) {
      // The keyboard's way back is Esc; a finger's is the button beside the places.
      say(!chosen ? t("your turn") : keyboardUsed ? t("choose where: a highlighted place (Esc to choose again)") : t("choose where: a highlighted place"));
    } else if (msg.match.over) {
      const outcome = msg.match.outcome || "";
      say(msg.match.target ? t("Match over: {outcome}.", { outcome }) : t("Game over: {outcome}.", { outcome }));
    }
    else if (view.turn !== null && view.turn !== undefined) say(t("{name} to play", { name: msg.names[view.turn] }));
    startTimer(msg);
    if (msg.hand_over && handOverShown !== msg.hand_over.hand) showHandOver(msg);
    // Another player asked for the rematch: the sheet at the end offers to join it.
    const offer = $("rematch");
    if (msg.rematch && offer && !offer.dataset.join && $("sheet").open) sheetActions(msg, true);
  }

  function drawSeats(msg) {
    const view = msg.view, table = msg.table, seats = $("seats");
    seats.replaceChildren();
    seats.classList.toggle("many", msg.names.length > 4);
    msg.names.forEach((name, seat) => {
      const div = document.createElement("div");
      const away = msg.away && msg.away[seat];
      const standIn = msg.stand_in && msg.stand_in[seat];
      const toPlay = view && view.turn === seat;
      div.className = "seat-box" + (toPlay ? " turn" : "") + (seat === msg.seat ? " me" : "") + (away ? " away" : "");
      div.dataset.seat = seat;
      div.title = name;
      // What a screen reader says of the seat: the numbers with their words.
      const said = [seat === msg.seat ? t("{name} (you)", { name }) : name];
      if (toPlay) {
        const mark = document.createElement("span");
        mark.className = "turn-mark"; mark.textContent = "▶"; mark.setAttribute("aria-hidden", "true");
        div.append(mark);
        said.push(t("to play"));
      }
      const who = document.createElement("span");
      who.className = "who";
      who.textContent = name;
      who.dataset.name = name;
      div.append(who);
      if (seat === msg.seat) {
        const you = document.createElement("span");
        you.className = "you"; you.textContent = t("(you)");
        div.append(you);
      }
      // Pairs exist once the lots are drawn, that is once the game has begun.
      if (table.pairs && view) {
        const pair = document.createElement("span");
        pair.className = "pair";
        pair.textContent = "AB"[seat % 2];
        pair.title = t("pair {letter}", { letter: "AB"[seat % 2] });
        div.prepend(pair);
        said.push(pair.title);
      }
      if (view) {
        const tiles = document.createElement("span");
        tiles.className = "tiles";
        tiles.textContent = view.hand_sizes[seat];
        tiles.title = t("tiles {count}", { count: view.hand_sizes[seat] });
        const score = document.createElement("span");
        score.className = "score";
        const points = view.result ? view.result.final[seat] : view.scores[seat];
        score.textContent = points;
        score.title = t("points");
        div.append(tiles, score);
        said.push(tiles.title, t("{points} points", { points }));
      }
      if (away || standIn) {
        const tag = document.createElement("span");
        tag.className = "away-tag";
        tag.textContent = standIn ? t("away: a bot plays") : t("away");
        div.append(tag);
        said.push(tag.textContent);
      }
      const clock = document.createElement("span");
      clock.className = "clock";
      div.append(clock);
      div.setAttribute("role", "group");
      div.setAttribute("aria-label", said.join(", "));
      // The label says it all in words: the bare numbers inside are not read again.
      for (const part of div.children) part.setAttribute("aria-hidden", "true");
      seats.appendChild(div);
    });
    distinctNames(seats);
  }

  // A name cut short to fit its seat keeps its end as well as its beginning
  // ("gree…y-1"), so that seats whose names begin alike stay apart at any width; the
  // whole name is the seat's tooltip.
  function distinctNames(seats) {
    for (const who of seats.querySelectorAll(".who")) {
      const name = who.dataset.name;
      if (who.scrollWidth <= who.clientWidth + 1 || name.length < 5) continue;
      let low = 2, high = name.length - 1;
      while (low < high) {
        const keep = Math.ceil((low + high) / 2);
        who.textContent = middle(name, keep);
        if (who.scrollWidth <= who.clientWidth + 1) low = keep; else high = keep - 1;
      }
      who.textContent = middle(name, low);
    }
  }

  const middle = (name, keep) => {
    const tail = Math.min(3, Math.floor(keep / 2));
    return name.slice(0, keep - tail) + "…" + name.slice(name.length - tail);
  };

  // Standing up (issue 51): abort before the first move, leave (or, alone with bots,
  // give up) after it. Each asks first: the seat is lost for good.
  function drawStanding(msg) {
    const seated = msg.seat >= 0 && ["waiting", "playing"].includes(msg.table.status);
    const begun = msg.table.status === "playing" && msg.moves_made > 0;
    $("abort").hidden = !seated || begun;
    $("leave").hidden = !seated || !begun;
    const people = msg.table.seats.filter((s) => s.kind === "person").length;
    $("leave").textContent = people > 1 ? t("Leave") : t("Resign");
    $("leave").dataset.what = people > 1 ? "leave" : "resign";
  }

  async function standUp(what) {
    const asked = {
      abort: t("Abort this game? The table closes, unplayed."),
      resign: t("Give this game up? It ends here, without a result."),
      leave: t("Leave this table for good? A bot plays your seat to the end, and it is no longer yours."),
    }[what];
    if (!window.confirm(asked)) return;
    const response = await fetch(`/api/tables/${tableId}/${what}`, { method: "POST", headers: { "X-CSRF-Token": csrf } });
    const data = await response.json();
    if (!response.ok) return say(data.message, "error");
    location.href = "/";
  }

  // The tab's title and, if asked for, a notification tell a player whose page is not
  // in front that it is their turn.
  let toldTurn = -1;
  function tellTurn(msg) {
    const mine = myTurn();
    document.title = (mine ? "▶ " + t("your turn") + " · " : "") + `${msg.table.title} · pips`;
    if (!mine || toldTurn === msg.moves_made) return;
    toldTurn = msg.moves_made;
    if (document.hidden && $("notify").checked && "Notification" in window && Notification.permission === "granted") {
      try { new Notification(t("your turn"), { body: msg.table.title, tag: "pips-turn" }); } catch (e) { /* not here */ }
    }
  }

  function drawBoard(msg, event) {
    const view = msg.view;
    const targets = new Map();
    if (chosen) for (const [m] of playsOf(chosen)) targets.set(pointOf(m), `${m.play[0]}-${m.play[1]}`);
    // The legend explains what the board shows: sides only once there are any.
    $("legend-side").hidden = !view.layout.points.some((p) => p.kind === "side");
    const lastIndex = view.layout.tiles.length - 1;
    const box = $("layout");
    const [roomW, roomH] = boardRoom(box);
    const layout = view.layout;
    // The board keeps its shape through a hand while the room for it changes little
    // (the hand grows shorter, a line of text wraps): its tiles then stay where they lie.
    const sameHand = kept.hand === view.hand_number && kept.geometry;
    const near = sameHand && Math.abs(Math.log(kept.aspect / (roomW / roomH))) < 0.2;
    const aspect = near ? kept.aspect : roomW / roomH;
    const key = `${view.hand_number}/${layout.tiles.length}/${layout.points.length}/${aspect.toFixed(3)}`;
    if (kept.key !== key) {
      // Within a hand the layout only grows: it goes on from the last one.
      const from = near && kept.geometry.tiles.length <= layout.tiles.length ? kept.geometry : sameHand ? kept.geometry.area : 0;
      kept = { key, geometry: layoutGeometry(layout, aspect, from), hand: view.hand_number, aspect };
    }
    const board = drawLayout(box, layout, {
      targets, last: lastIndex, geometry: kept.geometry, zoom, fill: true,
      focus: chosen ? null : focus,
      onFocus: (point) => { focus = point; $("follow").hidden = false; },
      onPoint: (id) => {
        const found = chosen && playsOf(chosen).find(([m]) => pointOf(m) === String(id));
        if (found) move(found[1]);
      },
    });
    board.querySelectorAll(".place.target").forEach((b) => b.setAttribute("data-drop", "1"));
    const windowed = board.dataset.window === "1";
    $("zoom-out").disabled = zoom <= 1;
    $("zoom-in").disabled = Number(board.dataset.unit) >= MAX_UNIT_PX;
    $("follow").hidden = !(windowed && focus);
    const grew = lastTiles >= 0 && lastIndex === lastTiles + 1 && event && event.play;
    if (grew && !reduced) flyIn(board, lastIndex, event);
    if (event && event.play && event.points) scored(event.points, msg.names[event.seat]);
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

  // What a play scored (F-15), beside the board rather than on it: a label on the
  // board would cover the tile just laid. (The moves' list says it in words.)
  function scored(points, name) {
    const label = $("scored");
    label.textContent = `+${points} ${name}`;
    // The animation starts again for every score.
    label.style.animation = "none"; void label.offsetWidth; label.style.animation = "";
  }

  function drawHand(msg) {
    const hand = $("hand"), view = msg.view;
    hand.replaceChildren();
    const turn = myTurn();
    // The game's own order (FIDO: the Ratzek order, F-03), or by number when asked.
    const held = msg.hand_order || view.hand;
    $("sort").hidden = held.length < 2;
    const shown = byNumber ? [...held].sort((a, b) => Math.max(b[0], b[1]) - Math.max(a[0], a[1]) || Math.min(b[0], b[1]) - Math.min(a[0], a[1])) : held;
    for (const tile of shown) {
      const key = tileKey(tile);
      const plays = turn ? playsOf(key) : [];
      const face = tileSvg(tile[0], tile[1], false, []);
      face.setAttribute("aria-hidden", "true");
      if (plays.length) {
        const button = document.createElement("button");
        button.type = "button";
        button.className = "hand-tile playable" + (key === chosen ? " chosen" : "") + (hinted && hinted.key === key ? " hinted" : "");
        button.dataset.tile = key;
        // The name in words inside the button, not an aria-label: a label that does not
        // begin with the numerals drawn on the tile confuses voice control (WCAG 2.5.3).
        const words = document.createElement("span");
        words.className = "visually-hidden";
        words.textContent = plays.length > 1 ? t("{tile}, fits {count} places", { tile: key, count: plays.length }) : t("{tile}, fits", { tile: key });
        button.setAttribute("aria-pressed", key === chosen ? "true" : "false");
        button.append(face, words);
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
    const plays = legal.filter((m) => m.play).length;
    $("draw").hidden = drawAt < 0;
    $("knock").hidden = passAt < 0;
    // The game's word (face.pass_word, "Knock"), in the page's language.
    const word = PASS_BUTTON[msg.table.face.pass_word.toLowerCase()] || msg.table.face.pass_word;
    // A knock beside plays (PT-08 penalize) sets tiles aside: asked twice.
    const costly = passAt >= 0 && plays > 0;
    if (!costly) knockAsked = false;
    $("knock").textContent = costly && knockAsked ? t("{word} anyway: the tiles that fit are set aside", { word }) : word;
    $("knock").classList.toggle("costly", costly);
    $("draw").onclick = () => move(drawAt);
    $("knock").onclick = () => {
      if (costly && !knockAsked) { knockAsked = true; say(t("You could lay a tile: a false knock sets aside every tile that fits (PT-08). Press again to knock."), "error"); drawActions(msg); return; }
      knockAsked = false;
      move(passAt);
    };
    drawPlaces(msg);
  }

  // The places the chosen tile may go, as buttons too: a finger need not hit a place
  // on a small board, and a window of a large layout may not show them all.
  function drawPlaces(msg) {
    const places = $("places");
    places.replaceChildren();
    const plays = chosen ? playsOf(chosen) : [];
    places.hidden = plays.length < 2;
    $("choose-again").hidden = !chosen;
    if (plays.length < 2) return;
    for (const [m, index] of plays) {
      const id = pointOf(m);
      const point = msg.view.layout.points.find((p) => String(p.id) === id) || { id, kind: OPENING, value: "" };
      const b = document.createElement("button");
      b.type = "button";
      b.className = "place-button " + point.kind;
      b.dataset.point = id;
      b.textContent = point.kind === "side" ? `◆${point.value}` : point.kind === OPENING ? t("middle") : `▸${point.value}`;
      b.setAttribute("aria-label", t("play {tile} at the {place}", { tile: `${m.play[0]}-${m.play[1]}`, place: describePoint(point) }));
      b.onclick = () => move(index);
      places.appendChild(b);
    }
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
    const what = m.play ? t("play {tile}", { tile: m.play[0] + "-" + m.play[1] }) : m.draw !== undefined ? t("draw") : PASS_WORD[last.table.face.pass_word.toLowerCase()] || last.table.face.pass_word;
    say(t("Hint: {what} — {reasons}", { what, reasons: msg.reasons.join("; ") }), "hint");
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
    return `<div class="wide"><table class="list sheet-table"><thead><tr>${head}</tr></thead><tbody>${rows}</tbody></table></div><p class="explanation">${escape(sheet.explanation)}</p>`;
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
    drawLayout(body.querySelector(".final-layout"), over.layout, { last: over.layout.tiles.length - 1, maxUnitPx: 16, height: Math.max(160, window.innerHeight * 0.35), whole: true });
    if (over.match_over) {
      // The end of the match comes first: whether you won, then who won, in words; the
      // last hand's sheet is its second part (issue 51).
      const ended = msg.match.target ? t("Match over: {outcome}.", { outcome: msg.match.outcome || "" }) : t("Game over: {outcome}.", { outcome: msg.match.outcome || "" });
      const title = body.querySelector("#sheet-title");
      const hand = document.createElement("h3");
      hand.textContent = title.textContent;
      const said = verdict(msg);
      const head = document.createElement(said ? "p" : "span");
      head.className = "outcome";
      head.id = "outcome";
      head.textContent = ended;
      if (said) {
        title.textContent = said;
        title.after(head);
      } else {
        // Nobody's own verdict (a spectator, or a seat a stand-in played: seat -1):
        // the heading is who won, said once, not twice (issue 51).
        title.replaceChildren(head);
      }
      (said ? head : title).after(hand);
      if (msg.hands && msg.hands.length > 1) body.insertAdjacentHTML("beforeend", matchSheetHtml(msg));
    }
    sheetActions(msg, over.match_over);
    // The sheet opens at its top: the result and the last move first.
    body.scrollTop = 0; dialog.scrollTop = 0;
    $("sheet-close").focus({ preventScroll: true });
  }

  // "You won" or "You lost" to a player (a shared first place is a win), nothing to
  // a spectator.
  function verdict(msg) {
    const result = msg.match.result;
    if (!result || msg.seat < 0) return "";
    const rank = result.ranks[msg.seat];
    const firsts = result.ranks.filter((r) => r === 1).length;
    if (rank !== 1) return t("You lost");
    return firsts > 1 && !(msg.table.pairs && firsts === 2) ? t("You share first place") : t("You won");
  }

  function sheetActions(msg, matchOver) {
    const dialog = $("sheet"), actions = $("sheet-actions");
    actions.replaceChildren();
    if (!matchOver) return actions.appendChild(button(t("Next hand"), () => dialog.close(), "sheet-close"));
    // (Words outside the template strings: the catalog's extractor does not look in them.)
    const replay = t("Replay"), download = t("Download record");
    const links = document.createElement("p");
    links.innerHTML = `<a href="/replay/${tableId}">${escape(replay)}</a> · <a href="/api/records/${tableId}">${escape(download)}</a>`;
    actions.appendChild(links);
    // Everyone who played may ask for the rematch (the first makes it, the others join it).
    if (msg.seat >= 0 || (msg.stand_in || []).some((x) => x)) {
      const offer = button(msg.rematch ? t("Join the rematch") : t("Rematch"), rematch, "rematch");
      if (msg.rematch) offer.dataset.join = "1";
      actions.appendChild(offer);
    }
    actions.appendChild(button(t("Close"), () => dialog.close(), "sheet-close"));
  }

  function button(text, onClick, id) {
    const b = document.createElement("button");
    b.type = "button"; b.textContent = text; b.id = id; b.onclick = onClick;
    return b;
  }

  // The running match sheet: every hand's totals, by pair where seats play in pairs.
  function matchSheetHtml(msg) {
    const lines = msg.hands || [];
    const pairs = msg.table.pairs && msg.names.length === 4;
    const columns = pairs ? [0, 1] : msg.names.map((_, s) => s);
    const label = (s) => (pairs ? t("pair {letter}", { letter: "AB"[s] }) + ` (${msg.names[s]} & ${msg.names[s + 2]})` : msg.names[s]);
    const head = [t("hand"), ...columns.map(label)].map((c) => `<th scope="col">${escape(c)}</th>`).join("");
    const rows = lines.map((h) => `<tr><td>${h.hand}</td>${columns.map((s) => `<td>${h.totals[s]} <small>(${h.change[s] >= 0 ? "+" : ""}${h.change[s]})</small></td>`).join("")}</tr>`).join("");
    const title = msg.match.target ? t("Match sheet (to {target})", { target: msg.match.target }) : t("Match sheet");
    return `<h3>${escape(title)}</h3><div class="wide"><table class="list match-sheet"><thead><tr>${head}</tr></thead><tbody>${rows}</tbody></table></div>`;
  }

  function showMatchSheet() {
    const msg = last;
    const outcome = msg.match.over && msg.match.outcome ? `<p class="outcome">${escape(msg.match.outcome)}</p>` : "";
    const title = t("Match sheet");
    $("sheet-body").innerHTML = `<h2 id="sheet-title">${escape(title)}</h2>${outcome}` + matchSheetHtml(msg);
    if (msg.match.over) sheetActions(msg, true);
    else $("sheet-actions").replaceChildren(button(t("Close"), () => $("sheet").close(), "sheet-close"));
    if (!$("sheet").open) $("sheet").showModal();
    $("sheet").scrollTop = 0;
  }

  async function rematch() {
    const response = await fetch(`/api/tables/${tableId}/rematch`, { method: "POST", headers: { "X-CSRF-Token": csrf } });
    const data = await response.json();
    if (response.ok) location.href = data.url; else say(data.message, "error");
  }

  // -- controls -------------------------------------------------------------------------

  $("sheet-open").addEventListener("click", showMatchSheet);
  let byNumber = localStorage.getItem("pips-sort") === "number";
  const sortWords = () => {
    // One name, pressed or not (a toggle's name does not change with its state).
    $("sort").setAttribute("aria-pressed", String(byNumber));
  };
  sortWords();
  $("sort").addEventListener("click", () => {
    byNumber = !byNumber;
    localStorage.setItem("pips-sort", byNumber ? "number" : "held");
    sortWords();
    if (last && last.view) render(null);
  });
  $("abort").addEventListener("click", () => standUp("abort"));
  $("leave").addEventListener("click", () => standUp($("leave").dataset.what));
  $("hint").addEventListener("click", () => send({ type: "hint" }));
  $("zoom-in").addEventListener("click", () => setZoom(zoom * 1.5));
  $("zoom-out").addEventListener("click", () => setZoom(zoom / 1.5));
  $("follow").addEventListener("click", () => { focus = null; if (last && last.view) render(null); });
  $("choose-again").addEventListener("click", () => { chosen = null; if (last) render(null); });
  function setZoom(value) {
    zoom = Math.max(1, Math.min(4, value));
    if (last && last.view) render(null);
  }
  // The play fills the window below what comes before it (the site's bar): its top is
  // measured, so a bar that wraps on a phone leaves the board less room, not the hand.
  function fitPlay() {
    const play = document.querySelector(".play");
    if (!play) return;
    document.documentElement.style.setProperty("--play-top", `${Math.ceil(play.getBoundingClientRect().top + window.scrollY)}px`);
  }
  fitPlay();
  // The site's bar may grow after the first measure (a font arrives, a name wraps).
  if (window.ResizeObserver) {
    new ResizeObserver(() => { const was = getComputedStyle(document.documentElement).getPropertyValue("--play-top"); fitPlay();
      if (last && getComputedStyle(document.documentElement).getPropertyValue("--play-top") !== was) render(null); })
      .observe(document.querySelector("header.bar"));
  }
  // The board's own box changes with what is around it (the hand, a line of buttons):
  // the layout is drawn again for the room it has (the drawing itself already scales
  // to its box, so nothing is cut off meanwhile).
  if (window.ResizeObserver) {
    let seen = "", queued = false;
    new ResizeObserver(([entry]) => {
      const size = `${Math.round(entry.contentRect.width / 8)}x${Math.round(entry.contentRect.height / 8)}`;
      if (size === seen || queued) return;
      seen = size; queued = true;
      requestAnimationFrame(() => { queued = false; if (last && last.view) render(null); });
    }).observe($("layout"));
  }
  if ("Notification" in window) {
    $("notify").closest("label").hidden = false;
    $("notify").checked = localStorage.getItem("pips-notify") === "on" && Notification.permission === "granted";
    $("notify").addEventListener("change", async () => {
      if ($("notify").checked && Notification.permission !== "granted") {
        $("notify").checked = (await Notification.requestPermission()) === "granted";
      }
      localStorage.setItem("pips-notify", $("notify").checked ? "on" : "off");
    });
  }
  let resizing = null;
  window.addEventListener("resize", () => { clearTimeout(resizing); resizing = setTimeout(() => { fitPlay(); if (last) render(null); }, 150); });
  $("join").addEventListener("click", async () => {
    if (root.dataset.named !== "1") return $("sit-form").submit();
    const response = await fetch(`/api/tables/${tableId}/join?invite=${encodeURIComponent(invite)}`, { method: "POST", headers: { "X-CSRF-Token": csrf } });
    const data = await response.json();
    if (!response.ok) return say(data.message, "error");
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

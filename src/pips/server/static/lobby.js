"use strict";
(() => {
  const form = document.getElementById("new-table");
  if (!form) return;
  const csrf = document.querySelector("meta[name=csrf]").content;
  const game = document.getElementById("game");
  function show() {
    document.querySelectorAll(".game-options").forEach((f) => { f.hidden = f.dataset.game !== game.value; });
  }
  game.addEventListener("change", show);
  show();
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    const options = {};
    const fields = document.querySelector(`.game-options[data-game="${game.value}"]`);
    for (const input of fields.querySelectorAll("input")) {
      const v = input.value.trim();
      if (!v) continue;
      if (input.dataset.kind === "bool") options[input.name] = ["1", "true", "yes", "on"].includes(v.toLowerCase());
      else options[input.name] = /^-?\d+$/.test(v) ? Number(v) : v;
    }
    const seats = form.seats.value.split(",").map((s) => s.trim()).filter(Boolean).map((s) =>
      s === "me" || s === "open" ? { kind: s } : { kind: "bot", bot: s.replace(/^bot:/, "") });
    // A game played by a fixed number of players takes no count from the seats.
    if (!("players" in options) && !fields.dataset.fixedPlayers) options.players = seats.length;
    const body = { game: game.value, options, seats, private: form.private.checked };
    if (form.turn_seconds.value) body.turn_seconds = Number(form.turn_seconds.value);
    const response = await fetch("/api/tables", { method: "POST", headers: { "Content-Type": "application/json", "X-CSRF-Token": csrf }, body: JSON.stringify(body) });
    const data = await response.json();
    if (!response.ok) { alert(typeof data.detail === "string" ? data.detail : JSON.stringify(data.detail)); return; }
    location.href = data.url + (body.private ? `?invite=${data.invite}` : "");
  });
})();

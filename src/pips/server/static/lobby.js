// The lobby's form: the options of the chosen game with the controls their kinds call
// for, a seat per player, the game in one line, and errors next to their field.
"use strict";
(() => {
  const form = document.getElementById("new-table");
  if (!form) return;
  const csrf = document.querySelector("meta[name=csrf]").content;
  const game = document.getElementById("game");
  const $ = (id) => document.getElementById(id);
  let checking = 0;

  const fields = () => document.querySelector(`.game-options[data-game="${game.value}"]`);

  function options() {
    const out = {};
    for (const input of fields().querySelectorAll("[data-control]")) {
      if (input.closest(".field").hidden) continue;
      if (input.dataset.control === "checkbox") { out[input.name] = input.checked; continue; }
      const v = input.value.trim();
      if (v === "") continue;
      out[input.name] = /^-?\d+$/.test(v) ? Number(v) : v;
    }
    return out;
  }

  function players() {
    const chosen = fields().querySelector('[name="players"]');
    return chosen ? Number(chosen.value) : 0;
  }

  function drawSeats() {
    const list = $("seat-list");
    const was = [...list.querySelectorAll(".seat-kind")].map((s) => s.value);
    list.replaceChildren();
    const count = players();
    for (let i = 0; i < count; i++) {
      const row = $("seat-template").content.cloneNode(true);
      row.querySelector(".seat-name").textContent = t("Seat {number}", { number: i + 1 });
      const select = row.querySelector(".seat-kind");
      select.value = was[i] || (i === 0 ? "me" : "bot:greedy");
      select.setAttribute("aria-label", t("seat {number}", { number: i + 1 }));
      list.appendChild(row);
    }
  }

  function clearErrors() {
    document.querySelectorAll(".field-error").forEach((e) => (e.textContent = ""));
    document.querySelectorAll("[aria-invalid]").forEach((e) => e.removeAttribute("aria-invalid"));
  }

  function showError(message, rule, field) {
    const box = (field && fields().querySelector(`.field[data-field="${field}"] .field-error`)) || $("form-error");
    box.replaceChildren(message + " ");
    if (rule) {
      const link = document.createElement("a");
      link.href = `/rules/${game.value}#${rule}`; link.target = "_blank"; link.rel = "noopener";
      link.textContent = t("(rule {rule})", { rule });
      box.appendChild(link);
    }
    const input = field && fields().querySelector(`[name="${field}"]`);
    if (input) input.setAttribute("aria-invalid", "true");
  }

  async function check() {
    const mine = ++checking;
    const response = await fetch(`/api/games/${game.value}/check`, { method: "POST",
      headers: { "Content-Type": "application/json" }, body: JSON.stringify({ options: options() }) });
    if (mine !== checking) return null;
    const data = await response.json();
    clearErrors();
    if (!response.ok) {
      // The API's error model: the option at fault is body.options.NAME.
      const option = (data.field || "").startsWith("body.options.") ? data.field.slice(13) : null;
      $("brief").textContent = "";
      showError(data.message || t("these options could not be read"), data.rule || null, option);
      return null;
    }
    $("brief").textContent = data.brief;
    return data;
  }

  function show() {
    document.querySelectorAll(".game-options").forEach((f) => {
      const mine = f.dataset.game === game.value;
      f.hidden = !mine; f.disabled = !mine;
    });
    $("rules-link").href = `/rules/${game.value}`;
    drawSeats();
    check();
  }
  game.addEventListener("change", show);
  form.addEventListener("change", (e) => {
    if (e.target === game || e.target.classList.contains("seat-kind")) return;
    if (e.target.name === "players") drawSeats();
    check();
  });
  show();

  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    const data = await check();
    if (!data) return;
    const seats = [...document.querySelectorAll("#seat-list .seat-kind")].map((s) =>
      s.value === "me" || s.value === "open" ? { kind: s.value } : { kind: "bot", bot: s.value.slice(4) });
    if (seats.filter((s) => s.kind === "me").length > 1) return showError(t("you can take one seat: choose “me” once"));
    const body = { game: game.value, options: options(), seats, private: form.private.checked };
    if (form.turn_seconds.value) body.turn_seconds = Number(form.turn_seconds.value);
    const response = await fetch("/api/tables", { method: "POST", headers: { "Content-Type": "application/json", "X-CSRF-Token": csrf }, body: JSON.stringify(body) });
    const answer = await response.json();
    if (!response.ok) {
      // The API's error model: the message in the reader's language, the rule apart.
      return showError(answer.message || t("the table could not be created"), answer.rule || null);
    }
    location.href = answer.url + (body.private ? `?invite=${answer.invite}` : "");
  });
})();

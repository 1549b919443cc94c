// Learn from your mistakes (issue 51): one exercise at a time from /api/exercises, the
// position as the seat saw it, its plays as buttons, the analysis's answer in words.
"use strict";
(() => {
  const root = document.getElementById("exercise");
  if (!root) return;
  const $ = (id) => document.getElementById(id);
  const csrf = document.querySelector("meta[name=csrf]").content;
  const ids = root.dataset.ids.split(" ").filter(Boolean);
  let at = 0;

  async function show(index) {
    at = index;
    $("ex-said").replaceChildren(); $("ex-next").hidden = true;
    const response = await fetch(`/api/exercises/${encodeURIComponent(ids[at])}`);
    const ex = await response.json();
    if (!response.ok) { $("ex-said").textContent = ex.message; return; }
    $("ex-where").textContent = t("Exercise {number} of {count}: {game}, hand {hand}, move {move}", {
      number: at + 1, count: ids.length, game: ex.title, hand: ex.hand, move: ex.move });
    $("ex-replay").href = `/replay/${ex.table}`;
    const box = $("ex-layout");
    drawLayout(box, ex.layout, { last: -1, maxUnitPx: 28, whole: true, fill: true });
    const hand = $("ex-hand");
    hand.replaceChildren();
    for (const tile of ex.tiles) hand.appendChild(tileSvg(tile[0], tile[1], false));
    const choices = $("ex-choices");
    choices.replaceChildren();
    for (const choice of ex.choices) {
      const b = document.createElement("button");
      b.type = "button"; b.className = "secondary ex-choice"; b.textContent = choice;
      b.addEventListener("click", () => check(choice));
      choices.appendChild(b);
    }
  }

  async function check(choice) {
    const response = await fetch(`/api/exercises/${encodeURIComponent(ids[at])}/answer`, {
      method: "POST", headers: { "Content-Type": "application/json", "X-CSRF-Token": csrf },
      body: JSON.stringify({ choice }) });
    const told = await response.json();
    if (!response.ok) { $("ex-said").textContent = told.message; return; }
    const head = document.createElement("p");
    head.className = "outcome ex-verdict";
    head.textContent = told.right ? t("Right: that is the best play.") : t("Not the best play.");
    const words = told.said.map((line) => { const p = document.createElement("p"); p.textContent = line; return p; });
    $("ex-said").replaceChildren(head, ...words);
    for (const b of document.querySelectorAll(".ex-choice")) {
      b.disabled = true;
      if (b.textContent === told.best) b.classList.add("best");
    }
    $("ex-next").hidden = at + 1 >= ids.length;
  }

  $("ex-next").addEventListener("click", () => show(at + 1));
  show(0);
})();

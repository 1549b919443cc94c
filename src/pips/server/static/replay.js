"use strict";
// How big a loss is (pips.bots.analysis.SIZES), in the page's language.
// A figure with the page's decimal sign (12.34 / 12,34).
const figure = (value, digits) => value.toLocaleString(document.documentElement.lang || "en",
  { minimumFractionDigits: digits, maximumFractionDigits: digits, useGrouping: false });
const SIZE_WORDS = { inaccuracy: t("inaccuracy"), mistake: t("mistake"), blunder: t("blunder") };
(async () => {
  const box = document.getElementById("replay");
  const id = box.dataset.table;
  const response = await fetch(`/api/records/${id}/positions`);
  const info = document.getElementById("info");
  if (!response.ok) { info.textContent = t("no finished game with that id"); return; }
  const positions = await response.json();
  let at = 0;
  let analysis = null;
  function analysed(p) {
    const line = document.getElementById("analysis-line");
    if (!analysis) { line.textContent = ""; return; }
    const d = analysis.decisions.find((x) => x.hand === p.hand && x.move === p.move);
    if (!d) { line.textContent = p.move ? t("no choice that mattered here") : ""; return; }
    const choices = d.choices.map((c) => `${c.move} ${c.value >= 0 ? "+" : ""}${figure(c.value, 1)}`).join("  ");
    const view = t("From {name}'s view: played {move}", { name: analysis.seats[d.seat], move: d.played });
    const verdict = d.loss > 0 ? t(", best {move}, loss {loss}", { move: d.best, loss: figure(d.loss, 2) }) : t(" (the best)");
    const size = d.size ? " — " + (SIZE_WORDS[d.size] || d.size) : "";
    line.textContent = view + verdict + size + " · " + t("choices: {choices}", { choices });
  }
  document.getElementById("analyse").onclick = async () => {
    const button = document.getElementById("analyse");
    button.disabled = true;
    const line = document.getElementById("analysis-line");
    line.textContent = t("analysing every decision… (up to a minute for a long match)");
    const answer = await fetch(`/api/records/${id}/analysis`);
    const data = await answer.json();
    if (!answer.ok) { line.textContent = data.message || t("the analysis could not be made"); button.disabled = false; return; }
    analysis = data;
    const body = document.querySelector("#analysis-summary tbody");
    body.replaceChildren();
    for (const s of data.summary) {
      const row = document.createElement("tr");
      for (const v of [s.name, s.decisions, figure(s.average_loss, 2), s.flagged.inaccuracy, s.flagged.mistake, s.flagged.blunder]) {
        const cell = document.createElement("td");
        cell.textContent = String(v);
        row.appendChild(cell);
      }
      body.appendChild(row);
    }
    document.getElementById("analysis-plot").src = `/api/records/${id}/analysis.svg`;
    document.getElementById("analysis").hidden = false;
    show();
  };
  function show() {
    const p = positions[at];
    analysed(p);
    info.textContent = t("hand {hand}, move {move} ({at}/{last}): {said}", { hand: p.hand, move: p.move, at, last: positions.length - 1, said: p.said });
    drawLayout(document.getElementById("layout"), p.view.layout, { last: p.view.layout.tiles.length - 1 });
    const hands = document.getElementById("hands");
    hands.replaceChildren();
    p.hands.forEach((h, seat) => {
      const row = document.createElement("div");
      row.className = "lane";
      row.append(`${p.names[seat]}: `);
      for (const tile of h) row.appendChild(tileSvg(tile[0], tile[1], false));
      hands.appendChild(row);
    });
  }
  document.getElementById("next").onclick = () => { at = Math.min(positions.length - 1, at + 1); show(); };
  document.getElementById("back").onclick = () => { at = Math.max(0, at - 1); show(); };
  document.addEventListener("keydown", (e) => {
    if (e.key === "ArrowRight") document.getElementById("next").click();
    if (e.key === "ArrowLeft") document.getElementById("back").click();
  });
  show();
})();

"use strict";
(async () => {
  const box = document.getElementById("replay");
  const id = box.dataset.table;
  const response = await fetch(`/api/records/${id}/positions`);
  const info = document.getElementById("info");
  if (!response.ok) { info.textContent = "no finished game with that id"; return; }
  const positions = await response.json();
  let at = 0;
  let analysis = null;
  function analysed(p) {
    const line = document.getElementById("analysis-line");
    if (!analysis) { line.textContent = ""; return; }
    const d = analysis.decisions.find((x) => x.hand === p.hand && x.move === p.move);
    if (!d) { line.textContent = p.move ? "no choice that mattered here" : ""; return; }
    const choices = d.choices.map((c) => `${c.move} ${c.value >= 0 ? "+" : ""}${c.value.toFixed(1)}`).join("  ");
    line.textContent = `From ${analysis.seats[d.seat]}'s view: played ${d.played}` +
      (d.loss > 0 ? `, best ${d.best}, loss ${d.loss.toFixed(2)}` : " (the best)") +
      (d.size ? ` — ${d.size}` : "") + ` · choices: ${choices}`;
  }
  document.getElementById("analyse").onclick = async () => {
    const button = document.getElementById("analyse");
    button.disabled = true;
    const line = document.getElementById("analysis-line");
    line.textContent = "analysing every decision… (up to a minute for a long match)";
    const answer = await fetch(`/api/records/${id}/analysis`);
    const data = await answer.json();
    if (!answer.ok) { line.textContent = data.detail || "the analysis could not be made"; button.disabled = false; return; }
    analysis = data;
    const body = document.querySelector("#analysis-summary tbody");
    body.replaceChildren();
    for (const s of data.summary) {
      const row = document.createElement("tr");
      for (const v of [s.name, s.decisions, s.average_loss.toFixed(2), s.flagged.inaccuracy, s.flagged.mistake, s.flagged.blunder]) {
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
    info.textContent = `hand ${p.hand}, move ${p.move} (${at}/${positions.length - 1}): ${p.said}`;
    drawLayout(document.getElementById("layout"), p.view.layout, { last: p.view.layout.tiles.length - 1 });
    const hands = document.getElementById("hands");
    hands.replaceChildren();
    p.hands.forEach((h, seat) => {
      const row = document.createElement("div");
      row.className = "lane";
      row.append(`${p.names[seat]}: `);
      for (const t of h) row.appendChild(tileSvg(t[0], t[1], false));
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

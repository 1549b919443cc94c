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
    $("next-mistake").hidden = mistakes().length === 0;
    show();
  };
  const $ = (id) => document.getElementById(id);
  const slider = $("slider");
  slider.max = String(positions.length - 1);
  // Each hand's first position, for the hand buttons and the list.
  const starts = positions.map((p, i) => [p, i]).filter(([p, i]) => i === 0 || positions[i - 1].hand !== p.hand).map(([, i]) => i);
  for (const i of starts) {
    const option = document.createElement("option");
    option.value = String(i);
    option.textContent = String(positions[i].hand);
    $("hand-pick").appendChild(option);
  }
  function go(to) {
    at = Math.max(0, Math.min(positions.length - 1, to));
    history.replaceState(null, "", `#${at}`);
    show();
  }
  const handStart = () => starts.filter((i) => i <= at).pop() || 0;
  // The positions where the analysis found a mistake or a blunder (the decision made
  // there is the move that led to the next position).
  function mistakes() {
    if (!analysis) return [];
    const bad = new Set(analysis.decisions.filter((d) => d.size === "mistake" || d.size === "blunder").map((d) => `${d.hand}/${d.move}`));
    return positions.map((p, i) => [p, i]).filter(([p]) => bad.has(`${p.hand}/${p.move}`)).map(([, i]) => i);
  }
  let playing = null;
  function autoplay(on) {
    clearInterval(playing); playing = null;
    $("play").setAttribute("aria-pressed", on ? "true" : "false");
    if (on) playing = setInterval(() => { if (at >= positions.length - 1) autoplay(false); else go(at + 1); }, 900);
  }
  $("first").onclick = () => go(0);
  $("last").onclick = () => go(positions.length - 1);
  $("hand-back").onclick = () => go(at === handStart() ? starts.filter((i) => i < at).pop() || 0 : handStart());
  $("hand-next").onclick = () => go(starts.find((i) => i > at) ?? positions.length - 1);
  $("play").onclick = () => autoplay(!playing);
  $("next-mistake").onclick = () => { const next = mistakes().find((i) => i > at); if (next !== undefined) go(next); };
  slider.addEventListener("input", () => go(Number(slider.value)));
  $("hand-pick").addEventListener("change", () => go(Number($("hand-pick").value)));
  function show() {
    const p = positions[at];
    analysed(p);
    slider.value = String(at);
    $("hand-pick").value = String(handStart());
    info.textContent = t("hand {hand}, move {move} ({at}/{last}): {said}", { hand: p.hand, move: p.move, at, last: positions.length - 1, said: p.said });
    drawLayout($("layout"), p.view.layout, { last: p.view.layout.tiles.length - 1, fill: true });
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
  $("next").onclick = () => go(at + 1);
  $("back").onclick = () => go(at - 1);
  const keys = { ArrowRight: "next", ArrowLeft: "back", Home: "first", End: "last", PageUp: "hand-back", PageDown: "hand-next", " ": "play" };
  document.addEventListener("keydown", (e) => {
    // Keys typed into a field, or moving the slider, are theirs.
    if (e.target.closest && e.target.closest("input, select, textarea") || !keys[e.key]) return;
    e.preventDefault();
    $(keys[e.key]).click();
  });
  let resized = null;
  window.addEventListener("resize", () => { clearTimeout(resized); resized = setTimeout(show, 150); });
  const asked = Number(location.hash.slice(1));
  go(Number.isInteger(asked) && location.hash ? asked : 0);
})();

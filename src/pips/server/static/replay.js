"use strict";
(async () => {
  const box = document.getElementById("replay");
  const id = box.dataset.table;
  const response = await fetch(`/api/records/${id}/positions`);
  const info = document.getElementById("info");
  if (!response.ok) { info.textContent = "no finished game with that id"; return; }
  const positions = await response.json();
  let at = 0;
  function show() {
    const p = positions[at];
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

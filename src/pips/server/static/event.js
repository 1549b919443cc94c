// An event's page for 120 players and more (issue 50): a search that narrows the
// players, the standings and the rounds' tables to the names typed, and a check-in
// tick that is saved without reloading the page, so the organiser keeps their place
// in the list. Without this script the page works as well: the tick is a form whose
// answer brings the organiser back to the same player.
"use strict";
(() => {
  const fold = (text) => text.normalize("NFKD").replace(/[\u0300-\u036f]/g, "")
    .replace(/ß/g, "ss").toLowerCase();
  const box = document.getElementById("search");
  if (box) {
    box.closest("[hidden]")?.removeAttribute("hidden");
    const rows = () => document.querySelectorAll(
      "#players li[data-name], #standings tbody tr, table.tables tbody tr");
    const count = document.getElementById("search-count");
    box.addEventListener("input", () => {
      const wanted = fold(box.value.trim());
      let shown = 0;
      for (const row of rows()) {
        const hit = !wanted || fold(row.textContent).includes(wanted);
        row.hidden = !hit;
        if (hit && row.matches("#players li")) shown += 1;
      }
      const found = shown === 1 ? t("1 player") : t("{count} players", { count: shown });
      count.textContent = wanted ? found : "";
    });
  }
  const csrf = document.querySelector("meta[name=csrf]")?.content ?? "";
  const tally = document.getElementById("checked-count");
  const recount = () => {
    if (!tally) return;
    const ticks = document.querySelectorAll("button.check-in");
    const here = document.querySelectorAll("button.check-in[aria-pressed=true]");
    tally.textContent = t("{count} of {total} here", {
      count: here.length + Number(tally.dataset.othersHere || 0),
      total: ticks.length + Number(tally.dataset.others || 0),
    });
  };
  document.addEventListener("submit", async (e) => {
    const form = e.target;
    if (!form.matches || !form.matches("form.check-in-form")) return;
    e.preventDefault();
    const button = form.querySelector("button");
    const present = form.elements.present.value === "on";
    button.disabled = true;
    try {
      const answer = await fetch(form.dataset.api, {
        method: "POST",
        credentials: "same-origin",
        headers: { "Content-Type": "application/json", "X-CSRF-Token": csrf },
        body: JSON.stringify({ present }),
      });
      if (!answer.ok) throw new Error(String(answer.status));
    } catch {
      // Said by the page the form answers with (an error, or the list as it is).
      form.submit();
      return;
    }
    button.disabled = false;
    button.setAttribute("aria-pressed", String(present));
    button.textContent = present ? "☑" : "☐";
    form.elements.present.value = present ? "" : "on";
    recount();
  });
})();

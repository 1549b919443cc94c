// The page's words in the reader's language (pips.i18n): the server puts the
// translations of every message the scripts mark with t(...) into #words.
"use strict";
window.t = (() => {
  const element = document.getElementById("words");
  const words = element ? JSON.parse(element.textContent) : {};
  return (text, fields) =>
    (words[text] || text).replace(/\{(\w+)\}/g, (all, name) =>
      fields && name in fields ? String(fields[name]) : all);
})();
// A form that loses something for good (a guest's sign-out: the guest's seats) asks
// first, in the words of its data-confirm.
document.addEventListener("submit", (e) => {
  const asked = e.target.dataset && e.target.dataset.confirm;
  if (asked && !window.confirm(asked)) e.preventDefault();
});

// What the hill's pages share. Every name and text a bot or its author wrote goes through
// text() before it is written into the page.
"use strict";
const $ = (id) => document.getElementById(id);
const text = (s) => String(s).replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]);
const num = (x, d) => (x === null || x === undefined) ? "–" : Number(x).toFixed(d);
// A game's score as its game gave it: a whole number without decimals (355, never 355.0),
// else to two decimals at most (0.5), as the server's pages write it.
const score = (x) => String(Math.round(x * 100) / 100 + 0);
const botLink = (name) => `<a href="/bots/${encodeURIComponent(name)}">${text(name)}</a>`;
const gameLink = (index) => `<a href="/games/${Number(index)}">${Number(index)}</a>`;
const when = (unix) => new Date(unix * 1000).toISOString().replace("T", " ").slice(0, 16) + " UTC";
const interval = (low, high, d = 0) => low === null ? "–" : `${num(low, d)}–${num(high, d)}`;

// A table of `head` and `rows` (cells already HTML, their texts escaped); the columns in
// `left` aligned left, those in `why` wrapped.
function table(el, head, rows, left, why = []) {
  const cls = (i) => why.includes(i) ? "why" : left.includes(i) ? "name" : "";
  el.innerHTML = "<tr>" + head.map((h, i) => `<th class="${cls(i)}">${text(h)}</th>`).join("") + "</tr>" +
    rows.map((r) => "<tr>" + r.map((c, i) => `<td class="${cls(i)}">${c}</td>`).join("") + "</tr>").join("");
}

async function json(url) {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`${url}: ${await response.text()}`);
  return response.json();
}

function duration(ms) {
  if (ms === null || ms === undefined) return "";
  return ms < 999.5 ? Math.round(ms) + " ms" : (ms / 1000).toFixed(1) + " s";
}


// The countdown to a contest's close in `#countdown` (the server drew its seconds left),
// kept each second; at the close the page is read again, in its new phase.
function countdown() {
  const el = $("countdown");
  if (!el) return;
  let left = Number(el.dataset.left);
  const show = () => {
    const d = Math.floor(left / 86400), h = Math.floor(left / 3600) % 24;
    const m = Math.floor(left / 60) % 60, s = left % 60;
    el.textContent = d ? `${d} d ${h} h` : h ? `${h} h ${m} min` : m ? `${m} min ${s} s` : `${s} s`;
  };
  show();
  const timer = setInterval(() => {
    left = Math.max(0, left - 1);
    show();
    if (left === 0) {
      clearInterval(timer);
      setTimeout(() => location.reload(), 2000);
    }
  }, 1000);
}

// Destroyer: a sample bot for koth's Grid-Routing Battle ("paths"), in JavaScript (node).
//
// Strategy: in each destruction phase, find the highest vertex owned by others only and break a
// free vertex just above it, where that path would grow next (its "frontier"). In each
// activation phase, build a little itself: extend its own highest vertex upwards, or claim a
// source. Vertices it shares with others are never targeted.
//
// Protocol: prompts `DESTROY t` and `ACTIVATE t` take one answer line, `VERTEX x,y` or `NONE`;
// reports `BEGIN B T S`, `BROKEN t C1..CB`, `OWNED t C1..CB` (C1 is ours, Ci is `x,y` or `N`)
// take none; `SCORE S1..SB` ends the round: exit. Started afresh each round.
"use strict";
const readline = require("readline");

let side = 0;
const state = new Map(); // "x,y" -> "broken" | "mine" | "theirs" | "shared"
const key = (x, y) => `${((x % side) + side) % side},${y}`;
const free = (x, y) => y >= 0 && y < side && !state.has(key(x, y));

// The free vertices just above (x, y), straight up first; the grid wraps east-west.
function above(x, y) {
  return [0, -1, 1].map((dx) => [((x + dx) % side + side) % side, y + 1]).filter(([a, b]) => free(a, b));
}

// The highest vertex in `kind` with a free vertex above it, as the free vertex to take.
function frontier(kind) {
  let best = null;
  for (const [k, v] of state) {
    if (v !== kind) continue;
    const [x, y] = k.split(",").map(Number);
    const next = above(x, y);
    if (next.length && (!best || y > best[1] - 1)) best = next[0];
  }
  return best;
}

function destroy() {
  return frontier("theirs");
}

function activate() {
  const up = frontier("mine");
  if (up) return up;
  for (let i = 0; i < side; i++) {
    const x = (Math.floor(side / 3) + i) % side; // away from the middle, where others start
    if (free(x, 0)) return [x, 0];
  }
  return null;
}

function report(words, kind) {
  const choices = words.slice(2);
  const counts = new Map();
  choices.forEach((c) => c !== "N" && counts.set(c, (counts.get(c) || 0) + 1));
  choices.forEach((c, i) => {
    if (c === "N") return;
    if (kind === "broken") state.set(c, "broken");
    else if (counts.get(c) > 1 && choices[0] === c) state.set(c, "shared");
    else state.set(c, i === 0 ? "mine" : "theirs");
  });
}

const answer = (v) => process.stdout.write(v ? `VERTEX ${v[0]},${v[1]}\n` : "NONE\n");

const input = readline.createInterface({ input: process.stdin });
input.on("line", (line) => {
  const words = line.trim().split(/\s+/);
  switch (words[0]) {
    case "BEGIN": side = Number(words[3]); break;
    case "DESTROY": answer(destroy()); break;
    case "ACTIVATE": answer(activate()); break;
    case "BROKEN": report(words, "broken"); break;
    case "OWNED": report(words, "owned"); break;
    case "SCORE": input.close(); process.exit(0);
  }
});

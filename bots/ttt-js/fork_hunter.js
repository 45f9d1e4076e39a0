// Noughts & crosses bot for koth: wins, blocks, then makes a fork (two threats at once) if it
// can, else stops the opponent's fork, else plays the centre, a corner, any square.
// Protocol (see docs/games/menace.md): `START X|O`, `MOVE <9-char board>` -> a square 0..8, `END ...`.
const readline = require("readline");

const LINES = [[0, 1, 2], [3, 4, 5], [6, 7, 8], [0, 3, 6], [1, 4, 7], [2, 5, 8], [0, 4, 8], [2, 4, 6]];

// The squares where `mark` would complete a line on `board`.
function threats(board, mark) {
  const squares = [];
  for (const line of LINES) {
    const cells = line.map((s) => board[s]);
    if (cells.filter((c) => c === mark).length === 2 && cells.includes(".")) {
      squares.push(line[cells.indexOf(".")]);
    }
  }
  return squares;
}

function free(board) {
  return [...board].flatMap((c, s) => (c === "." ? [s] : []));
}

function place(board, square, mark) {
  return board.slice(0, square) + mark + board.slice(square + 1);
}

function choose(board, me) {
  const other = me === "X" ? "O" : "X";
  const win = threats(board, me);
  if (win.length) return win[0];
  const block = threats(board, other);
  if (block.length) return block[0];
  const fork = free(board).find((s) => new Set(threats(place(board, s, me), me)).size >= 2);
  if (fork !== undefined) return fork;
  const theirForks = free(board).filter((s) => new Set(threats(place(board, s, other), other)).size >= 2);
  if (theirForks.length) {
    // Taking their fork square can still lose (X in opposite corners); forcing them to block a
    // threat of ours is safer, as long as that forced block does not give them a fork.
    for (const s of free(board)) {
      const after = place(board, s, me);
      const ours = threats(after, me);
      if (ours.length === 1 && new Set(threats(place(after, ours[0], other), other)).size < 2) return s;
    }
    return theirForks[0];
  }
  return [4, 0, 2, 6, 8, 1, 3, 5, 7].find((s) => board[s] === ".");
}

let me = "X";
readline.createInterface({ input: process.stdin }).on("line", (line) => {
  const [word, arg] = line.trim().split(/\s+/);
  if (word === "START") me = arg;
  else if (word === "MOVE") process.stdout.write(`${choose(arg, me)}\n`);
});

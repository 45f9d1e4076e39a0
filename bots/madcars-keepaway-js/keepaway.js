// Keep Away, a Mad Cars bot (protocol: docs/games/madcars.md), in JavaScript: the same
// decisions as the Python version (bots/madcars-keepaway-py), which explains the strategy —
// drive away from the enemy, and turn the car back upright when it tilts past 0.6 rad.
"use strict";
const readline = require("readline");

const TILT = 0.6;

// The angle brought into [-pi, pi), with C's fmod (JavaScript's % on numbers) as every version.
function uprightAngle(angle) {
  let a = (angle + Math.PI) % (2 * Math.PI);
  if (a < 0) a += 2 * Math.PI;
  return a - Math.PI;
}

function decide(params) {
  const x = params.my_car[0][0];
  const angle = uprightAngle(params.my_car[1]);
  if (Math.abs(angle) > TILT) return [angle > 0 ? "left" : "right", "upright"];
  return [params.enemy_car[0][0] > x ? "left" : "right", "away"];
}

const lines = readline.createInterface({ input: process.stdin });
lines.on("line", (line) => {
  const message = JSON.parse(line);
  if (message.type !== "tick") return;
  const [command, why] = decide(message.params);
  process.stdout.write(JSON.stringify({ command: command, debug: why }) + "\n");
});

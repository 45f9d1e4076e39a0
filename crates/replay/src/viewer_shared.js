const escape = (s) => String(s).replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c]);
// Play / pause (the #play button) and speed (the #speed menu): `tick` takes one step, at 1× one
// each `stepMs` milliseconds. Returns the function that plays or pauses.
function playback(stepMs, tick) {
  let timer = null, speed = 1;
  const button = document.getElementById("play");
  const toggle = () => {
    if (timer) { clearInterval(timer); timer = null; } else timer = setInterval(tick, stepMs / speed);
    button.textContent = timer ? "pause" : "play";
  };
  document.getElementById("speed").onchange = (e) => {
    speed = Number(e.target.value);
    if (timer) { toggle(); toggle(); }
  };
  button.onclick = toggle;
  return toggle;
}
// `?now` in the address (the page of a game in progress, made from what was played so far, as
// a server's live page loads it): the viewer opens at its last step, where the game stands.
const openAtNow = new URLSearchParams(location.search).has("now");

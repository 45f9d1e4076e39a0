// An author's logs of a game of their bot (`/api/hill/bots/NAME/games/N/logs`, or its latest
// game without N), written into `box` as text. Returns the logs, or the refusal's status and
// words. The token goes in a header with this request only, never stored.
async function authorLogs(box, name, game, token) {
  const path = `/api/hill/bots/${encodeURIComponent(name)}` + (game == null ? "/logs" : `/games/${game}/logs`);
  const r = await fetch(path, { headers: { "Authorization": "Bearer " + token } });
  // A refusal is JSON, `{"error": "…"}`, as the door's are.
  if (!r.ok) {
    const said = await r.json().catch(() => ({}));
    return { status: r.status, error: said.error ?? `the server answered ${r.status}` };
  }
  const logs = await r.json();
  const h = document.createElement("h3");
  h.textContent = `${logs.bot} in game ${logs.game}`;
  box.append(h);
  for (const s of logs.seats) {
    const parts = [[`v${s.version}: ${s.status}, score ${s.score}; faults`, s.faults.join("\n") || "(none)"],
      ["stderr", s.stderr || "(nothing)"], ["transcript", s.transcript]];
    for (const [title, body] of parts) {
      const pre = document.createElement("pre");
      pre.className = "log";
      pre.textContent = `${title}:\n${body}`;
      box.append(pre);
    }
  }
  return { logs };
}

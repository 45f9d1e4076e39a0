// Follows a game's records as they are played (`/api/games/N/live`), in a panel of any page:
// "live" while they come, a slider to scrub back through them and "now" to follow again, and
// the end. With `view` (an element), the game's own viewer follows it too: its page made from
// what was played so far (`/games/N/view?now`, opened where the game stands) is loaded again
// as records arrive, into a second frame shown once drawn, so the board advances without a
// blank; a watcher who scrubs back (the slider, or the viewer's own controls) keeps the board
// where they put it, and "now" follows again; a board that moves with no record arriving is
// loaded again after a quiet spell. Every text of a bot's is set as text.
"use strict";

function kothLive(panel, index, options) {
  const opts = Object.assign(
    { onEnd: null, shown: 12, view: null, viewEveryMs: 1000, viewQuietMs: 3000 },
    options || {},
  );
  const records = [];
  let seats = [];
  let following = true;
  let ended = null;

  panel.classList.add("koth-live");
  panel.innerHTML =
    '<div class="koth-live-head"><b class="koth-live-state">● live</b> ' +
    '<span class="koth-live-count">0 records</span> ' +
    '<input class="koth-live-scrub" type="range" min="0" max="0" value="0" aria-label="record"> ' +
    '<button class="koth-live-now" type="button">now</button></div>' +
    '<ol class="koth-live-lines"></ol>';
  const state = panel.querySelector(".koth-live-state");
  const count = panel.querySelector(".koth-live-count");
  const scrub = panel.querySelector(".koth-live-scrub");
  const now = panel.querySelector(".koth-live-now");
  const lines = panel.querySelector(".koth-live-lines");

  function seatName(i) {
    return typeof seats[i] === "string" ? seats[i] : "seat " + (Number(i) + 1);
  }

  // Records keep the game's own numbers; a person reads rounds and turns from 1.
  const numbering = opts.numbering || { first_round: 1, first_turn: 1 };
  const round = (stored) => stored + 1 - numbering.first_round;
  const turn = (stored) => stored + 1 - numbering.first_turn;

  function where(r) {
    const parts = [];
    if (r.round !== undefined) parts.push("round " + round(r.round));
    if (r.turn !== undefined) parts.push("turn " + turn(r.turn));
    return parts.join(", ");
  }

  // One record in words: the kinds every game's record has, and any other as its JSON.
  function describe(r) {
    switch (r.kind) {
      case "seats":
        return "seats: " + (r.seats || []).join(" · ");
      case "round":
        return "round " + round(r.round) + " begins";
      case "answer":
        return where(r) + " · " + seatName(r.seat) + ": " + r.line;
      case "fault":
        return where(r) + " · " + seatName(r.seat) + " ✗ " + r.fault + ": " + r.reason;
      case "full":
        return "(the record is full: the rest of the game is in its replay at the end)";
      default: {
        // A game's own record: its round and turn in words, from 1, and the rest as JSON.
        const rest = Object.assign({}, r);
        delete rest.round;
        delete rest.turn;
        const json = JSON.stringify(rest);
        const text = r.round !== undefined ? where(r) + " · " + json : json;
        return text.length > 240 ? text.slice(0, 240) + "…" : text;
      }
    }
  }

  function show() {
    const at = following ? records.length : Number(scrub.value);
    scrub.max = String(records.length);
    if (following) scrub.value = String(records.length);
    count.textContent =
      (following ? records.length : at + " of " + records.length) + " records";
    now.disabled = following;
    lines.replaceChildren();
    for (let i = Math.max(0, at - opts.shown); i < at; i++) {
      const li = document.createElement("li");
      li.value = i + 1;
      li.textContent = describe(records[i]);
      if (records[i].kind === "fault") li.className = "koth-live-fault";
      lines.appendChild(li);
    }
  }

  // The viewer's two frames: the one shown, and the one the next page loads into.
  const frames = [];
  let viewLoading = false;
  let viewWanted = false;
  let viewAt = 0;
  let viewTimer = null;
  let loads = 0;
  if (opts.view) {
    opts.view.classList.add("koth-live-view");
    for (let i = 0; i < 2; i++) {
      const frame = document.createElement("iframe");
      frame.title = "the game's board";
      // The frame behind is laid out at the same width, unseen, so its page draws as shown.
      frame.classList.toggle("koth-live-behind", i === 1);
      opts.view.appendChild(frame);
      frames.push(frame);
      frame.addEventListener("load", () => drawn(frame));
    }
  }

  // Loads the viewer again, at most once each `viewEveryMs`, while the watcher follows.
  function refreshView() {
    if (!frames.length || !following) return;
    viewWanted = true;
    if (viewLoading || viewTimer) return;
    const wait = viewAt + opts.viewEveryMs - Date.now();
    if (wait > 0) {
      viewTimer = setTimeout(() => {
        viewTimer = null;
        refreshView();
      }, wait);
      return;
    }
    viewWanted = false;
    viewLoading = true;
    viewAt = Date.now();
    // Each load its own address, as the board may move with no new record.
    loads += 1;
    frames[1].src = "/games/" + index + "/view?now&at=" + records.length + "." + loads;
  }

  // A page loaded into the hidden frame: shown in place of the other, unless the watcher
  // scrubbed back meanwhile; a touch or a key in it means the watcher moves the board.
  function drawn(frame) {
    const doc = frame.contentDocument;
    // (A frame's first, empty page is no view.)
    if (frame !== frames[1] || !viewLoading || !doc || !doc.location.pathname.endsWith("/view")) {
      return;
    }
    viewLoading = false;
    quiet();
    const stop = () => {
      if (!following) return;
      following = false;
      show();
    };
    doc.addEventListener("pointerdown", stop);
    doc.addEventListener("keydown", stop);
    if (following) {
      frame.classList.remove("koth-live-behind");
      frames[0].classList.add("koth-live-behind");
      frames.reverse();
      fit(frames[0]);
    }
    if (viewWanted) refreshView();
  }

  // A board drawn from files its game writes beside its record moves with no record arriving
  // (the rat race's boards, which are its only record): while followed, it is loaded again
  // after `viewQuietMs` without a load, until the game ends.
  let quietTimer = null;
  function quiet() {
    clearTimeout(quietTimer);
    quietTimer = setTimeout(() => {
      if (!stopped) refreshView();
    }, opts.viewQuietMs);
  }

  // The shown frame as tall as its page.
  function fit(frame) {
    const doc = frame.contentDocument;
    if (doc && doc.documentElement) {
      frame.style.height = Math.max(240, doc.documentElement.scrollHeight + 8) + "px";
    }
  }

  scrub.addEventListener("input", () => {
    following = Number(scrub.value) >= records.length;
    show();
    refreshView();
  });
  now.addEventListener("click", () => {
    following = true;
    show();
    refreshView();
  });

  // The stream read by hand rather than by EventSource, which passes on only the event names
  // it was told of, while a game's record may be of any kind: every event is taken, and a
  // dropped stream is read again after the last id taken.
  let lastId = 0;
  let stopped = false;
  let controller = null;

  function take(name, data) {
    if (name === "end") {
      stopped = true;
      try {
        ended = JSON.parse(data);
      } catch (_) {
        ended = {};
      }
      state.textContent = "ended";
      state.classList.add("koth-live-ended");
      show();
      if (opts.onEnd) opts.onEnd(ended);
      return;
    }
    let record;
    try {
      record = JSON.parse(data);
    } catch (_) {
      return;
    }
    if (record.kind === "seats" && Array.isArray(record.seats)) seats = record.seats;
    records.push(record);
    show();
    refreshView();
  }

  // Takes the whole events in `text`; returns what is left of an event not ended yet.
  function events(text) {
    let end;
    while ((end = text.indexOf("\n\n")) >= 0) {
      const block = text.slice(0, end);
      text = text.slice(end + 2);
      let name = "message";
      let id = null;
      const data = [];
      for (const line of block.split("\n")) {
        if (line.startsWith("event: ")) name = line.slice(7);
        else if (line.startsWith("id: ")) id = Number(line.slice(4));
        else if (line.startsWith("data: ")) data.push(line.slice(6));
      }
      if (!data.length) continue;
      if (id !== null) {
        if (id <= lastId) continue;
        lastId = id;
      }
      take(name, data.join("\n"));
    }
    return text;
  }

  async function read() {
    while (!stopped) {
      try {
        controller = new AbortController();
        const response = await fetch("/api/games/" + index + "/live?from=" + lastId, {
          signal: controller.signal,
        });
        if (!response.ok) throw new Error("HTTP " + response.status);
        state.textContent = "● live";
        const reader = response.body.getReader();
        const decoder = new TextDecoder();
        let text = "";
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          text = events(text + decoder.decode(value, { stream: true }));
          if (stopped) break;
        }
      } catch (_) {
        if (stopped) break;
      }
      if (!stopped) {
        state.textContent = "● live (reconnecting…)";
        await new Promise((resolve) => setTimeout(resolve, 1000));
      }
    }
  }
  read();
  refreshView();

  return {
    records: () => records.length,
    ended: () => ended,
    following: () => following,
    close: () => {
      stopped = true;
      if (controller) controller.abort();
    },
  };
}

// Lists the games in progress (`/api/live`) in `list`, each linked to its page, looked at
// every 5 s; the first is the one /tv follows.
function kothLiveList(list) {
  async function refresh() {
    let games = [];
    try {
      const response = await fetch("/api/live");
      if (response.ok) games = await response.json();
    } catch (_) {}
    list.replaceChildren();
    if (!games.length) {
      const li = document.createElement("li");
      li.className = "note";
      li.textContent = "no game is being played now";
      list.appendChild(li);
      return;
    }
    for (const game of games) {
      const li = document.createElement("li");
      const link = document.createElement("a");
      link.href = game.page;
      link.textContent = "game " + game.index;
      li.appendChild(link);
      const seats = game.seats.map((s) => s.name).join(" vs ");
      const watchers = game.watchers === 1 ? "1 watcher" : game.watchers + " watchers";
      li.appendChild(document.createTextNode(": " + seats + " · " + watchers));
      list.appendChild(li);
    }
  }
  refresh();
  setInterval(refresh, 5000);
}

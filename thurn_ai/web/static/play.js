// The Play view: choose seats and bots, click legal moves, watch the bots move, ask for a hint.
import { $, api, clearError, closeText, drawPosition, geometry, movedCity, nav, setStatus, showError, sleep, turnSummaries, turnText, moveText } from "./common.js";
import { canonical, cardEl, cardList, el, isHorses, scoreText, tileLabel } from "./board.js";
import { hintStepsByMove, hintSteps, refreshHint, useHint } from "./hint.js";

const HAND_KINDS = new Set(["left", "right", "new", "horse", "discard"]);
const FITS = new Set(["left", "right", "horse"]);     // a card that goes on the route (or the carriage)
let game = null;        // the server's view of the game
let geo = null;
let moved = null;       // the city of the last move, marked on the board
let busy = false;       // a request for this game is under way
let stepping = false;   // the bots' loop is running
let opener = null;      // what opened the move menu (focus returns there)

// the setup tab's loader, handed in by app.js (play.js and setup.js use each other; neither imports the other)
let editPosition = null;

export function initPlay(startup, { loadIntoSetup }) {
  editPosition = loadIntoSetup;
  const seats = $("#play-seats");
  const defaults = ["human", "mcts", "heuristic", "heuristic"];
  const list = el("datalist", { id: "bot-specs" });
  for (const s of ["human", "random", "greedy", "heuristic", "mcts", "mcts(iterations=300)", "mcts(iterations=3000)", "pimc"]) {
    list.append(el("option", { value: s }));
  }
  document.body.append(list);
  const build = () => {
    const n = Number($("#play-players").value);
    const old = [...seats.querySelectorAll("input")].map((i) => i.value);
    seats.replaceChildren();
    for (let s = 0; s < n; s++) {
      seats.append(el("label", {}, `seat ${s} `, el("input", { id: `seat-${s}`, list: "bot-specs", value: old[s] || defaults[s], size: 16 })));
    }
  };
  $("#play-players").addEventListener("change", build);
  $("#play-board").addEventListener("change", () => { if (!game) showPlay(); });
  build();
  $("#new-game-form").addEventListener("submit", (ev) => { ev.preventDefault(); newGame(); });
  $("#step-bot").addEventListener("click", () => stepOnce());
  $("#bot-speed").addEventListener("change", () => advance());
  $("#to-setup").addEventListener("click", () => toSetup());
  $("#undo").addEventListener("click", () => undo());
  document.addEventListener("keydown", (ev) => {
    if (ev.key === "Escape" && !$("#chooser").hidden) { ev.preventDefault(); closeChooser(); }
  });
  document.addEventListener("click", (ev) => {
    if (!$("#chooser").hidden && !ev.target.closest("#chooser") && !ev.target.closest(".clickable") && !ev.target.closest(".card")) closeChooser();
  });
  $("#chooser").addEventListener("keydown", chooserKeys);
}

// ---------------------------------------------------------------- the game in the address

// The game's id in the address (?game=...): a reload, a bookmark or a second tab opens the same game.
export function gameInAddress() {
  return new URLSearchParams(location.search).get("game");
}

function putGameInAddress(id) {
  const url = new URL(location.href);
  if (url.searchParams.get("game") === id) return;
  url.searchParams.set("game", id);
  history.replaceState(null, "", url);
}

export async function resumeGame(id) {
  try {
    const view = await api("GET", `/api/games/${encodeURIComponent(id)}`);
    $("#new-game-box").open = false;
    await setGame(view);
    advance();
    return true;
  } catch (e) {
    const url = new URL(location.href);
    url.searchParams.delete("game");
    history.replaceState(null, "", url);
    showError(`cannot resume the game in the address: ${e.message}`);
    return false;
  }
}

export async function newGame(body) {
  clearError();
  const seats = [...$("#play-seats").querySelectorAll("input")].map((i) => i.value.trim());
  const req = body || { seats, board: $("#play-board").value };
  const seed = $("#play-seed").value;
  if (!body && seed !== "") req.seed = Number(seed);
  try {
    setStatus("starting a game…");
    const view = await api("POST", "/api/games", req);
    moved = null;
    $("#new-game-box").open = false;     // room for the game; the form opens again with a click
    await setGame(view);
    setStatus("");
    document.activeElement.blur();     // the form's button is folded away: the moves take the keyboard
    advance();
  } catch (e) {
    setStatus("");
    showError(e.message);
  }
}

async function setGame(view) {
  game = view;
  geo = await geometry(view.board);
  $("#game").hidden = false;
  $("#game-links").hidden = false;
  $("#view-play").classList.add("playing");      // the New game form moves to the end of the column
  putGameInAddress(view.id);
  if (nav.current === "play") showPlay();
}

const key = () => (game ? `${game.id}:${game.log.length}` : null);

function hintTarget() {
  if (!game) return { error: "start a game first" };
  if (game.over) return { error: "the game is over" };
  if (game.waiting_for === "bot" && game.humans.length) return { error: `seat ${game.to_move} (${game.seats[game.to_move]}) is to move: a hint is for your own turn` };
  return { url: `/api/games/${game.id}/hint`, body: {}, key: key(), what: `turn ${game.turn + 1}, ${game.phase}` };
}

// Moves of the person to move, by city (for clicks on the map, the display and the hand).
function movesByCity() {
  const by = {};
  for (const m of game.legal) if (m.city) (by[m.city] = by[m.city] || []).push(m);
  return by;
}

// ---------------------------------------------------------------- what a move costs

function myRoute() {
  const me = game.viewer ?? game.to_move;
  return (game.position.players[me] || {}).route || [];
}

// A warning when a move throws something away, or null: a new route discards the route being built.
function destroys(m) {
  const route = myRoute();
  if (m.kind === "new" && route.length) {
    return `Start a new route with ${m.city}: this discards your route of ${route.length} card${route.length === 1 ? "" : "s"} (${route.join(" – ")}).`;
  }
  return null;
}

// A note when a click spends an official (a Postmaster's draw from the display, the Postal Carrier's
// second card): the buttons under Moves say so in their text, a click on a card or a city does not.
function spends(m) {
  return m.official_label ? `This uses your ${m.official_label} (once a turn).` : null;
}

function moveLabel(m) {
  const d = destroys(m);
  return moveText(m) + (d ? ` ✗ discards route of ${myRoute().length}` : "");
}

// ---------------------------------------------------------------- drawing

export function showPlay() {
  $("#hint-panel").hidden = !game;
  useHint(hintTarget, () => showPlay());
  if (!game) {
    // before the first game: the chosen board, empty
    geometry($("#play-board").value).then((g) => {
      if (game || nav.current !== "play") return;
      drawPosition(g, { players: [], display: [] }, { title: `${g.title} · choose the seats and press New game` });
    }).catch((e) => showError(e.message));
    $("#step-bot").disabled = true;
    return;
  }
  const pos = game.position;
  const byCity = movesByCity();
  const person = game.waiting_for === "person";
  // for scripts and tests: whose turn it is, and how many moves were made
  $("#game").dataset.id = game.id;
  $("#game").dataset.waiting = game.waiting_for;
  $("#game").dataset.moves = String(game.log.length);
  const steps = hintStepsByMove(key());
  const labels = game.seats.map((s, i) => (game.humans.includes(i) ? "you" : s));
  drawPosition(geo, pos, {
    scores: game.scores, scoreParts: game.score_parts, seatLabels: game.seats, viewer: game.viewer, log: game.log,
    title: `${geo.title} · ${game.summary}`,
    cityClass: (c) => (byCity[c] ? "clickable legal" : ""),
    onCity: (c, ev) => byCity[c] && choose(byCity[c], ev),
    hintSteps: hintSteps(key()), moved,
  });
  $("#turn-info").textContent = turnText(game, labels);
  $("#turn-info").dataset.over = game.over ? "yes" : "no";
  $("#phase-help").textContent = game.over ? "" : (person ? `You: ${game.phase_help}.` : `seat ${game.to_move} (${game.seats[game.to_move]}) is playing…`);
  showBotSummary();
  showClosePreview();
  $("#undo").disabled = !(person && game.undo > 0);
  $("#undo").dataset.count = String(game.undo || 0);

  // the display and the deck
  const draws = {};
  let deckMove = null;
  for (const m of game.legal) {
    if (m.kind === "draw") draws[m.city] = m;
    if (m.kind === "deck") deckMove = m;
  }
  const horses = isHorses(geo, pos);
  const display = $("#display");
  display.replaceChildren();
  for (const c of pos.display) {
    const m = draws[canonical(geo, c)];
    const star = m && steps[m.move];
    display.append(cardEl(geo, c, { class: `${m ? "legal" : ""} ${star ? "hinted" : ""}`.trim(), disabled: !m, move: m ? m.move : null, horses,
      onclick: m ? (ev) => choose([m], ev) : null, extra: star ? `★${star.join(",")}` : null,
      title: m ? m.move + (m.official_label ? ` [${m.official_label}]` : "") : null }));
  }
  display.append(el("button", { type: "button", class: `card deck ${deckMove ? "legal" : ""}`, disabled: !deckMove, "data-move": deckMove ? deckMove.move : null,
    onclick: deckMove ? (ev) => choose([deckMove], ev) : null }, el("span", { class: "card-code" }, "deck"), el("span", { class: "card-name" }, `${pos.deck_size} cards`)));
  $("#deck-info").textContent = `deck ${pos.deck_size} · discard pile ${cardList(pos.discard).length}`;

  // the hand of the person whose view this is: cards that fit the route apart from the others
  const hand = $("#hand");
  hand.replaceChildren();
  const me = game.viewer;
  $("#hand-info").textContent = "";
  if (me === null || me === undefined) {
    hand.append(el("p", { class: "help" }, game.over ? "Every hand is shown under Players." : "Nobody plays in person: every hand is shown under Players."));
  } else {
    const cards = cardList(pos.players[me].hand);
    if (!cards.length) hand.append(el("p", { class: "help" }, "empty"));
    let someFit = false, someNot = false;
    cards.forEach((c) => {
      const ms = (byCity[canonical(geo, c)] || []).filter((m) => HAND_KINDS.has(m.kind));
      const fits = ms.some((m) => FITS.has(m.kind));
      const breaks = ms.length && ms.every((m) => destroys(m));
      someFit ||= fits;
      someNot ||= breaks;
      const cls = !ms.length ? "" : fits ? "legal fits" : breaks ? "legal nofit" : "legal";
      const what = fits ? "fits your route" : breaks ? "does not fit: playing it starts a new route" : "";
      hand.append(cardEl(geo, c, { class: cls, disabled: !ms.length, onclick: ms.length ? (ev) => choose(ms, ev) : null, horses,
        title: ms.map((m) => moveLabel(m)).join(" / ") || null, move: ms.length === 1 ? ms[0].move : null,
        extra: breaks ? "new route" : null, label: ms.length ? `${c}${what ? `: ${what}` : ""}` : null }));
    });
    if (someFit || someNot) $("#hand-info").textContent = someNot ? "bold: fits your route · dashed: new route" : "bold: fits your route";
  }

  // every legal move as a button (the same moves as the clicks above); the hint's steps numbered
  const moves = $("#moves");
  moves.replaceChildren();
  if (!game.legal.length) moves.append(el("p", { class: "help" }, game.over ? "The game is over." : "Waiting for the bots."));
  const ordered = [...game.legal].sort((a, b) => Number(Boolean(destroys(a))) - Number(Boolean(destroys(b))));   // destructive last
  for (const m of ordered) {
    const star = steps[m.move];
    moves.append(el("button", { type: "button", class: `move kind-${m.kind} ${star ? "hinted" : ""} ${destroys(m) ? "destructive" : ""}`.replace(/ +/g, " ").trim(),
      "data-move": m.move, "data-hint-step": star ? star.join(",") : null, onclick: (ev) => choose([m], ev, { fromList: true }) },
      (star ? `★${star.join(",")} ` : "") + moveLabel(m)));
  }
  $("#step-bot").disabled = !(game.waiting_for === "bot");
  const rec = $("#download-record");
  rec.hidden = game.from_position;
  rec.href = `/api/games/${game.id}/record`;
  rec.setAttribute("download", `thurn-ai-game-${game.seed}.jsonl`);
  showFinal();
  refreshHint();
}

// One line per turn of the other seats since the person's previous turn (a bots-only game: the last few).
function showBotSummary() {
  const box = $("#bot-summary");
  box.replaceChildren();
  let end = game.log.length;
  const mine = (e) => game.humans.includes(e.seat);
  while (end > 0 && mine(game.log[end - 1]) && game.log[end - 1].turn === game.turn) end--;    // this turn's own moves
  let from = end;
  while (from > 0 && !mine(game.log[from - 1])) from--;
  if (!game.humans.length) from = Math.max(0, end - 12);
  const turns = turnSummaries(game.log.slice(from, end), geo).slice(-4);
  for (const t of turns) {
    box.append(el("li", { "data-seat": t.seat }, el("strong", {}, `seat ${t.seat} (${t.by})`), `: ${t.text || "no move yet"}`));
  }
}

function showClosePreview() {
  const p = $("#close-preview");
  const c = game.close_preview;
  p.hidden = !c;
  if (c) p.replaceChildren(el("strong", {}, "If you close now: "), closeText(c, geo, "route").replace(/^route /, "") + " (houses placed for the most points; without the Cartwright).");
}

// The end: the scoring table and what ended the game.
function showFinal() {
  const box = $("#final");
  box.hidden = !game.over;
  if (!game.over) return;
  const pos = game.position;
  const end = pos.truncated ? "The game was stopped by the turn limit." :
    pos.end_triggered_by !== null && pos.end_triggered_by !== undefined
      ? `Seat ${pos.end_triggered_by} triggered the end (placed their last house${isHorses(geo, pos) ? "" : " or took the largest carriage"}); the round was played out.` : "";
  $("#final-end").textContent = end;
  const parts = game.score_parts;
  const tileIds = geo.tiles.map((t) => t.id).filter((id) => parts.some((p) => p[`tile_${id}`]));
  const head = el("tr", {}, el("th", { scope: "col" }, "place"), el("th", { scope: "col" }, "seat"),
    isHorses(geo, pos) ? null : el("th", { scope: "col" }, "carriage"),
    tileIds.map((id) => el("th", { scope: "col" }, tileLabel(geo, id))),
    el("th", { scope: "col" }, "houses not placed"), el("th", { scope: "col" }, "score"));
  const rows = game.ranking.map((s, i) => el("tr", { "data-seat": s },
    el("td", {}, String(i + 1)), el("th", { scope: "row" }, `seat ${s} (${game.seats[s]})`),
    isHorses(geo, pos) ? null : el("td", {}, parts[s].carriage_size ? `${parts[s].carriage} (size ${parts[s].carriage_size})` : "0"),
    tileIds.map((id) => el("td", {}, String(parts[s][`tile_${id}`]))),
    el("td", {}, `−${parts[s].houses_unplaced}`), el("td", {}, el("strong", {}, String(parts[s].score)))));
  $("#final-table").replaceChildren(el("thead", {}, head), el("tbody", {}, rows));
  $("#final-table").setAttribute("aria-label", `final scores: ${game.ranking.map((s) => `seat ${s} ${scoreText(parts[s])}, ${parts[s].score}`).join("; ")}`);
}

// ---------------------------------------------------------------- choosing a move

// Play `moves[0]` at once when that is safe; otherwise a small menu asks: which of several moves, and
// before a move that throws the route away or (from a click on a card or city) spends an official.
// Safe moves are listed first, the destructive one last.
function choose(moves, ev, opts = {}) {
  const order = [...moves].sort((a, b) => Number(Boolean(destroys(a))) - Number(Boolean(destroys(b))));
  const warn = order.map((m) => destroys(m) || (opts.fromList ? null : spends(m))).filter(Boolean);
  if (order.length === 1 && !warn.length) { closeChooser(); play(order[0].move); return; }
  const box = $("#chooser");
  opener = (ev && ev.currentTarget instanceof Element) ? ev.currentTarget : document.activeElement;
  const question = order.length === 1 ? `${moveText(order[0])}?` : "Which move?";
  box.replaceChildren(el("p", { id: "chooser-title" }, question), ...warn.map((w) => el("p", { class: "warning" }, w)));
  for (const m of order) {
    box.append(el("button", { type: "button", class: `move ${destroys(m) ? "destructive" : ""}`.trim(), "data-move": m.move,
      onclick: () => { closeChooser(false); play(m.move); } }, moveLabel(m)));
  }
  box.append(el("button", { type: "button", class: "cancel", onclick: () => closeChooser() }, "Cancel"));
  // beside what was clicked (for a key press: the element focused)
  const area = $("#board-area").getBoundingClientRect();
  const r = opener && opener.getBoundingClientRect ? opener.getBoundingClientRect() : null;
  const x = ev && ev.clientX ? ev.clientX : r ? r.left : area.left + 40;
  const y = ev && ev.clientY ? ev.clientY : r ? r.bottom : area.top + 40;
  box.hidden = false;
  const w = box.offsetWidth, h = box.offsetHeight;
  box.style.left = `${Math.max(0, Math.min(x + 8, window.innerWidth - w - 8) - area.left)}px`;
  box.style.top = `${Math.max(0, Math.min(y + 8, window.innerHeight - h - 8) - area.top)}px`;
  // the focus on the first safe choice, else on Cancel: Enter never throws a route away by itself
  (box.querySelector("button.move:not(.destructive)") || box.querySelector("button.cancel")).focus();
  if (ev) ev.stopPropagation();
}

function chooserKeys(ev) {
  const buttons = [...$("#chooser").querySelectorAll("button")];
  const i = buttons.indexOf(document.activeElement);
  if (ev.key === "ArrowDown" || ev.key === "ArrowUp") {
    ev.preventDefault();
    buttons[(i + (ev.key === "ArrowDown" ? 1 : buttons.length - 1)) % buttons.length].focus();
  } else if (ev.key === "Tab") {           // keep the focus in the menu while it is open
    ev.preventDefault();
    buttons[(i + (ev.shiftKey ? buttons.length - 1 : 1)) % buttons.length].focus();
  }
}

function closeChooser(refocus = true) {
  const box = $("#chooser");
  if (box.hidden) return;
  box.hidden = true;
  if (refocus && opener && opener.isConnected) opener.focus();
}

// After a redraw the element focused is gone: focus what stands for it now (the same move, or the first
// legal move) so that keyboard play goes on.
function refocus(before) {
  if (!before || nav.current !== "play") return;
  const same = before.dataset.move && document.querySelector(`#view-play [data-move="${CSS.escape(before.dataset.move)}"]:not([disabled])`);
  const first = document.querySelector("#moves button[data-move]");
  (same || first || $("#undo")).focus();
}

async function play(move) {
  if (!game || busy) return;
  busy = true;
  clearError();
  const focused = document.activeElement && document.activeElement.closest("#view-play, #chooser") ? document.activeElement : null;
  try {
    const r = await api("POST", `/api/games/${game.id}/move`, { move });
    moved = movedCity(r.moved);
    await setGame(r.view);
  } catch (e) {
    showError(e.message);
  } finally {
    busy = false;
  }
  if (focused) refocus(focused);
  advance();
}

async function undo() {
  if (!game || busy) return;
  busy = true;
  clearError();
  try {
    const r = await api("POST", `/api/games/${game.id}/undo`, {});
    moved = null;
    $("#undo-note").textContent = r.undone ? `Taken back: ${moveText(r.undone)}.` : "";
    await setGame(r.view);
  } catch (e) {
    showError(e.message);
  } finally {
    busy = false;
  }
  if ($("#undo").disabled) refocus({ dataset: {} });
}

async function stepOnce() {
  if (!game || game.waiting_for !== "bot" || busy) return false;
  busy = true;
  const seat = game.to_move;
  setStatus(`seat ${seat} (${game.seats[seat]}) is thinking…`);
  try {
    const r = await api("POST", `/api/games/${game.id}/step`);
    moved = movedCity(r.moved);
    $("#undo-note").textContent = "";
    await setGame(r.view);
    return true;
  } catch (e) {
    showError(e.message);
    return false;
  } finally {
    busy = false;
    setStatus("");
  }
}

// The bots move one after another, with a pause between moves so that each can be followed.
async function advance() {
  if (stepping) return;
  stepping = true;
  try {
    while (game && game.waiting_for === "bot") {
      const speed = $("#bot-speed").value;
      if (speed === "step") break;
      if (Number(speed) > 0) await sleep(Number(speed));
      if ($("#bot-speed").value === "step") break;
      if (!(await stepOnce())) break;
    }
  } finally {
    stepping = false;
  }
  // the person's turn again: the keyboard's place is the moves (unless they are typing elsewhere)
  if (game && game.waiting_for === "person" && nav.current === "play" && (!document.activeElement || document.activeElement === document.body)) {
    const first = document.querySelector("#moves button[data-move]");
    if (first) first.focus({ preventScroll: true });
  }
}

async function toSetup() {
  if (!game) return;
  try {
    const pos = await api("GET", `/api/games/${game.id}/position`);
    nav.switchTab("setup");
    await editPosition(pos);
  } catch (e) {
    showError(e.message);
  }
}

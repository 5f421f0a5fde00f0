// The Play view: choose seats and bots, click legal moves, watch the bots move, ask for a hint.
import { $, api, clearError, drawPosition, geometry, nav, setStatus, showError, sleep, turnText, moveText } from "./common.js";
import { canonical, cardEl, cardList, el } from "./board.js";
import { hintSteps, recommendedMoves, refreshHint, useHint } from "./hint.js";

const HAND_KINDS = new Set(["left", "right", "new", "horse", "discard"]);
let game = null;        // the server's view of the game
let geo = null;
let moved = null;       // the city of the last move, marked on the board
let busy = false;       // a request for this game is under way
let stepping = false;   // the bots' loop is running

export function initPlay(startup) {
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
  document.addEventListener("keydown", (ev) => { if (ev.key === "Escape") closeChooser(); });
  document.addEventListener("click", (ev) => {
    if (!$("#chooser").hidden && !ev.target.closest("#chooser") && !ev.target.closest(".clickable") && !ev.target.closest(".card")) closeChooser();
  });
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
  if (nav.current === "play") showPlay();
}

const key = () => (game ? `${game.id}:${game.log.length}` : null);

function hintTarget() {
  if (!game) return { error: "start a game first" };
  if (game.over) return { error: "the game is over" };
  if (game.waiting_for === "bot" && game.humans.length) return { error: `seat ${game.to_move} (${game.seats[game.to_move]}) is to move: a hint is for your own turn` };
  return { url: `/api/games/${game.id}/hint`, body: {}, key: key() };
}

// Moves of the person to move, by city (for clicks on the map, the display and the hand).
function movesByCity() {
  const by = {};
  for (const m of game.legal) if (m.city) (by[m.city] = by[m.city] || []).push(m);
  return by;
}

export function showPlay() {
  $("#hint-panel").hidden = !game;
  useHint(hintTarget, () => showPlay());
  if (!game) {
    // before the first game: the chosen board, empty
    geometry($("#play-board").value).then((g) => {
      if (game || nav.current !== "play") return;
      drawPosition(g, { players: [], display: [] }, { title: `${g.title} · choose the seats and press New game` });
    }).catch((e) => showError(e.message));
    return;
  }
  const pos = game.position;
  const byCity = movesByCity();
  // for scripts and tests: whose turn it is, and how many moves were made
  $("#game").dataset.id = game.id;
  $("#game").dataset.waiting = game.waiting_for;
  $("#game").dataset.moves = String(game.log.length);
  const hinted = new Set(recommendedMoves(key()));
  const labels = game.seats.map((s, i) => (game.humans.includes(i) ? "you" : s));
  drawPosition(geo, pos, {
    scores: game.scores, seatLabels: game.seats, viewer: game.viewer, log: game.log,
    title: `${geo.title} · ${game.summary}`,
    cityClass: (c) => (byCity[c] ? "clickable legal" : ""),
    onCity: (c, ev) => byCity[c] && choose(byCity[c], ev),
    hintSteps: hintSteps(key()), moved,
  });
  $("#turn-info").textContent = turnText(game, labels);
  $("#turn-info").dataset.over = game.over ? "yes" : "no";
  $("#phase-help").textContent = game.over ? "" : (game.waiting_for === "person" ? `You: ${game.phase_help}.` : `seat ${game.to_move} (${game.seats[game.to_move]}) is playing…`);

  // the display and the deck
  const draws = {};
  let deckMove = null;
  for (const m of game.legal) {
    if (m.kind === "draw") draws[m.city] = m;
    if (m.kind === "deck") deckMove = m;
  }
  const display = $("#display");
  display.replaceChildren();
  for (const c of pos.display) {
    const m = draws[canonical(geo, c)];
    display.append(cardEl(geo, c, { class: m ? "legal" : "", disabled: !m, move: m ? m.move : null, onclick: m ? () => play(m.move) : null,
      title: m ? m.move + (m.official_label ? ` [${m.official_label}]` : "") : null }));
  }
  display.append(el("button", { type: "button", class: `card deck ${deckMove ? "legal" : ""}`, disabled: !deckMove, "data-move": deckMove ? deckMove.move : null,
    onclick: deckMove ? () => play(deckMove.move) : null }, el("span", { class: "card-code" }, "deck"), el("span", { class: "card-name" }, `${pos.deck_size} cards`)));
  $("#deck-info").textContent = `deck ${pos.deck_size} · discard pile ${cardList(pos.discard).length}`;

  // the hand of the person whose view this is
  const hand = $("#hand");
  hand.replaceChildren();
  const me = game.viewer;
  if (me === null || me === undefined) {
    hand.append(el("p", { class: "help" }, game.over ? "Every hand is shown under Players." : "Nobody plays in person: every hand is shown under Players."));
  } else {
    const cards = cardList(pos.players[me].hand);
    if (!cards.length) hand.append(el("p", { class: "help" }, "empty"));
    cards.forEach((c) => {
      const ms = (byCity[canonical(geo, c)] || []).filter((m) => HAND_KINDS.has(m.kind));
      hand.append(cardEl(geo, c, { class: ms.length ? "legal" : "", disabled: !ms.length, onclick: ms.length ? (ev) => choose(ms, ev) : null,
        title: ms.map((m) => m.move).join(" / ") || null, move: ms.length === 1 ? ms[0].move : null }));
    });
  }

  // every legal move as a button (the same moves as the clicks above)
  const moves = $("#moves");
  moves.replaceChildren();
  if (!game.legal.length) moves.append(el("p", { class: "help" }, game.over ? "The game is over." : "Waiting for the bots."));
  for (const m of game.legal) {
    const star = hinted.has(m.move);
    moves.append(el("button", { type: "button", class: `move kind-${m.kind} ${star ? "hinted" : ""}`.trim(), "data-move": m.move, onclick: () => play(m.move) },
      (star ? "★ " : "") + moveText(m)));
  }
  $("#step-bot").disabled = !(game.waiting_for === "bot");
  const rec = $("#download-record");
  rec.hidden = game.from_position;
  rec.href = `/api/games/${game.id}/record`;
  rec.setAttribute("download", `thurn-ai-game-${game.seed}.jsonl`);
  refreshHint();
}

// One move, or a small menu when a click could mean several (left or right end, a new route, ...).
function choose(moves, ev) {
  if (moves.length === 1) { closeChooser(); play(moves[0].move); return; }
  const box = $("#chooser");
  box.replaceChildren(el("p", {}, "Which move?"));
  for (const m of moves) box.append(el("button", { type: "button", class: "move", "data-move": m.move, onclick: () => { closeChooser(); play(m.move); } }, moveText(m)));
  const area = $("#board-area").getBoundingClientRect();
  const x = (ev && ev.clientX) || area.left + 40, y = (ev && ev.clientY) || area.top + 40;
  box.style.left = `${Math.max(0, x - area.left + 8)}px`;
  box.style.top = `${Math.max(0, y - area.top + 8)}px`;
  box.hidden = false;
  if (ev) ev.stopPropagation();
}

function closeChooser() {
  $("#chooser").hidden = true;
}

async function play(move) {
  if (!game || busy) return;
  busy = true;
  clearError();
  try {
    const r = await api("POST", `/api/games/${game.id}/move`, { move });
    moved = r.moved.city;
    await setGame(r.view);
  } catch (e) {
    showError(e.message);
  } finally {
    busy = false;
  }
  advance();
}

async function stepOnce() {
  if (!game || game.waiting_for !== "bot" || busy) return false;
  busy = true;
  const seat = game.to_move;
  setStatus(`seat ${seat} (${game.seats[seat]}) is thinking…`);
  try {
    const r = await api("POST", `/api/games/${game.id}/step`);
    moved = r.moved.city;
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
}

async function toSetup() {
  if (!game) return;
  try {
    const pos = await api("GET", `/api/games/${game.id}/position`);
    const { loadIntoSetup } = await import("./setup.js");
    nav.switchTab("setup");
    await loadIntoSetup(pos);
  } catch (e) {
    showError(e.message);
  }
}

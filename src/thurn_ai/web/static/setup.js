// The Set-up view: build a position by clicking, checked on every change by the server with the checks
// of `thurn-ai validate`; export and import it as JSON (docs/position-format.md).
import { $, api, clearError, drawPosition, geometry, nav, setStatus, showError } from "./common.js";
import { canonical, cardEl, cardList, el, isHorses, SEAT_COLORS, tilesText } from "./board.js";

let pos = null;          // the position being set up, in the position format
let geo = null;
let target = "display";  // where a click on the map goes: display, discard, seat<k>.hand|known|route|houses
let checked = null;      // the server's answer for `pos` (null while a check is under way)
let shown = null;        // the last answer shown: kept on screen while the next check runs (no jumps)
let exported = null;     // the text last exported (taken out of the box when the position changes)
let ticket = 0;
let timer = null;

const visible = (seat) => pos.viewer === null || pos.viewer === undefined || pos.viewer === seat;

function seatEntry(seat, viewer) {
  const open = viewer === null || viewer === seat;
  return open ? { hand: [], route: [], houses: [], carriage: null, tiles: {} }
    : { hand_size: 0, known: [], route: [], houses: [], carriage: null, tiles: {} };
}

function emptyPosition(players, board) {
  return {
    rules: { players, board }, viewer: 0, to_move: 0, phase: "draw", turn: 0, display: [], discard: [],
    players: Array.from({ length: players }, (_, s) => seatEntry(s, 0)),
  };
}

// the play tab's game starter, handed in by app.js (setup.js and play.js use each other; neither imports the other)
let playPosition = null;

export async function initSetup(startup, { newGame }) {
  playPosition = newGame;
  $("#setup-board").addEventListener("change", async () => { await reset(Number($("#setup-players").value), $("#setup-board").value); });
  $("#setup-players").addEventListener("change", () => resize(Number($("#setup-players").value)));
  $("#setup-viewer").addEventListener("change", () => setViewer($("#setup-viewer").value === "" ? null : Number($("#setup-viewer").value)));
  $("#setup-to-move").addEventListener("change", () => { pos.to_move = Number($("#setup-to-move").value); changed(); });
  $("#setup-phase").addEventListener("change", () => { pos.phase = $("#setup-phase").value; changed(); });
  $("#setup-turn").addEventListener("change", () => {
    // the field counts turns from 1, as the rest of the page; the position format from 0
    const v = Number($("#setup-turn").value);
    pos.turn = Number.isInteger(v) && v >= 1 ? v - 1 : $("#setup-turn").value;
    changed();
  });
  $("#setup-export").addEventListener("click", () => exportPosition());
  $("#setup-import").addEventListener("click", () => importText($("#setup-json").value));
  $("#setup-import-file").addEventListener("change", async () => {
    const f = $("#setup-import-file").files[0];
    if (!f) return;
    const text = await f.text();
    $("#setup-json").value = text;
    importText(text);
  });
  $("#setup-clear").addEventListener("click", () => reset(Number($("#setup-players").value), $("#setup-board").value));
  $("#setup-play").addEventListener("click", () => playFromHere());
  if (startup.position) await loadIntoSetup(startup.position);
  else await reset(2, "south");
}

async function reset(players, board) {
  pos = emptyPosition(players, board);
  geo = await geometry(board);
  target = "display";
  changed();
}

function resize(n) {
  const old = pos.players;
  pos.players = Array.from({ length: n }, (_, s) => old[s] || seatEntry(s, pos.viewer));
  pos.rules.players = n;
  if (pos.viewer !== null && pos.viewer >= n) setViewer(0);
  if (pos.to_move >= n) pos.to_move = 0;
  if (!validTarget(target)) target = "display";
  changed();
}

// A seat's hand is listed card by card when the view is that seat's (or complete); otherwise only its
// size and the cards known to be in it (taken face up) are known.
function setViewer(v) {
  pos.viewer = v;
  pos.players.forEach((pl, s) => {
    if (visible(s) && pl.hand === undefined) {
      pl.hand = cardList(pl.known);
      delete pl.hand_size;
    } else if (!visible(s) && pl.hand !== undefined) {
      pl.hand_size = cardList(pl.hand).length;
      pl.known = cardList(pl.known);
      delete pl.hand;
    }
  });
  if (v !== null) delete pos.rng;     // a view holds no generator state (nor the deck)
  if (v !== null) delete pos.deck;
  if (!validTarget(target)) target = "display";
  changed();
}

function validTarget(t) {
  const m = /^seat(\d+)\.(\w+)$/.exec(t);
  if (!m) return t === "display" || t === "discard";
  const s = Number(m[1]);
  if (s >= pos.players.length) return false;
  if (m[2] === "hand") return visible(s);
  if (m[2] === "known") return !visible(s);
  if (m[2] === "horse_cards") return isHorses(geo, pos);
  return true;
}

// Positions may give cards as {city: count}; the editor keeps lists (one entry a card).
function normalise(d) {
  const p = JSON.parse(JSON.stringify(d));
  if (!p.rules || typeof p.rules !== "object") p.rules = {};
  if (!Array.isArray(p.players)) p.players = [];
  if (!p.rules.board) p.rules.board = "south";
  if (!p.rules.players) p.rules.players = p.players.length || 2;
  p.display = cardList(p.display);
  p.discard = cardList(p.discard);
  if (p.viewer === undefined) p.viewer = null;
  if (p.to_move === undefined) p.to_move = 0;
  if (p.phase === undefined) p.phase = "draw";
  if (p.turn === undefined) p.turn = 0;
  for (const pl of p.players) {
    if (!pl || typeof pl !== "object") continue;
    if (pl.hand !== undefined) pl.hand = cardList(pl.hand);
    if (pl.known !== undefined) pl.known = cardList(pl.known);
    if (!Array.isArray(pl.route)) pl.route = [];
    if (!Array.isArray(pl.houses)) pl.houses = [];
    if (!pl.tiles || typeof pl.tiles !== "object") pl.tiles = {};
    if (pl.carriage === undefined) pl.carriage = null;
  }
  return p;
}

export async function loadIntoSetup(d) {
  pos = normalise(d);
  const board = ["south", "north"].includes(pos.rules.board) ? pos.rules.board : "south";
  geo = await geometry(board);
  if (!validTarget(target)) target = "display";
  changed();
}

function changed() {
  checked = null;
  clearError();                 // an old message is about a position that is gone
  forgetExport();
  if (nav.current === "setup") showSetup();
  clearTimeout(timer);
  timer = setTimeout(check, 120);
}

async function check() {
  const mine = ++ticket;
  try {
    const r = await api("POST", "/api/positions/check", { position: pos });
    if (mine !== ticket) return null;
    checked = r;
  } catch (e) {
    if (mine !== ticket) return null;
    checked = { ok: false, problems: [{ field: "position", message: e.message }] };
  }
  showChecked();
  return checked;
}

// The check of the position as it is now (waiting for one under way, or starting one).
async function settled() {
  clearTimeout(timer);
  for (;;) {
    if (checked) return checked;
    const r = await check();
    if (r) return r;
  }
}

// ---------------------------------------------------------------- clicks on the map

// The deck's size follows from the cards placed (when the deck is not given card by card, or from the
// deck when it is): a size given by an imported position would contradict every change.
function cardsMoved() {
  delete pos.deck_size;
}

function onCity(name) {
  cardsMoved();
  const m = /^seat(\d+)\.(\w+)$/.exec(target);
  if (!m) {
    pos[target] = cardList(pos[target]);
    pos[target].push(name);
  } else {
    const pl = pos.players[Number(m[1])];
    const part = m[2];
    if (part === "houses") {
      const i = pl.houses.findIndex((h) => canonical(geo, h) === name);
      if (i >= 0) pl.houses.splice(i, 1); else pl.houses.push(name);
      delete pl.houses_left;      // follows from the houses
    } else if (part === "route") {
      // a card joins the end it has a road to (the right end first), as routes grow
      const r = pl.route.map((c) => canonical(geo, c));
      const adj = geo.adjacent[name] || new Set();
      if (r.length && !adj.has(r[r.length - 1]) && adj.has(r[0])) pl.route.unshift(name);
      else pl.route.push(name);
    } else {
      pl[part] = cardList(pl[part]);
      pl[part].push(name);
    }
  }
  changed();
}

// ---------------------------------------------------------------- drawing the editor

function chips(list, onRemove, label) {
  const box = el("div", { class: "chips" });
  if (!list.length) box.append(el("span", { class: "help" }, "none"));
  list.forEach((c, i) => box.append(el("span", { class: "chip" },
    cardEl(geo, c, { class: "mini", disabled: true }),
    el("button", { type: "button", class: "remove", "aria-label": `remove ${c} from ${label}`, onclick: () => { onRemove(i); cardsMoved(); changed(); } }, "×"))));
  return box;
}

function problemsBox(field) {
  return el("div", { class: "problems", "data-problems-for": field });
}

function seatFieldset(s) {
  const pl = pos.players[s];
  const f = `seat${s}`;
  const box = el("fieldset", { class: "seat-setup", "data-seat": s, style: `--seat:${SEAT_COLORS[s]}` },
    el("legend", {}, el("span", { class: "seat-swatch", style: `background:${SEAT_COLORS[s]}` }, String(s)), ` seat ${s}`));
  if (pl.hand !== undefined) {
    box.append(el("div", { class: "field", "data-field": `${f}.hand` }, el("h3", {}, "hand"),
      chips(cardList(pl.hand), (i) => { pl.hand = cardList(pl.hand); pl.hand.splice(i, 1); }, `seat ${s} hand`), problemsBox(`${f}.hand`)));
  } else {
    const size = el("input", { type: "number", min: 0, value: pl.hand_size ?? 0, size: 4, id: `setup-hand-size-${s}`,
      onchange: (ev) => { const v = Number(ev.target.value); pl.hand_size = Number.isInteger(v) ? v : ev.target.value; cardsMoved(); changed(); } });
    box.append(el("div", { class: "field", "data-field": `${f}.hand` }, el("label", {}, "cards in hand ", size), problemsBox(`${f}.hand`)));
    box.append(el("div", { class: "field", "data-field": `${f}.known` }, el("h3", {}, "known in that hand ", el("span", { class: "sub" }, "(taken face up)")),
      chips(cardList(pl.known), (i) => { pl.known = cardList(pl.known); pl.known.splice(i, 1); }, `seat ${s} known cards`), problemsBox(`${f}.known`)));
  }
  box.append(el("div", { class: "field", "data-field": `${f}.route` }, el("h3", {}, "route"),
    chips(pl.route, (i) => pl.route.splice(i, 1), `seat ${s} route`), problemsBox(`${f}.route`)));
  box.append(el("div", { class: "field", "data-field": `${f}.houses` }, el("h3", {}, "houses"),
    chips(pl.houses, (i) => { pl.houses.splice(i, 1); delete pl.houses_left; }, `seat ${s} houses`), problemsBox(`${f}.houses`)));
  if (isHorses(geo, pos)) {
    box.append(el("div", { class: "field", "data-field": `${f}.horse_cards` }, el("h3", {}, "horse cards"),
      chips(cardList(pl.horse_cards), (i) => { pl.horse_cards = cardList(pl.horse_cards); pl.horse_cards.splice(i, 1); }, `seat ${s} horse cards`),
      problemsBox(`${f}.horse_cards`)));
  } else if (geo.carriages.length) {
    const sel = el("select", { id: `setup-carriage-${s}`, onchange: (ev) => { pl.carriage = ev.target.value === "" ? null : Number(ev.target.value); changed(); } },
      el("option", { value: "" }, "none"), geo.carriages.map((c) => el("option", { value: c.size, selected: pl.carriage === c.size }, `${c.size} (${c.points} points)`)));
    box.append(el("div", { class: "field", "data-field": `${f}.carriage` }, el("label", {}, "carriage ", sel), problemsBox(`${f}.carriage`)));
  }
  // tiles: a stack and a value from it
  const stack = el("select", { "aria-label": `seat ${s} tile stack` }, geo.tiles.map((t) => el("option", { value: t.id }, t.label || t.id)));
  const value = el("select", { "aria-label": `seat ${s} tile value` });
  const fillValues = () => value.replaceChildren(...geo.tiles.find((t) => t.id === stack.value).values.map((v) => el("option", { value: v }, String(v))));
  stack.addEventListener("change", fillValues);
  fillValues();
  const add = el("button", { type: "button", onclick: () => {
    const held = pl.tiles[stack.value];
    pl.tiles[stack.value] = (Array.isArray(held) ? held : []).concat([Number(value.value)]);
    delete pos.tile_stacks;          // follows from the tiles held
    changed();
  } }, "add tile");
  const tileChips = el("div", { class: "chips" });
  for (const [id, v] of Object.entries(pl.tiles)) {
    tileChips.append(el("span", { class: "chip" }, tilesText({ [id]: v }, geo),
      el("button", { type: "button", class: "remove", "aria-label": `remove tile ${id} of seat ${s}`, onclick: () => { delete pl.tiles[id]; delete pos.tile_stacks; changed(); } }, "×")));
  }
  box.append(el("div", { class: "field", "data-field": `${f}.tiles` }, el("h3", {}, "tiles"), tileChips,
    el("div", { class: "row" }, stack, value, add), problemsBox(`${f}.tiles`)));
  return box;
}

function targets() {
  const out = [["display", "display"], ["discard", "discard pile"]];
  pos.players.forEach((pl, s) => {
    out.push(visible(s) ? [`seat${s}.hand`, `seat ${s} hand`] : [`seat${s}.known`, `seat ${s} known cards`]);
    out.push([`seat${s}.route`, `seat ${s} route`], [`seat${s}.houses`, `seat ${s} houses`]);
    if (isHorses(geo, pos)) out.push([`seat${s}.horse_cards`, `seat ${s} horse cards`]);
  });
  return out;
}

export function showSetup() {
  if (!pos || !geo) return;
  $("#hint-panel").hidden = true;
  const n = pos.players.length;
  $("#setup-board").value = geo.name;
  $("#setup-players").value = String(n);
  const viewer = $("#setup-viewer");
  viewer.replaceChildren(el("option", { value: "" }, "complete (every hand)"),
    ...pos.players.map((_, s) => el("option", { value: String(s) }, `seat ${s}'s view`)));
  viewer.value = pos.viewer === null ? "" : String(pos.viewer);
  const toMove = $("#setup-to-move");
  toMove.replaceChildren(...pos.players.map((_, s) => el("option", { value: String(s) }, `seat ${s}`)));
  toMove.value = String(pos.to_move);
  $("#setup-phase").value = pos.phase;
  $("#setup-turn").value = Number.isInteger(pos.turn) ? String(pos.turn + 1) : String(pos.turn);
  // an imported position may carry the turn's bookkeeping, which the fields here do not edit
  $("#setup-turn-state").replaceChildren(...(pos.turn_state === undefined ? [] : [
    `The turn's bookkeeping is given (${Object.entries(pos.turn_state || {}).map(([k, v]) => `${k} ${JSON.stringify(v)}`).join(", ")}). `,
    el("button", { type: "button", id: "setup-forget-turn-state", onclick: () => { delete pos.turn_state; changed(); } },
      "Take the phase's defaults instead")]));

  const fs = $("#setup-target");
  fs.replaceChildren(el("legend", {}, "a click on the map adds to"));
  for (const [value, label] of targets()) {
    fs.append(el("label", { class: "target" }, el("input", { type: "radio", name: "setup-target", value, checked: value === target,
      onchange: () => { target = value; } }), ` ${label}`));
  }
  $("#setup-display").replaceChildren(chips(pos.display, (i) => pos.display.splice(i, 1), "the display"));
  $("#setup-discard").replaceChildren(chips(pos.discard, (i) => pos.discard.splice(i, 1), "the discard pile"));
  const deck = $("#setup-deck");
  if (pos.deck !== undefined) {
    deck.replaceChildren(`The deck is given card by card (${cardList(pos.deck).length} cards): every card must be somewhere. `,
      el("button", { type: "button", id: "setup-forget-deck", onclick: () => { delete pos.deck; delete pos.deck_size; delete pos.rng; changed(); } },
        "Deal the rest at random instead"));
  } else {
    deck.textContent = "The deck: every card not placed here (hidden hands are dealt from them at random).";
  }
  $("#setup-seats").replaceChildren(...pos.players.map((_, s) => seatFieldset(s)));
  showChecked();
}

// What the check says (problems, status) and the board. Only this is redrawn when an answer arrives,
// so a field being typed in is never replaced under the typing.
function showChecked() {
  if (!pos || !geo || nav.current !== "setup") return;
  // problems next to their fields; any other in the general list
  const boxes = {};
  for (const b of document.querySelectorAll("#view-setup [data-problems-for]")) {
    b.replaceChildren();
    boxes[b.dataset.problemsFor] = b;
  }
  // while a check runs, the last answer stays on screen (marked as being checked): nothing moves under
  // the pointer, and the buttons stay enabled (a click waits for the check, see settled())
  const status = $("#setup-status");
  if (checked) shown = checked;
  const answer = checked || shown;
  if (answer) {
    for (const p of answer.problems) (boxes[p.field] || boxes.position).append(el("p", { class: "problem" }, p.message));
    status.textContent = answer.ok ? `✓ valid: ${answer.view.summary}` : `${answer.problems.length} problem${answer.problems.length === 1 ? "" : "s"}`;
    status.className = `${answer.ok ? "ok" : "bad"} ${checked ? "" : "checking"}`.trim();
  } else {
    status.textContent = "checking…";
    status.className = "checking";
  }
  $("#setup-export").disabled = Boolean(checked && !checked.ok);
  $("#setup-play").disabled = Boolean(checked && !checked.ok);

  const view = checked && checked.ok ? checked.view : null;
  drawPosition(geo, view ? view.position : pos, {
    scores: view ? view.scores : null, viewer: pos.viewer, title: `${geo.title} · setting up a position`,
    cityClass: () => "clickable", onCity: (c) => onCity(c),
  });
  $("#log").replaceChildren();
}

// ---------------------------------------------------------------- export, import, play

async function exportPosition() {
  const r = await settled();
  if (!r.ok) { $("#setup-status").textContent = "fix the problems before exporting"; return; }
  $("#setup-json").value = r.text;
  exported = r.text;
  const link = $("#setup-download");
  if (link.href.startsWith("blob:")) URL.revokeObjectURL(link.href);
  link.href = URL.createObjectURL(new Blob([r.text], { type: "application/json" }));
  link.download = downloadName();
  link.textContent = `Download ${link.download}`;
  link.hidden = false;
}

// The file name of an export: the board, players and turn, so that several exports stay apart.
function downloadName() {
  const turn = Number.isInteger(pos.turn) ? `-turn${pos.turn + 1}` : "";
  return `position-${pos.rules.board || "south"}-${pos.players.length}p${turn}.json`;
}

// The position changed: an export of the old one must not stay on offer.
function forgetExport() {
  const link = $("#setup-download");
  if (link.href.startsWith("blob:")) URL.revokeObjectURL(link.href);
  link.removeAttribute("href");
  link.hidden = true;
  if (exported !== null && $("#setup-json").value === exported) $("#setup-json").value = "";
  exported = null;
}

async function importText(text) {
  clearError();
  try {
    const r = await api("POST", "/api/positions/check", { text });
    await loadIntoSetup(r.input);
  } catch (e) {
    showError(`cannot import the position: ${e.message}`);
    const box = document.querySelector('#view-setup [data-problems-for="position"]');
    box.replaceChildren(el("p", { class: "problem" }, e.message));
  }
}

async function playFromHere() {
  const r = await settled();
  if (!r.ok) return;
  const opponents = $("#setup-opponents").value.trim() || "mcts";
  const person = pos.viewer === null ? pos.to_move : pos.viewer;
  const seats = pos.players.map((_, s) => (s === person ? "human" : opponents));
  nav.switchTab("play");
  setStatus("");
  await playPosition({ seats, position: pos });
}

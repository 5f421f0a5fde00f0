// What the views share: the API, error messages, the board geometry, the panels beside the board.
import { drawBoard, drawLegend, drawPlayers, drawStrip, drawTileStacks, el, isHorses, plural, points, prepareGeometry, SEAT_COLORS, officialLabel, tileLabel } from "./board.js";

export const $ = (sel) => document.querySelector(sel);

export class ApiError extends Error {
  constructor(message, status, body) {
    super(message);
    this.status = status;
    this.body = body;
  }
}

// Every answer of the server is JSON; a 4xx/5xx carries {"error": "..."}.
export async function api(method, url, body) {
  const init = { method, headers: {} };
  if (body !== undefined) {
    init.headers["content-type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  let res;
  try {
    res = await fetch(url, init);
  } catch (e) {
    throw new ApiError(`the server does not answer (${e.message}); is thurn-ai serve still running?`, 0, null);
  }
  const text = await res.text();
  let data = null;
  try { data = text ? JSON.parse(text) : null; } catch (e) { data = null; }
  if (!res.ok) {
    const msg = data && data.error ? data.error : `${res.status} ${res.statusText}`;
    throw new ApiError(msg, res.status, data);
  }
  return data;
}

export function showError(message) {
  $("#error").hidden = true;          // a new problem replaces the old one (and is announced again)
  $("#error-text").textContent = message;
  $("#error").hidden = false;
}

export function clearError() {
  $("#error").hidden = true;
  $("#error-text").textContent = "";
}

export function setStatus(text) {
  $("#status").textContent = text || "";
}

const geometries = {};

export async function geometry(board) {
  if (!geometries[board]) geometries[board] = prepareGeometry(await api("GET", `/api/board/${encodeURIComponent(board)}`));
  return geometries[board];
}

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// The board and the panels for one position. opts: as drawBoard, plus scores, seatLabels, viewer, log
// (entries of the moves so far), logCurrent (index to mark), onLog(index).
//
// A redraw between a press and its release would put a new element under the pointer, and the browser
// sends the click to neither element: the click would be lost (a check's answer arriving mid-click did
// that). So while a pointer is down, drawing waits; the last request is drawn once the press and its
// click are over.
let pressed = false;
let pending = null;
addEventListener("pointerdown", () => { pressed = true; }, true);
for (const type of ["pointerup", "pointercancel"]) {
  addEventListener(type, () => setTimeout(release, 0), true);   // after the click the release sends
}
addEventListener("blur", (ev) => { if (ev.target === window) release(); });   // the window lost the pointer
function release() {
  pressed = false;
  if (pending) {
    const args = pending;
    pending = null;
    drawPosition(...args);
  }
}

// Zoom and pan: the map grows inside a box that scrolls (a finger or the scroll bars pan it). On a phone it
// starts zoomed, so that city names are readable.
let zoom = null;
export function initZoom() {
  const set = (z) => {
    zoom = Math.max(1, Math.min(4, z));
    $("#board").style.width = `${100 * zoom}%`;
    document.body.dataset.zoomed = zoom > 1 ? "yes" : "no";
    $("#zoom-out").disabled = zoom <= 1;
    $("#zoom-in").disabled = zoom >= 4;
  };
  const keep = (z) => {       // zoom about the middle of what is in view
    const box = $("#board-scroll");
    const cx = (box.scrollLeft + box.clientWidth / 2) / box.scrollWidth, cy = (box.scrollTop + box.clientHeight / 2) / box.scrollHeight;
    set(z);
    box.scrollLeft = cx * box.scrollWidth - box.clientWidth / 2;
    box.scrollTop = cy * box.scrollHeight - box.clientHeight / 2;
  };
  $("#zoom-in").addEventListener("click", () => keep(zoom * 1.5));
  $("#zoom-out").addEventListener("click", () => keep(zoom / 1.5));
  $("#zoom-reset").addEventListener("click", () => set(1));
  set(window.innerWidth <= 600 ? 2.5 : 1);
}

// Scroll a zoomed map so that these cities are in the middle of its box (nothing when it is not zoomed).
export function panToCities(geo, names) {
  const box = $("#board-scroll"), svg = $("#board");
  const pts = names.map((n) => geo.byName[n]).filter(Boolean);
  if (!zoom || zoom <= 1 || !pts.length) return;
  const scale = svg.getBoundingClientRect().width / geo.width;
  const cx = pts.reduce((a, c) => a + c.x, 0) / pts.length, cy = pts.reduce((a, c) => a + c.y, 0) / pts.length;
  box.scrollLeft = cx * scale - box.clientWidth / 2;
  box.scrollTop = cy * scale - box.clientHeight / 2;
}

export function drawPosition(geo, pos, opts = {}) {
  if (pressed) { pending = [geo, pos, opts]; return; }
  drawBoard($("#board"), geo, pos, opts);
  drawLegend($("#legend"), geo, pos.players.length, isHorses(geo, pos));
  $("#board-title").textContent = geo.title;
  $("#board-title").title = opts.title || geo.title;
  drawPlayers($("#players"), geo, pos, opts);
  drawStrip($("#strip"), geo, pos, opts);
  drawTileStacks($("#tile-stacks"), geo, pos);
  drawLog(opts.log || [], opts.logCurrent, opts.onLog, geo);
  // on a phone the strip and the legend scroll sideways: then the keyboard can reach them too
  for (const box of [$("#strip"), $("#legend")]) {
    if (box.scrollWidth > box.clientWidth + 1) box.setAttribute("tabindex", "0");
    else box.removeAttribute("tabindex");
  }
}

// The city to ring as "just moved": a move that puts something on that city (a card on a route, a house,
// a draw from the display); a discarded card leaves nothing there.
export function movedCity(entry) {
  return entry && entry.city && entry.kind !== "discard" ? entry.city : null;
}

// A move in notation, with the official it uses unless the move names it already ("administrator").
export function moveText(entry) {
  const label = entry.official_label;
  return entry.move + (label && !entry.move.toLowerCase().startsWith(label.toLowerCase()) ? ` [${label}]` : "");
}

// The phases in words (the engine's names are for scripts).
export const PHASE_WORDS = { draw: "drawing cards", play: "playing a card", after_play: "after playing a card",
  houses: "placing houses", cartwright: "the Cartwright", discard: "discarding", over: "game over" };

export { plural, points };        // the page's one helper for counts in words (board.js)

export function closeText(c, geo = null, verb = "closed") {
  const parts = [`${verb} ${c.route.join(" – ")}`];
  parts.push(c.houses.length ? `houses in ${c.houses.join(", ")}` : "no house");
  if (c.tiles.length) parts.push(`tiles ${c.tiles.map((t) => `${tileLabel(geo, t.stack)} (${t.value})`).join(", ")}`);
  if (c.carriage) parts.push(`${c.carriage}-carriage${c.cartwright ? " (Cartwright)" : ""}`);
  parts.push(points(c.points));
  if (c.ends_game) parts.push("the game ends after this round");
  return parts.join("; ");
}

function drawLog(log, current, onLog, geo) {
  const box = $("#log");
  box.replaceChildren();
  const from = Math.max(0, log.length - 400);   // a long game: the latest moves
  for (let i = from; i < log.length; i++) {
    const e = log[i];
    const li = el("li", { value: e.i + 1, class: `seat${e.seat} ${e.close ? "close" : ""} ${current === i ? "current" : ""}`.trim(),
      "data-index": e.i, style: `--seat:${SEAT_COLORS[e.seat]}` },
      el("span", { class: "log-seat" }, `seat ${e.seat}`), " ", moveText(e));
    if (e.close) li.append(el("div", { class: "close-award" }, `seat ${e.seat} ${closeText(e.close, geo)}`));
    if (onLog) {
      li.classList.add("clickable");
      li.addEventListener("click", () => onLog(e.i));
    }
    box.append(li);
  }
  // scroll the list only (scrollIntoView would scroll the whole side column too)
  const cur = box.querySelector("li.current") || box.lastElementChild;
  if (cur) box.scrollTop = Math.max(0, cur.offsetTop - box.offsetTop - box.clientHeight / 2);
}

// Turns are counted from 1 everywhere on the page (the position format counts from 0), one a seat's turn,
// as the terminal counts them (`thurn-ai play`, `thurn-ai replay`: "after 75 turns"); the round is given too.
// person: the seat to move is the person looking (the empty-hand note speaks to them).
export function turnText(view, seatLabels, person = false) {
  if (view.over) {
    const order = view.ranking.map((s) => `seat ${s} ${view.scores[s]}`).join(", ");
    return `Game over after ${plural(view.turn, "turn")} — winner: seat ${view.winner}` +
      (seatLabels ? ` (${seatLabels[view.winner]})` : "") + `. Ranking: ${order}.`;
  }
  // the first turn with an empty hand: the rules give the Postmaster's two draws (the terminal says so too)
  const forced = view.official_used === "postmaster" && view.forced_postmaster;
  const official = view.official_used ? ` · official used this turn: ${officialLabel(view.official_used)}` +
    (forced ? (person ? " (your hand was empty: the Postmaster gives you two cards)" : " (an empty hand: the Postmaster's two cards)") : "") : "";
  const who = seatLabels ? ` (${seatLabels[view.to_move]})` : "";
  const round = Math.floor(view.turn / view.players) + 1;
  return `Turn ${view.turn + 1} (round ${round}) · seat ${view.to_move}${who} to move · ${PHASE_WORDS[view.phase] || view.phase}${official}`;
}

// Filled in by app.js: switching between the Play, Replay and Set-up views.
export const nav = { current: "play", switchTab: (name) => {} };

// One line per turn of the log entries given (consecutive entries of one seat in one turn): what the seat
// did, in words. geo: for the tiles' names.
export function turnSummaries(entries, geo) {
  const turns = [];
  for (const e of entries) {
    const last = turns[turns.length - 1];
    if (last && last.seat === e.seat && last.turn === e.turn) last.entries.push(e);
    else turns.push({ seat: e.seat, turn: e.turn, by: e.by, entries: [e] });
  }
  return turns.map((t) => ({ ...t, text: t.entries.map((e) => entryText(e, geo)).filter(Boolean).join(", ") }));
}

// One move in words, whatever it is ("drew Ulm from the display", "placed a house in Ulm", "ended the
// turn"): the line that names a bot's move as it is shown.
export function moveWords(e, geo) {
  const said = entryText(e, geo);
  if (said) return said;
  switch (e.kind) {
    case "house": return `placed a house in ${e.city}`;
    case "done": return "placed its houses";
    case "stop": return "ended the turn";
    case "close": return "closed the route";
    case "cartwright": return "took the next carriage with the Cartwright";
    case "no_cartwright": return "did not use the Cartwright";
    default: return e.move;
  }
}

function entryText(e, geo) {
  const off = e.official_label ? ` (${e.official_label})` : "";
  if (e.close) return closeText(e.close, geo) ;
  switch (e.kind) {
    case "draw": return `drew ${e.city} from the display${off}`;
    case "deck": return `drew from the deck${off}`;
    case "left": case "right": return `played ${e.city}${off}`;
    case "new": return `started a new route with ${e.city}${off}`;
    case "horse": return `put ${e.city} at the carriage${off}`;
    case "discard": return `discarded ${e.city}`;
    case "administrator": return "replaced the display (Administrator)";
    case "house": case "done": case "stop": case "no_cartwright": case "cartwright": case "close": return null;
    default: return e.move + off;
  }
}
// What the views share: the API, error messages, the board geometry, the panels beside the board.
import { drawBoard, drawLegend, drawPlayers, drawTileStacks, el, isHorses, prepareGeometry, SEAT_COLORS, officialLabel } from "./board.js";

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
export function drawPosition(geo, pos, opts = {}) {
  drawBoard($("#board"), geo, pos, opts);
  drawLegend($("#legend"), geo, pos.players.length, isHorses(geo, pos));
  $("#board-title").textContent = opts.title || geo.title;
  drawPlayers($("#players"), geo, pos, opts);
  drawTileStacks($("#tile-stacks"), geo, pos);
  drawLog(opts.log || [], opts.logCurrent, opts.onLog);
}

export function moveText(entry) {
  return entry.move + (entry.official_label ? ` [${entry.official_label}]` : "");
}

export function closeText(c) {
  const parts = [`closed ${c.route.join(" – ")}`];
  if (c.houses.length) parts.push(`houses in ${c.houses.join(", ")}`);
  if (c.tiles.length) parts.push(`tiles ${c.tiles.map((t) => `${t.stack} ${t.value}`).join(", ")}`);
  if (c.carriage) parts.push(`${c.carriage}-carriage${c.cartwright ? " (Cartwright)" : ""}`);
  parts.push(`${c.points >= 0 ? "+" : ""}${c.points} points`);
  if (c.ends_game) parts.push("the game ends after this round");
  return parts.join("; ");
}

function drawLog(log, current, onLog) {
  const box = $("#log");
  box.replaceChildren();
  const from = Math.max(0, log.length - 400);   // a long game: the latest moves
  for (let i = from; i < log.length; i++) {
    const e = log[i];
    const li = el("li", { value: e.i + 1, class: `seat${e.seat} ${e.close ? "close" : ""} ${current === i ? "current" : ""}`.trim(),
      "data-index": e.i, style: `--seat:${SEAT_COLORS[e.seat]}` },
      el("span", { class: "log-seat" }, `seat ${e.seat}`), " ", moveText(e));
    if (e.close) li.append(el("div", { class: "close-award" }, `seat ${e.seat} ${closeText(e.close)}`));
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

export function turnText(view, seatLabels) {
  if (view.over) {
    const order = view.ranking.map((s) => `seat ${s} ${view.scores[s]}`).join(", ");
    return `Game over after ${view.turn} turns — winner: seat ${view.winner}` +
      (seatLabels ? ` (${seatLabels[view.winner]})` : "") + `. Ranking: ${order}.`;
  }
  const official = view.official_used ? ` · official used this turn: ${officialLabel(view.official_used)}` : "";
  const who = seatLabels ? ` (${seatLabels[view.to_move]})` : "";
  return `Turn ${view.turn + 1} · seat ${view.to_move}${who} to move · ${view.phase}${official}`;
}

// Filled in by app.js: switching between the Play, Replay and Set-up views.
export const nav = { current: "play", switchTab: (name) => {} };

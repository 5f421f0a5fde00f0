// A bot's move shown as a move: the card drawn travels from the display to the seat, the card played from
// the seat to its city and the route grows to it, at the bots' chosen speed; a line names the move.
import { $, moveWords } from "./common.js";
import { canonical, el, SEAT_COLORS } from "./board.js";
import { st } from "./play_state.js";

// Where the display's cards are before the move is drawn (they are redrawn with the new position).
export function displayRects() {
  const at = {};
  for (const c of document.querySelectorAll("#display .card")) at[c.classList.contains("deck") ? "deck" : c.dataset.city] = c.getBoundingClientRect();
  return at;
}

// How long a move's motion takes: most of the pause between the bots' moves.
function duration() {
  const speed = $("#bot-speed").value;
  return speed === "step" ? 500 : 0.8 * Number(speed);
}

// After the view of `entry`'s move is drawn: its line, and its motion (from `before`, displayRects()).
export function showBotMove(entry, before) {
  if (!entry || !st.game) return;
  $("#bot-move").textContent = `Seat ${entry.seat} (${entry.by}) ${moveWords(entry, st.geo)}.`;
  const ms = duration();
  if (!(ms > 0) || document.hidden) return;
  const seat = document.querySelector(`#strip .strip-seat[data-seat="${entry.seat}"]`);
  if ((entry.kind === "draw" || entry.kind === "deck") && seat) {
    fly(entry.kind === "deck" ? "deck" : entry.city, before[entry.kind === "deck" ? "deck" : entry.city], seat.getBoundingClientRect(), ms);
  } else if (["left", "right", "new", "horse"].includes(entry.kind)) {
    const city = document.querySelector(`#board .city[data-city="${CSS.escape(canonical(st.geo, entry.city))}"]`);
    if (seat && city) fly(entry.city, seat.getBoundingClientRect(), city.getBoundingClientRect(), ms);
    if (entry.kind !== "horse") growRoute(entry, ms);
  }
}

// A box moved inside the window (a phone shows part of the page): a card never flies out of sight.
function inView(r) {
  const w = document.documentElement.clientWidth, h = document.documentElement.clientHeight;
  const width = Math.min(r.width, w), height = Math.min(r.height, h);
  return { left: Math.min(Math.max(r.left, 0), w - width), top: Math.min(Math.max(r.top, 0), h - height), width, height };
}

// A copy of the card moving from one box to another, gone when it arrives (both ends kept in view).
function fly(name, fromBox, toBox, ms) {
  if (!fromBox || !toBox) return;
  const from = inView(fromBox), to = inView(toBox);
  const card = el("div", { class: "card flying-card", "aria-hidden": "true", "data-city": name,
    "data-to": `${Math.round(to.left + to.width / 2)},${Math.round(to.top + to.height / 2)}` },
    el("span", { class: "card-name" }, name));
  card.style.left = `${from.left}px`;
  card.style.top = `${from.top}px`;
  card.style.transitionDuration = `${ms}ms`;
  document.body.append(card);
  requestAnimationFrame(() => requestAnimationFrame(() => {
    card.style.left = `${to.left + to.width / 2 - card.offsetWidth / 2}px`;
    card.style.top = `${to.top + to.height / 2 - card.offsetHeight / 2}px`;
  }));
  setTimeout(() => { card.style.opacity = "0"; }, ms);
  setTimeout(() => card.remove(), ms + 300);
}

// The route's new piece drawn from the city it joins to the new one (the route is already drawn to it).
function growRoute(entry, ms) {
  const route = (st.game.position.players[entry.seat] || {}).route || [];
  const at = route.indexOf(canonical(st.geo, entry.city));
  const from = entry.kind === "left" ? route[1] : entry.kind === "right" ? route[route.length - 2] : null;
  const a = from && st.geo.byName[from], b = st.geo.byName[canonical(st.geo, entry.city)];
  if (at < 0 || !a || !b) return;
  const n = st.game.position.players.length, off = (entry.seat - (n - 1) / 2) * 5;
  const len = Math.hypot(b.x - a.x, b.y - a.y);
  const line = el("svg:line", { class: "route-growth", x1: a.x + off, y1: a.y + off, x2: b.x + off, y2: b.y + off,
    stroke: SEAT_COLORS[entry.seat], "stroke-dasharray": len, "data-seat": entry.seat });
  line.style.setProperty("--len", String(len));
  line.style.setProperty("--grow", `${ms}ms`);
  // the route drawn without its new end until the piece has grown (then as it is)
  const poly = document.querySelector(`#board polyline.route[data-seat="${entry.seat}"]`);
  if (poly) {
    const all = poly.getAttribute("points");
    const pts = all.split(" ");
    poly.setAttribute("points", (entry.kind === "left" ? pts.slice(1) : pts.slice(0, -1)).join(" "));
    setTimeout(() => { if (poly.isConnected) poly.setAttribute("points", all); line.remove(); }, ms);
  }
  $("#board .routes").append(line);
}

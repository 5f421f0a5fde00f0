// "Review this game" in the Replay view: the server reviews the replay's record in the background
// (POST /api/replays/{id}/review, polled at /api/reviews/{id}); the page sums up each seat (accuracy, expected
// points lost, labels, worst turns), draws every seat's win chance and points lost over the game under the
// board, lists the labelled moves, jumps to each and marks the better move and its line on the board.
// "Learn from your mistakes" shows a seat's mistakes one by one: the position, then the player tries a move
// before the answer is revealed.
// It hears of the replay through two events replay.js sends: "replay:opened" (the record's summary) and
// "replay:shown" (the move number shown, after the board is drawn); app.js hands it goTo.
import { $, api, sleep } from "./common.js";
import { el, plural } from "./board.js";

const SVG = "http://www.w3.org/2000/svg";
const COLORS = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd"];
const POLL_MS = 500;
const W = 640, H = 170, PAD = 28;

const st = { replay: null, job: null, review: null, selected: null, goTo: null, ticket: 0, learn: null };

export function initReview({ goTo }) {
  st.goTo = goTo;
  const box = el("div", { id: "review-controls", class: "row" },
    el("button", { type: "button", id: "review-button" }, "Review this game"),
    el("label", {}, "iterations a search ", el("input", { id: "review-budget", type: "number", min: "100", max: "3000", step: "100", value: "3000", size: "6" })),
    el("button", { type: "button", id: "review-cancel", hidden: true }, "Cancel"),
    el("progress", { id: "review-progress", max: "1", hidden: true }),
    el("span", { id: "review-status", role: "status" }));
  $("#replay-next-move").after(box);
  const panel = el("section", { id: "review-panel", class: "box", hidden: true, "aria-label": "review of the game" },
    el("h2", {}, "Review"),
    el("div", { id: "review-summary" }),
    el("div", { id: "review-graph-box" }),
    el("p", { id: "review-better", role: "status" }),
    el("ul", { id: "review-list" }),
    el("div", { id: "review-learn-controls", class: "row" },
      el("label", {}, "Learn from the mistakes of ", el("select", { id: "review-learn-seat" })),
      el("button", { type: "button", id: "review-learn-start" }, "Start")),
    el("section", { id: "review-learn", hidden: true, "aria-label": "learn from your mistakes" },
      el("h3", { id: "review-learn-title" }),
      el("p", { id: "review-learn-ask" }),
      el("div", { id: "review-learn-choices", class: "row" }),
      el("p", { id: "review-learn-verdict", role: "status" }),
      el("div", { class: "row" },
        el("button", { type: "button", id: "review-learn-reveal" }, "Show the answer"),
        el("button", { type: "button", id: "review-learn-next" }, "Next mistake"),
        el("button", { type: "button", id: "review-learn-stop" }, "Stop"))));
  $("#legend").after(panel);
  $("#review-button").addEventListener("click", startReview);
  $("#review-cancel").addEventListener("click", cancelReview);
  $("#review-learn-start").addEventListener("click", () => startLearning(Number($("#review-learn-seat").value)));
  $("#review-learn-reveal").addEventListener("click", reveal);
  $("#review-learn-next").addEventListener("click", () => showMistake(st.learn ? st.learn.k + 1 : 0));
  $("#review-learn-stop").addEventListener("click", stopLearning);
  document.addEventListener("replay:opened", (ev) => reset(ev.detail));
  document.addEventListener("replay:shown", (ev) => markBetter(ev.detail.at));
}

function reset(summary) {
  st.replay = summary;
  st.job = st.review = st.selected = st.learn = null;
  $("#review-learn").hidden = true;
  st.ticket++;
  $("#review-panel").hidden = true;
  $("#review-button").disabled = false;
  $("#review-cancel").hidden = $("#review-progress").hidden = true;
  $("#review-status").textContent = "";
}

async function startReview() {
  if (!st.replay) return;
  const ticket = ++st.ticket;
  $("#review-button").disabled = true;
  $("#review-status").textContent = "starting the review…";
  try {
    let job = await api("POST", `/api/replays/${st.replay.id}/review`, { budget: Number($("#review-budget").value) || 3000 });
    st.job = job;
    $("#review-cancel").hidden = $("#review-progress").hidden = false;
    while (job.status === "running") {
      showProgress(job);
      await sleep(POLL_MS);
      if (ticket !== st.ticket) return;         // another record was opened meanwhile
      job = await api("GET", `/api/reviews/${job.id}`);
    }
    if (job.status !== "done") throw new Error(job.error || `the review ended: ${job.status}`);
    st.review = job.result;
    $("#review-status").textContent = `reviewed in ${job.elapsed.toFixed(0)} s`;
    showReview();
  } catch (e) {
    if (ticket === st.ticket) $("#review-status").textContent = e.message;
  } finally {
    if (ticket === st.ticket) {
      $("#review-button").disabled = false;
      $("#review-cancel").hidden = $("#review-progress").hidden = true;
    }
  }
}

function showProgress(job) {
  const p = $("#review-progress");
  if (job.total) p.value = job.done / job.total; else p.removeAttribute("value");
  $("#review-status").textContent = job.total ? `reviewing: ${job.done} of ${job.total} decisions` : "reviewing…";
}

async function cancelReview() {
  if (st.job) await api("POST", `/api/reviews/${st.job.id}/cancel`, {}).catch(() => {});
}

const pct = (x) => (x === null || x === undefined ? "?" : `${Math.round(100 * x)}%`);
const pts = (x) => `${x.toFixed(1)} point${x.toFixed(1) === "1.0" ? "" : "s"}`;
const PLURAL = { inaccuracy: "inaccuracies", mistake: "mistakes", blunder: "blunders" };
const count = (n, label) => plural(n, label, PLURAL[label]);
const OFFICIAL = { postmaster: "Postmaster", administrator: "Administrator", postal_carrier: "Postal Carrier", cartwright: "Cartwright" };
const moveText = (move, official) => `“${move}”` + (official ? ` [${OFFICIAL[official] || official}]` : "");
const line = (d) => (d.best_line.length > 1 ? ` Best line: ${d.best_line.join(" → ")} (${d.best_line_then}).` : "");

function showReview() {
  const r = st.review;
  $("#review-panel").hidden = false;
  $("#review-summary").replaceChildren(
    el("table", { id: "review-table" },
      el("caption", {}, `Accuracy and expected final points lost (${r.budget} iterations a search)`),
      el("thead", {}, el("tr", {}, ["seat", "accuracy", "points lost", "labels", "worst turns"].map((h) => el("th", { scope: "col" }, h)))),
      el("tbody", {}, r.summaries.map((s) => el("tr", { "data-seat": String(s.seat) },
        el("th", { scope: "row" }, `seat ${s.seat} (${s.bot})`),
        el("td", { class: "accuracy" }, `${Math.round(s.accuracy)}%`),
        el("td", {}, pts(s.total_loss_points)),
        el("td", { class: "labels" }, ["inaccuracy", "mistake", "blunder"].map((k) => count(s.counts[k], k)).join(", ")),
        el("td", {}, s.worst_turns.map((w) => el("button", { type: "button", class: "link", "data-index": String(w.move), onclick: () => select(w.move) },
          `turn ${w.turn + 1} (−${w.loss_points.toFixed(1)})`))))))),
    el("p", { class: "help" }, `Losses are in expected final points: what the best continuation of the turn can still reach ` +
      `after a move, as the search rates it. Labels: ${Object.entries(r.thresholds).map(([k, v]) => `${k} from ${v}`).join(", ")} points. ` +
      `Accuracy: the mean over a seat's decisions of 100·exp(−points lost / ${r.accuracy_points}).`));
  drawGraph(r);
  const list = $("#review-list");
  list.replaceChildren(...r.decisions.filter((d) => d.label).map((d) => el("li", { class: `review-${d.label}` },
    el("button", { type: "button", "data-index": String(d.index) },
      `move ${d.index + 1} · seat ${d.seat} · ${d.label}: played ${moveText(d.played, d.played_official)}, ` +
      `better ${moveText(d.best, d.best_official)}: −${d.loss_points.toFixed(1)} points (win chance ${pct(d.played_win)} → ${pct(d.best_win)})`))));
  for (const b of list.querySelectorAll("button")) b.addEventListener("click", () => select(Number(b.dataset.index)));
  if (!list.children.length) list.append(el("li", {}, "no labelled move: nobody lost a clear chance"));
  const seats = r.summaries.filter((s) => s.counts.mistake + s.counts.blunder > 0);
  $("#review-learn-seat").replaceChildren(...seats.map((s) => el("option", { value: String(s.seat) },
    `seat ${s.seat} (${s.bot}): ${s.counts.mistake + s.counts.blunder} ${s.counts.mistake + s.counts.blunder === 1 ? "mistake or blunder" : "mistakes or blunders"}`)));
  $("#review-learn-controls").hidden = !seats.length || !(r.learn || []).length;
}

function svg(tag, attrs, text) {
  const e = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
  if (text !== undefined) e.textContent = text;
  return e;
}

function drawGraph(r) {
  const n = Math.max(1, st.replay.n_moves);
  const x = (i) => PAD + ((W - 2 * PAD) * (i + 1)) / n;
  const y = (w) => H - PAD + (-(H - 2 * PAD) * w);
  const g = svg("svg", { id: "review-graph", viewBox: `0 0 ${W} ${H}`, role: "img",
    "aria-label": "each seat's win chance at its decisions over the game; marks at labelled moves" });
  g.append(svg("line", { x1: PAD, y1: y(1 / r.players), x2: W - PAD, y2: y(1 / r.players), class: "fair" }));
  g.append(svg("text", { x: 2, y: y(1) + 4, class: "axis" }, "100%"), svg("text", { x: 2, y: y(0) + 4, class: "axis" }, "0%"));
  r.seats.forEach((seat) => {
    const mine = r.decisions.filter((d) => d.seat === seat);
    if (!mine.length) return;
    g.append(svg("polyline", { points: mine.map((d) => `${x(d.index)},${y(d.best_win)}`).join(" "),
      class: "seat-line", stroke: COLORS[seat % COLORS.length] }));
    g.append(svg("text", { x: x(mine[mine.length - 1].index) - 30, y: y(mine[mine.length - 1].best_win) - 4,
      fill: COLORS[seat % COLORS.length], class: "axis" }, `seat ${seat}`));
    for (const d of mine.filter((d) => d.label)) {
      const m = svg("circle", { cx: x(d.index), cy: y(d.best_win), r: { inaccuracy: 3, mistake: 4.5, blunder: 6 }[d.label],
        class: `mark review-${d.label}`, fill: COLORS[seat % COLORS.length], "data-index": d.index });   // the list is the keyboard's way
      m.append(svg("title", {}, `move ${d.index + 1}, seat ${seat}: ${d.label}`));
      m.addEventListener("click", () => select(d.index));
      g.append(m);
    }
  });
  $("#review-graph-box").replaceChildren(g, lostGraph(r, x));
}

// The expected points each seat's decisions lost so far (the review's unit), under the win chance.
function lostGraph(r, x) {
  const totals = r.seats.map((seat) => r.decisions.filter((d) => d.seat === seat).reduce((a, d) => a + d.loss_points, 0));
  const top = Math.max(1, ...totals);
  const h = 110;
  const y = (v) => h - 18 - ((h - 30) * v) / top;
  const g = svg("svg", { id: "review-lost", viewBox: `0 0 ${W} ${h}`, role: "img",
    "aria-label": "each seat's expected points lost so far over the game" });
  g.append(svg("text", { x: 2, y: y(top) + 4, class: "axis" }, `${top.toFixed(0)} pts`), svg("text", { x: 2, y: y(0) + 4, class: "axis" }, "0"));
  r.seats.forEach((seat) => {
    let total = 0;
    const points = [];
    for (const d of r.decisions.filter((d) => d.seat === seat)) { total += d.loss_points; points.push(`${x(d.index)},${y(total)}`); }
    if (points.length) g.append(svg("polyline", { points: points.join(" "), class: "seat-line", stroke: COLORS[seat % COLORS.length] }));
  });
  return g;
}

// Jump to the position where the decision was made (before its move); the board then marks the better move.
async function select(index) {
  st.selected = st.review.decisions.find((d) => d.index === index) || null;
  for (const b of document.querySelectorAll("#review-list button")) b.classList.toggle("selected", Number(b.dataset.index) === index);
  await st.goTo(index);
  markBetter(index);
}

function markBetter(at) {
  const d = st.selected;
  if (!d || d.index !== at) { $("#review-better").textContent = ""; return; }
  if (st.learn && !st.learn.revealed) { $("#review-better").textContent = ""; return; }   // the answer waits
  $("#review-better").textContent = `Move ${d.index + 1}, seat ${d.seat}: played ${moveText(d.played, d.played_official)} ` +
    `(${d.played_points.toFixed(1)} expected points, win chance ${pct(d.played_win)}); better ${moveText(d.best, d.best_official)} ` +
    `(${d.best_points.toFixed(1)} points, ${pct(d.best_win)}): −${d.loss_points.toFixed(1)} points` + (d.label ? `, ${d.label}.` : ".") + line(d);
  const city = d.best.includes(" ") ? d.best.slice(d.best.indexOf(" ") + 1) : null;
  const g = city && document.querySelector(`#board g.city[data-city="${CSS.escape(city)}"]`);
  if (g && !g.querySelector(".review-better-ring")) g.append(svg("circle", { r: 31, class: "review-better-ring" }));
}

// ---- Learn from your mistakes: a seat's mistakes and blunders one by one; the position first, the player's
// try, then the answer (the best move, its line, what the move played lost).

function startLearning(seat) {
  const r = st.review;
  const items = (r.learn || []).filter((l) => l.seat === seat);
  if (!items.length) return;
  st.learn = { seat, items, k: 0, revealed: false };
  $("#review-learn").hidden = false;
  $("#review-list").hidden = true;
  if ($("#replay-viewer")) $("#replay-viewer").value = String(seat);      // the seat's own view: no peeking
  showMistake(0);
}

function stopLearning() {
  st.learn = null;
  $("#review-learn").hidden = true;
  $("#review-list").hidden = false;
}

async function showMistake(k) {
  const L = st.learn;
  if (!L) return;
  if (k >= L.items.length) {
    $("#review-learn-title").textContent = "Done";
    $("#review-learn-ask").textContent = `That was every mistake of seat ${L.seat}.`;
    $("#review-learn-choices").replaceChildren();
    $("#review-learn-verdict").textContent = "";
    $("#review-learn-reveal").hidden = $("#review-learn-next").hidden = true;
    return;
  }
  L.k = k;
  L.revealed = false;
  const item = L.items[k];
  const d = st.review.decisions.find((x) => x.index === item.index);
  st.selected = d;
  // The question first, then the position: the panel never shows the last mistake's title (or none) while the
  // replay fetches the new position.
  $("#review-better").textContent = "";
  $("#review-learn-title").textContent = `Mistake ${k + 1} of ${L.items.length}: move ${d.index + 1} (turn ${d.turn + 1}, ${d.phase})`;
  $("#review-learn-ask").textContent = `Seat ${d.seat} played ${moveText(d.played, d.played_official)} here, a ${d.label}. Find a better move.`;
  $("#review-learn-verdict").textContent = "";
  $("#review-learn-reveal").hidden = false;
  $("#review-learn-next").hidden = true;
  $("#review-learn-choices").replaceChildren(...item.choices.map((c) =>
    el("button", { type: "button", class: "learn-choice", "data-move": c.move, onclick: () => tryMove(d, c.move) },
      c.move + (c.official ? ` [${OFFICIAL[c.official] || c.official}]` : ""))));
  await st.goTo(d.index);                // markBetter keeps the answer hidden until it is revealed
}

function tryMove(d, move) {
  const L = st.learn;
  if (!L || L.revealed) return;
  const tried = document.querySelector(`#review-learn-choices button[data-move="${CSS.escape(move)}"]`);
  if (tried) tried.classList.add("tried");
  if (move === d.played) {
    $("#review-learn-verdict").textContent = `“${move}” is the move played: it lost ${pts(d.loss_points)}. Try another.`;
  } else if (d.good_moves.includes(move)) {
    $("#review-learn-verdict").textContent = move === d.best ? `✓ Found it: “${move}” is the search's best move.`
      : `✓ Good: the search rates “${move}” about as well as its best, “${d.best}”.`;
    reveal();
  } else {
    $("#review-learn-verdict").textContent = `“${move}” is not among the moves the search rates best here. Try again, or show the answer.`;
  }
}

function reveal() {
  const L = st.learn;
  if (!L) return;
  L.revealed = true;
  $("#review-learn-reveal").hidden = true;
  $("#review-learn-next").hidden = false;
  for (const b of document.querySelectorAll("#review-learn-choices button")) {
    b.disabled = true;
    b.classList.toggle("answer", st.selected.good_moves.includes(b.dataset.move));
  }
  markBetter(st.selected.index);
  $("#review-learn-next").focus();
}

// "Review this game" in the Replay view: the server reviews the replay's record in the background
// (POST /api/replays/{id}/review, polled at /api/reviews/{id}); the page draws every seat's win chance over
// the game under the board, lists the labelled moves, jumps to each and marks the better move on the board.
// It hears of the replay through two events replay.js sends: "replay:opened" (the record's summary) and
// "replay:shown" (the move number shown, after the board is drawn); app.js hands it goTo.
import { $, api, sleep } from "./common.js";
import { el } from "./board.js";

const SVG = "http://www.w3.org/2000/svg";
const COLORS = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd"];
const POLL_MS = 500;
const W = 640, H = 170, PAD = 28;

const st = { replay: null, job: null, review: null, selected: null, goTo: null, ticket: 0 };

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
    el("p", { id: "review-summary", class: "help" }),
    el("div", { id: "review-graph-box" }),
    el("p", { id: "review-better", role: "status" }),
    el("ul", { id: "review-list" }));
  $("#legend").after(panel);
  $("#review-button").addEventListener("click", startReview);
  $("#review-cancel").addEventListener("click", cancelReview);
  document.addEventListener("replay:opened", (ev) => reset(ev.detail));
  document.addEventListener("replay:shown", (ev) => markBetter(ev.detail.at));
}

function reset(summary) {
  st.replay = summary;
  st.job = st.review = st.selected = null;
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

function showReview() {
  const r = st.review;
  $("#review-panel").hidden = false;
  $("#review-summary").textContent = r.summaries.map((s) =>
    `seat ${s.seat} (${s.bot}): mean loss ${(100 * s.mean_loss_win).toFixed(1)} points of win chance, ` +
    `${s.counts.inaccuracy} inaccuracies, ${s.counts.mistake} mistakes, ${s.counts.blunder} blunders`).join(" · ") +
    ` · ${r.budget} iterations a search; ${r.uncertainty}`;
  drawGraph(r);
  const list = $("#review-list");
  list.replaceChildren(...r.decisions.filter((d) => d.label).map((d) => el("li", { class: `review-${d.label}` },
    el("button", { type: "button", "data-index": String(d.index) },
      `move ${d.index + 1} · seat ${d.seat} · ${d.label}: played “${d.played}” (${pct(d.played_win)}), ` +
      `better “${d.best}” (${pct(d.best_win)}): −${Math.round(100 * d.loss_win)}`))));
  for (const b of list.querySelectorAll("button")) b.addEventListener("click", () => select(Number(b.dataset.index)));
  if (!list.children.length) list.append(el("li", {}, "no labelled move: nobody lost a clear chance"));
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
  $("#review-graph-box").replaceChildren(g);
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
  $("#review-better").textContent = `Move ${d.index + 1}, seat ${d.seat}: played “${d.played}” ` +
    `(win chance ${pct(d.played_win)}, ${d.played_points.toFixed(1)} points); better “${d.best}” ` +
    `(${pct(d.best_win)}, ${d.best_points.toFixed(1)} points) — ${d.label}.`;
  const city = d.best.includes(" ") ? d.best.slice(d.best.indexOf(" ") + 1) : null;
  const g = city && document.querySelector(`#board g.city[data-city="${CSS.escape(city)}"]`);
  if (g && !g.querySelector(".review-better-ring")) g.append(svg("circle", { r: 31, class: "review-better-ring" }));
}

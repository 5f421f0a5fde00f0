// The hint panel: starts a search on the server, polls its progress, shows the ranked options and marks
// the recommended turn on the board. The search runs in the server's background; the page stays usable.
import { $, api, ApiError } from "./common.js";
import { el, officialLabel } from "./board.js";

const state = {
  target: null,      // () => {url, body, key} for the position shown, or {error: "why not"}
  shown: null,       // {key, result}: the hint of the position with that key
  running: null,     // key of the position being searched
  onChange: () => {},
};

export function initHint(defaultSeconds) {
  $("#hint-budget").value = defaultSeconds;
  $("#hint-unit").addEventListener("change", () => {
    $("#hint-budget").value = $("#hint-unit").value === "seconds" ? defaultSeconds : 1000;
  });
  $("#hint-button").addEventListener("click", () => runHint("moves"));
  $("#hint-official-button").addEventListener("click", () => runHint("which_official"));
}

// target: a function giving what to search; onChange: called when a hint appears or goes (redraw).
export function useHint(target, onChange) {
  state.target = target;
  state.onChange = onChange || (() => {});
  refreshHint();
}

// The hint shown now: {result, done} with `done` the steps of its recommended turn already played (the
// position moved on by exactly those moves), or null. A hint stays while its turn is followed.
function current() {
  const t = state.target ? state.target() : null;
  if (!t || t.error || !state.shown) return null;
  const r = state.shown.result;
  if (state.shown.key === t.key) return { result: r, done: 0 };
  const played = t.since ? t.since(state.shown.key) : null;
  const moves = r.recommended_turn.moves;
  if (!played || !played.length || played.length >= moves.length || played.some((m, i) => m !== moves[i])) return null;
  return { result: r, done: played.length };
}

// The hint for the position with this key, or null (one followed since: see current()).
export function hintFor(key) {
  const c = current();
  return c ? c.result : null;
}

// {city: [step, ...]} for the board: the cities of the recommended turn's steps still to play, numbered in
// the turn's order (1 = the first step, also once it is played).
export function hintSteps(key) {
  const c = current();
  if (!c) return null;
  const steps = {};
  c.result.recommended_turn.cities.forEach((city, i) => { if (city && i >= c.done) (steps[city] = steps[city] || []).push(i + 1); });
  return steps;
}

// {move: [step, ...]}: the moves of the recommended turn still to play, numbered in the turn's order.
export function hintStepsByMove(key) {
  const c = current();
  const steps = {};
  if (c) c.result.recommended_turn.moves.forEach((m, i) => { if (i >= c.done) (steps[m] = steps[m] || []).push(i + 1); });
  return steps;
}

// The recommended turn in one line (the steps played ticked), for beside the moves: the hint's own panel
// may be below the fold. Null when no hint is shown.
export function hintLine() {
  const c = current();
  if (!c) return null;
  const turn = c.result.recommended_turn;
  return "Hint: " + turn.moves.map((m, i) => (i < c.done ? `✓ ${stepText(turn, i)}` : `★${i + 1} ${stepText(turn, i)}`)).join(" · ") + `; then ${turn.then}.`;
}

function budget() {
  const unit = $("#hint-unit").value;
  const v = Number($("#hint-budget").value);
  if (!Number.isFinite(v) || v <= 0) throw new ApiError(`the search budget must be a number above 0, not "${$("#hint-budget").value}"`);
  return unit === "seconds" ? { seconds: v } : { iterations: Math.round(v) };
}

const BUTTONS = ["#hint-button", "#hint-official-button"];

// question: "moves" (rank the next decision's moves) or "which_official" (rate each choice of official for
// the turn); the server answers both with the same kind of job.
async function runHint(question) {
  $("#hint-error").textContent = "";
  $("#hint-note").textContent = "";
  const t = state.target ? state.target() : { error: "nothing to search" };
  if (t.error) { $("#hint-error").textContent = t.error; return; }
  if (question === "which_official" && t.noOfficial) { $("#hint-error").textContent = t.noOfficial; return; }
  let job;
  try {
    job = await api("POST", t.url, { ...t.body, ...budget(), question });
  } catch (e) {
    $("#hint-error").textContent = e.message;
    return;
  }
  state.running = t.key;
  BUTTONS.forEach((b) => { $(b).disabled = true; });
  $("#hint-running").hidden = false;
  try {
    for (;;) {
      showProgress(job);
      if (job.status !== "running") break;
      await new Promise((r) => setTimeout(r, 200));
      job = await api("GET", `/api/hints/${job.id}`);
    }
    if (job.status === "error") {
      $("#hint-error").textContent = job.error;
    } else {
      state.shown = { key: t.key, result: job.result };
      // the position moved on while the search ran: say so rather than drop the answer silently
      const now = state.target ? state.target() : null;
      if (!now || (now.key !== t.key && !current())) {
        $("#hint-note").textContent = `The hint finished after the position changed: it was for ${t.what || "an earlier position"}. Ask again for this one.`;
      }
    }
  } catch (e) {
    $("#hint-error").textContent = e.message;
  } finally {
    state.running = null;
    BUTTONS.forEach((b) => { $(b).disabled = false; });
    $("#hint-running").hidden = true;
    refreshHint();
    state.onChange();
  }
}

function showProgress(job) {
  const bar = $("#hint-progress");
  if (job.progress === null || job.progress === undefined) bar.removeAttribute("value");   // indeterminate
  else bar.value = job.progress;
  $("#hint-elapsed").textContent = `searching… ${job.elapsed.toFixed(1)} s` +
    (job.seconds ? ` of ${job.seconds} s` : ` (${job.iterations} iterations)`);
}

const pct = (x) => (Number.isFinite(x) ? `${(100 * x).toFixed(0)}%` : "–");     // null: a value never reached

// A rough 95 % margin of a win chance measured over `n` of the search's games (±, in percentage points).
const margin = (p, n) => (Number.isFinite(p) && n > 0 ? 196 * Math.sqrt(Math.max(p * (1 - p), 0.25 / n) / n) : null);

// A move the search looked at too little for its win chance to mean much: under 2 % of its visits, or a
// margin wider than ±25 points. Its row goes after the others and says so instead of a ± ("37% ±67").
const BARELY = { share: 0.02, margin: 25 };
const barely = (o) => !(o.share >= BARELY.share) || !(margin(o.win_prob, o.visits) <= BARELY.margin);

// The ± shown: at least 1 (a margin under half a point printed "±0", as if the chance were exact).
const marginText = (m) => ` ±${Math.max(1, Math.round(m))}`;

// Show the hint of the position now shown, or of the turn being followed (nothing for another position).
export function refreshHint() {
  const c = current();
  const r = c ? c.result : null;
  const table = $("#hint-options");
  const body = table.querySelector("tbody");
  body.replaceChildren();
  table.hidden = !r || r.question === "which_official";
  $("#hint-choices").hidden = !r || r.question !== "which_official";
  $("#hint-choices tbody").replaceChildren();
  $("#hint-turn").textContent = "";
  $("#hint-official-button").title = (state.target && state.target() && state.target().noOfficial) ||
    "Rate each choice for this turn -- no official, or one still possible -- each searched for the whole turn and re-rated by an independent search. The budget is shared by all the searches (two a choice).";
  if (!r) return;
  if (r.question === "which_official") { showChoices(r, c.done); return; }
  const searched = r.options[0];              // the search's choice: the move it examined most
  $("#hint-caption").textContent = (c.done ? `Options at the start of the hint (before step 1) for seat ${r.player}` : `Options for seat ${r.player}`) +
    ", by win chance; ± is the noise of a search this short";
  $("#hint-caption").title = `the search: ${r.bot}, ${r.iterations} visits at the root`;
  $("#hint-options").title = `the search: ${r.bot}, ${r.iterations} visits at the root`;
  // the search's choice (★) first, then by win chance; rows barely searched last
  const ranked = r.options.slice(0, 12).map((o, i) => ({ o, i, barely: barely(o) }))
    .sort((a, b) => Number(b.o === searched) - Number(a.o === searched) || Number(a.barely) - Number(b.barely) ||
      (Number.isFinite(b.o.win_prob) ? b.o.win_prob : -1) - (Number.isFinite(a.o.win_prob) ? a.o.win_prob : -1) || a.i - b.i);
  const top = ranked[0].o;
  const mTop = margin(top.win_prob, top.visits);
  ranked.forEach(({ o, barely: few }, i) => {
    const m = margin(o.win_prob, o.visits);
    const close = i > 0 && !few && m !== null && mTop !== null && 100 * (top.win_prob - o.win_prob) < Math.max(m, mTop);
    body.append(el("tr", { class: `${o === searched ? "best" : ""} ${few ? "barely" : ""}`.trim() || null, "data-move": o.move },
      el("td", {}, String(i + 1)),
      el("td", {}, o.move + (o.official ? ` [${officialLabel(o.official)}]` : "") + (o === searched ? " ★" : "")),
      el("td", {}, pct(o.win_prob) + (few ? " (barely searched)" : m !== null ? marginText(m) : "") + (close ? " ≈" : "")),
      el("td", {}, o.mean_score.toFixed(1)), el("td", {}, pct(o.share))));
  });
  const turn = r.recommended_turn;
  const better = ranked.find((x) => !x.barely && x.o !== searched && x.o.win_prob > searched.win_prob);
  const notes = [`★ in the table: the search's choice, the move it examined most; it comes first` +
    (better ? ` (${better.o.move} has a higher win chance in fewer of the search's games).` : ".")];
  if (ranked.length > 1 && mTop !== null) notes.push("Rows marked ≈ are within the noise of the first: the search cannot tell them apart; differences of 1–3 points in the expected score are noise too.");
  if (ranked.some((x) => x.barely)) notes.push("Rows marked “barely searched” had too few of the search's games to rank: they come last.");
  $("#hint-turn").replaceChildren(el("strong", {}, c.done ? "The rest of the recommended turn (★ on the board and the moves):" : "Recommended turn, in order (★1, ★2, … on the board and the moves):"),
    stepsList(turn, c.done),
    el("p", {}, `Then ${turn.then}.`),
    el("p", { class: "chance-line" }, `${r.win_chance_line}; expected final score ${r.best.mean_score.toFixed(1)} points.`),
    howSure(r, `${r.bot}, ${r.iterations} visits at the root`, notes));
}

// "how sure is this?": what lies behind the one-line win chance (r.win_chance.details, from
// thurn_ai/play/win_chance.py: whom it assumes, how well it held, what ± is), the search, the table's marks.
function howSure(r, search, notes = []) {
  const details = (r.win_chance && r.win_chance.details) || [];
  return el("details", { class: "how-sure" }, el("summary", {}, "how sure is this?"),
    el("ul", {}, [...details, `The search: ${search}.`, ...notes].map((t) => el("li", {}, t))));
}

// A turn's i-th move with its official; the turn as one line; the turn as numbered steps (the steps
// already played struck out).
const stepText = (turn, i) => turn.moves[i] + (turn.officials[i] && !turn.moves[i].startsWith(turn.officials[i]) ? ` [${officialLabel(turn.officials[i])}]` : "");
const turnText = (turn) => turn.moves.map((_, i) => stepText(turn, i)).join(", ");
const stepsList = (turn, done = 0) => el("ol", { class: "hint-steps" }, turn.moves.map((m, i) =>
  el("li", { "data-move": m, class: i < done ? "done" : i === done && done ? "next" : null }, (i < done ? "✓ " : "") + stepText(turn, i))));

// The answer to "which official this turn": one row a choice, best first. The turn of the choice picked
// (the best one until another is clicked) is listed under the table and numbered on the board.
function showChoices(r, done = 0) {
  const each = r.each_search.seconds ? `${r.each_search.seconds.toFixed(2)} s` : `${r.each_search.iterations} iterations`;
  const label = (c) => (c.option === "none" ? "no official" : officialLabel(c.option));
  const picked = r.choices.find((c) => c.option === r.picked) || r.choices[0];
  $("#hint-choices-caption").textContent = `Which official this turn, for seat ${r.player}: best first (click a choice to see its turn)`;
  $("#hint-choices").title = `the search: ${r.bot}, ${each} a search, two searches a choice`;
  r.choices.forEach((c, i) => {
    const pick = el("button", { type: "button", class: "choice-pick", "aria-pressed": String(c === picked),
      onclick: () => { r.picked = c.option; r.recommended_turn = c.recommended_turn; refreshHint(); state.onChange(); } }, label(c));
    const reaches = c.option === "none" || (c.recommended_turn.officials || []).includes(c.option);
    const line = `${turnText(c.recommended_turn)}; then ${c.recommended_turn.then}` +
      (reaches ? "" : ` (this line does not reach the ${label(c)} yet: its use depends on the card drawn)`);
    const cells = c.uses_it
      ? [el("td", {}, pct(c.win_prob)), el("td", {}, Number.isFinite(c.mean_score) ? c.mean_score.toFixed(1) : "–"), el("td", {}, line)]
      : [el("td", {}, "–"), el("td", {}, "–"), el("td", {}, "no line of this turn found uses it")];
    $("#hint-choices tbody").append(el("tr", { class: [i === 0 ? "best" : "", c === picked ? "picked" : ""].join(" ").trim() || null, "data-option": c.option },
      el("td", {}, pick), ...cells));
  });
  $("#hint-turn").replaceChildren(el("strong", {}, `${picked === r.choices[0] ? "The best choice's" : `The ${label(picked)} choice's`} turn` +
    (done ? ": the rest of it (★ on the board and the moves):" : ", in order (★1, ★2, … on the board and the moves):")),
    stepsList(picked.recommended_turn, done),
    el("p", { class: "chance-line" }, `${r.win_chance_line}. Each official is compared with no official this turn, both played as well as the search can.`),
    howSure(r, `${r.bot}, ${each} a search, two searches a choice`,
      ["Win chances a few points apart are within the noise of searches this short: a longer search separates them."]));
}

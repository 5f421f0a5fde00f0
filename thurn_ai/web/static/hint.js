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

// The hint for the position with this key, or null.
export function hintFor(key) {
  return state.shown && state.shown.key === key ? state.shown.result : null;
}

// {city: [step, ...]} for the board: the cities of the recommended turn, numbered in order.
export function hintSteps(key) {
  const r = hintFor(key);
  if (!r) return null;
  const steps = {};
  r.recommended_turn.cities.forEach((c, i) => { if (c) (steps[c] = steps[c] || []).push(i + 1); });
  return steps;
}

// {move: [step, ...]}: the moves of the recommended turn numbered in the turn's order (1 = first).
export function hintStepsByMove(key) {
  const r = hintFor(key);
  const steps = {};
  if (r) r.recommended_turn.moves.forEach((m, i) => (steps[m] = steps[m] || []).push(i + 1));
  return steps;
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
      if (!now || now.key !== t.key) {
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

// Show the hint of the position now shown (or nothing, if it is another position's).
export function refreshHint() {
  const t = state.target ? state.target() : null;
  const key = t && !t.error ? t.key : null;
  const r = key ? hintFor(key) : null;
  const table = $("#hint-options");
  const body = table.querySelector("tbody");
  body.replaceChildren();
  table.hidden = !r || r.question === "which_official";
  $("#hint-choices").hidden = !r || r.question !== "which_official";
  $("#hint-choices tbody").replaceChildren();
  $("#hint-turn").textContent = "";
  if (!r) return;
  if (r.question === "which_official") { showChoices(r); return; }
  $("#hint-caption").textContent = `Options for seat ${r.player}, best first`;
  $("#hint-caption").title = `the search: ${r.bot}, ${r.iterations} visits at the root`;
  $("#hint-options").title = `the search: ${r.bot}, ${r.iterations} visits at the root`;
  r.options.slice(0, 12).forEach((o, i) => {
    body.append(el("tr", { class: i === 0 ? "best" : "", "data-move": o.move },
      el("td", {}, String(i + 1)),
      el("td", {}, o.move + (o.official ? ` [${officialLabel(o.official)}]` : "")),
      el("td", {}, pct(o.share)), el("td", {}, pct(o.win_prob)), el("td", {}, o.mean_score.toFixed(1))));
  });
  const turn = r.recommended_turn;
  $("#hint-turn").replaceChildren(el("strong", {}, "Recommended turn, in order (★1, ★2, … on the board and the moves):"), stepsList(turn),
    `then ${turn.then}. ` + (r.win_prob_calibrated
      ? `Win chance ${pct(r.best.win_prob)} (a probability calibrated on held-out games)`
      : `Win ${pct(r.best.win_prob)} in the search's evaluation units (not a probability)`) +
    `, expected final score ${r.best.mean_score.toFixed(1)} points.`);
}

// A turn's i-th move with its official; the turn as one line; the turn as numbered steps.
const stepText = (turn, i) => turn.moves[i] + (turn.officials[i] ? ` [${officialLabel(turn.officials[i])}]` : "");
const turnText = (turn) => turn.moves.map((_, i) => stepText(turn, i)).join(", ");
const stepsList = (turn) => el("ol", { class: "hint-steps" }, turn.moves.map((m, i) => el("li", { "data-move": m }, stepText(turn, i))));

// The answer to "which official this turn": one row a choice, best first. The turn of the choice picked
// (the best one until another is clicked) is listed under the table and numbered on the board.
function showChoices(r) {
  const each = r.each_search.seconds ? `${r.each_search.seconds.toFixed(2)} s` : `${r.each_search.iterations} iterations`;
  const label = (c) => (c.option === "none" ? "no official" : officialLabel(c.option));
  const picked = r.choices.find((c) => c.option === r.picked) || r.choices[0];
  $("#hint-choices-caption").textContent = `Which official this turn, for seat ${r.player}: best first (click a choice to see its turn)`;
  $("#hint-choices").title = `the search: ${r.bot}, ${each} a search, two searches a choice`;
  r.choices.forEach((c, i) => {
    const pick = el("button", { type: "button", class: "choice-pick", "aria-pressed": String(c === picked),
      onclick: () => { r.picked = c.option; r.recommended_turn = c.recommended_turn; refreshHint(); state.onChange(); } }, label(c));
    const cells = c.uses_it
      ? [el("td", {}, pct(c.win_prob)), el("td", {}, Number.isFinite(c.mean_score) ? c.mean_score.toFixed(1) : "–"), el("td", {}, `${turnText(c.recommended_turn)}; then ${c.recommended_turn.then}`)]
      : [el("td", {}, "–"), el("td", {}, "–"), el("td", {}, "no line of this turn found uses it")];
    $("#hint-choices tbody").append(el("tr", { class: [i === 0 ? "best" : "", c === picked ? "picked" : ""].join(" ").trim() || null, "data-option": c.option },
      el("td", {}, pick), ...cells));
  });
  const units = r.win_prob_calibrated
    ? "Win chance: a probability calibrated on held-out games."
    : "Win chance in the search's evaluation units, not a probability.";
  $("#hint-turn").replaceChildren(el("strong", {}, `${picked === r.choices[0] ? "The best choice's" : `The ${label(picked)} choice's`} turn, in order (★1, ★2, … on the board and the moves):`),
    stepsList(picked.recommended_turn),
    `${units} Each official is compared with no official this turn, both played as well as the search can.`);
}

// The Replay view: open a game record, step and scrub through it, ask for a hint at any move.
import { $, api, clearError, drawPosition, geometry, movedCity, nav, setStatus, sleep, turnText, moveText } from "./common.js";
import { cardEl, cardList, el } from "./board.js";
import { hintSteps, refreshHint, useHint } from "./hint.js";

let replay = null;     // the server's summary of the record
let view = null;       // the position after `at` moves
let at = 0;
let geo = null;
let playing = false;
let loading = 0;       // the latest request (answers to older requests are dropped)
let want = 0;          // the position asked for last: keys and buttons step from it, not from the one shown,
                       // so that quick presses each count while an answer is on its way
let fileText = null;    // the text of the file chosen (the name is shown only while the text is the file's)
const shownHooks = [];  // called after each position is drawn (a panel beside the replay: see onReplayShown)

export function initReplay() {
  $("#replay-form").addEventListener("submit", (ev) => { ev.preventDefault(); openFromForm(); });
  $("#replay-file").addEventListener("change", async () => {
    const f = $("#replay-file").files[0];
    fileText = f ? await f.text() : null;
    if (f) $("#replay-text").value = fileText;
  });
  $("#replay-first").addEventListener("click", () => goTo(0));
  $("#replay-prev").addEventListener("click", () => goTo(want - 1));
  $("#replay-next").addEventListener("click", () => goTo(want + 1));
  $("#replay-last").addEventListener("click", () => goTo(replay ? replay.n_moves : 0));
  $("#replay-slider").addEventListener("input", () => goTo(Number($("#replay-slider").value)));
  $("#replay-viewer").addEventListener("change", () => goTo(want));
  $("#replay-play").addEventListener("click", () => togglePlay());
  $("#replay-next-close").addEventListener("click", () => goTo(closeAfter(want)));
  $("#replay-prev-close").addEventListener("click", () => goTo(closeBefore(want)));
  $("#replay-next-turn").addEventListener("click", () => goTo(turnAfter(want)));
  $("#replay-prev-turn").addEventListener("click", () => goTo(turnBefore(want)));
  document.addEventListener("keydown", (ev) => {
    if (nav.current !== "replay" || !replay || ev.target.closest("input, textarea, select")) return;
    const to = { ArrowRight: want + 1, ArrowLeft: want - 1, Home: 0, End: replay.n_moves,
      "]": closeAfter(want), "[": closeBefore(want), ">": turnAfter(want), "<": turnBefore(want) }[ev.key];
    if (to === undefined) return;
    ev.preventDefault();
    goTo(to);
  });
}

async function openFromForm() {
  const text = $("#replay-text").value;
  const f = $("#replay-file").files[0];
  $("#replay-error").textContent = "";
  if (!text.trim()) { $("#replay-error").textContent = "choose a record file or paste a line of one"; return; }
  const name = f && text === fileText ? f.name : "pasted record";
  await openRecord({ text, game: Number($("#replay-game").value) || 1, name });
}

export async function openRecord(body) {
  clearError();
  try {
    setStatus("reading the record…");
    const summary = await api("POST", "/api/replays", body);
    await showRecord(summary);
  } catch (e) {
    $("#replay-error").textContent = e.message;
  } finally {
    setStatus("");
  }
}

export async function showRecord(summary) {
  replay = summary;
  geo = await geometry(summary.rules.board);
  const viewer = $("#replay-viewer");
  viewer.replaceChildren(el("option", { value: "" }, "everything"));
  summary.bots.forEach((b, s) => viewer.append(el("option", { value: String(s) }, `seat ${s} (${b})`)));
  $("#replay-seat").replaceChildren(...summary.bots.map((b, s) => el("option", { value: String(s) }, `seat ${s} (${b})`)));
  $("#replay-slider").max = String(summary.n_moves);
  $("#replay-info").textContent = `${summary.source}: game ${summary.game} of ${summary.games} · ` +
    `${summary.bots.map((b, s) => `seat ${s} ${b}`).join(", ")} · seed ${summary.seed} · ${summary.n_moves} moves` +
    (summary.scores.length ? ` · final scores ${summary.scores.join(" / ")}` : "");
  $("#replay").hidden = false;
  $("#view-replay").classList.add("open");      // the position first, the form to open another record below
  want = 0;
  document.dispatchEvent(new CustomEvent("replay:opened", { detail: summary }));    // review.js
  await goTo(0);
}

const key = () => (replay ? `${replay.id}@${at}` : null);

// ---------------------------------------------------------------- jumps

// The positions just after each close is complete (its houses placed, its carriage taken), in order.
const closeEnds = () => replay.log.filter((e) => e.close).map((e) => e.i + 1);
// The positions where the chosen seat starts a turn (its first move of that turn is next).
function turnStarts() {
  const seat = Number($("#replay-seat").value);
  return replay.log.filter((e, i) => e.seat === seat && (i === 0 || replay.log[i - 1].seat !== seat || replay.log[i - 1].turn !== e.turn)).map((e) => e.i);
}
const after = (list, k) => { const x = list.find((n) => n > k); return x === undefined ? k : x; };
const before = (list, k) => { const x = list.filter((n) => n < k).pop(); return x === undefined ? k : x; };
const closeAfter = (k) => (replay ? after(closeEnds(), k) : k);
const closeBefore = (k) => (replay ? before(closeEnds(), k) : k);
const turnAfter = (k) => (replay ? after(turnStarts(), k) : k);
const turnBefore = (k) => (replay ? before(turnStarts(), k) : k);

// A panel beside the replay (a game review, say) registers `fn({ replay, view, at, goTo })`: called after
// each position is drawn, with the record's summary, the view at move `at`, and goTo to move elsewhere.
export function onReplayShown(fn) {
  shownHooks.push(fn);
}

function hintTarget() {
  if (!replay) return { error: "open a record first" };
  if (view && view.over) return { error: "the game is over at this move: step back to ask for a hint" };
  return { url: `/api/replays/${replay.id}/hint`, body: { at }, key: key(), what: `the position after move ${at}`, since };
}

// The moves of the record since the position with this key (a hint's): its turn stays while they follow it.
function since(k) {
  if (!replay || !k) return null;
  const i = k.lastIndexOf("@");
  const id = k.slice(0, i), n = Number(k.slice(i + 1));
  if (id !== replay.id || !(n <= at)) return null;
  return replay.log.slice(n, at).map((e) => e.move);
}

export async function goTo(k) {
  if (!replay) return;
  k = Math.max(0, Math.min(replay.n_moves, k));
  want = k;
  const ticket = ++loading;
  const v = $("#replay-viewer").value;
  try {
    const got = await api("GET", `/api/replays/${replay.id}/view?at=${k}` + (v === "" ? "" : `&viewer=${v}`));
    if (ticket !== loading) return;
    view = got;
    at = k;
    if (nav.current === "replay") showReplay();
  } catch (e) {
    $("#replay-error").textContent = e.message;
  }
}

export function showReplay() {
  $("#hint-panel").hidden = !replay;
  useHint(hintTarget, () => showReplay());
  if (!replay || !view) {
    $("#board").replaceChildren();
    $("#players").replaceChildren();
    $("#log").replaceChildren();
    $("#tile-stacks").replaceChildren();
    $("#legend").replaceChildren();
    $("#board-title").textContent = "Open a game record to replay it.";
    return;
  }
  const last = at > 0 ? replay.log[at - 1] : null;
  drawPosition(geo, view.position, {
    scores: view.scores, scoreParts: view.score_parts, seatLabels: replay.bots, viewer: view.viewer, log: replay.log, logCurrent: at - 1,
    onLog: (i) => goTo(i + 1), title: `${geo.title} · ${view.summary}`,
    hintSteps: hintSteps(key()), moved: movedCity(last),
  });
  $("#replay-slider").value = String(at);
  $("#replay-pos").textContent = `after move ${at} of ${replay.n_moves}` + (last ? ` (seat ${last.seat}: ${moveText(last)})` : " (the start)") +
    ` · ${turnText(view, replay.bots)}`;
  $("#replay-next-move").textContent = view.next_move ? `next: seat ${view.next_move.seat} ${moveText(view.next_move)}` : "the record ends here";
  const display = $("#replay-display");
  display.replaceChildren(...view.position.display.map((c) => cardEl(geo, c, { disabled: true })));
  $("#replay-deck-info").textContent = `deck ${view.position.deck_size} · discard pile ${cardList(view.position.discard).length}`;
  refreshHint();
  document.dispatchEvent(new CustomEvent("replay:shown", { detail: { at } }));     // review.js
  for (const fn of shownHooks) fn({ replay, view, at, goTo });
}

async function togglePlay() {
  if (playing) { playing = false; return; }
  playing = true;
  $("#replay-play").textContent = "⏸ pause";
  try {
    while (playing && replay && at < replay.n_moves) {
      await goTo(want + 1);
      await sleep(400);
    }
  } finally {
    playing = false;
    $("#replay-play").textContent = "▶ play";
  }
}

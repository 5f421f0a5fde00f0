// The Play view: choose seats and bots, start or resume a game, send the person's moves, let the bots move.
// The parts: play_state.js (the state), play_view.js (drawing), play_moves.js (what a move means),
// play_picks.js (houses and discards as a set), play_chooser.js (the menu that asks), play_end.js (the end).
import { $, api, clearError, geometry, movedCity, nav, setStatus, showError, sleep, moveText } from "./common.js";
import { el } from "./board.js";
import { hooks, st } from "./play_state.js";
import { firstMove, initChooser, refocus } from "./play_chooser.js";
import { showPlay } from "./play_view.js";
import { displayRects, showBotMove } from "./play_motion.js";
import { initTurnSignal, signalTurn } from "./turn_signal.js";

export { showPlay };

// the setup tab's loader, handed in by app.js (play.js and setup.js use each other; neither imports the other)
let editPosition = null;

export function initPlay(startup, { loadIntoSetup }) {
  editPosition = loadIntoSetup;
  hooks.redraw = showPlay;
  hooks.play = play;
  hooks.playSet = playSet;
  const seats = $("#play-seats");
  const defaults = ["human", "mcts", "heuristic", "heuristic"];
  const list = el("datalist", { id: "bot-specs" });
  // the server's bots (its registry, with the --bot-module ones), then two budgets of the default search
  for (const s of [...startup.bots, "mcts(iterations=300)", "mcts(iterations=3000)"]) {
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
  $("#play-board").addEventListener("change", () => { if (!st.game) showPlay(); });
  build();
  $("#new-game-form").addEventListener("submit", (ev) => { ev.preventDefault(); newGame(); });
  $("#step-bot").addEventListener("click", () => stepOnce());
  $("#bot-speed").addEventListener("change", () => { if (st.game && nav.current === "play") showPlay(); advance(); });
  $("#to-setup").addEventListener("click", () => toSetup());
  $("#undo").addEventListener("click", () => undo());
  initChooser();
  initTurnSignal();
}

// ---------------------------------------------------------------- the game in the address

// The game's id in the address (?game=...): a reload, a bookmark or a second tab opens the same game.
export function gameInAddress() {
  return new URLSearchParams(location.search).get("game");
}

function putGameInAddress(id) {
  const url = new URL(location.href);
  if (url.searchParams.get("game") === id) return;
  url.searchParams.set("game", id);
  history.replaceState(null, "", url);
}

export async function resumeGame(id) {
  try {
    const view = await api("GET", `/api/games/${encodeURIComponent(id)}`);
    $("#new-game-box").open = false;
    await setGame(view);
    advance();
    return true;
  } catch (e) {
    const url = new URL(location.href);
    url.searchParams.delete("game");
    history.replaceState(null, "", url);
    showError(`cannot resume the game in the address: ${e.message}`);
    return false;
  }
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
    st.moved = null;
    $("#new-game-box").open = false;     // room for the game; the form opens again with a click
    await setGame(view);
    setStatus("");
    document.activeElement.blur();     // the form's button is folded away: the moves take the keyboard
    advance();
  } catch (e) {
    setStatus("");
    showError(e.message);
  }
}

async function setGame(view) {
  st.game = view;
  st.geo = await geometry(view.board);
  $("#game").hidden = false;
  $("#game-links").hidden = false;
  $("#view-play").classList.add("playing");      // the New game form moves to the end of the column
  putGameInAddress(view.id);
  signalTurn(view);
  if (nav.current === "play") showPlay();
}

// Houses or discards picked by the person: the server plays them in the engine's order.
function playSet(moves) {
  return sendMoves("moves", { moves }, { dataset: {} });
}

function play(move) {
  const focused = document.activeElement && document.activeElement.closest("#view-play, #chooser") ? document.activeElement : null;
  return sendMoves("move", { move }, focused);
}

// Sends the person's move (`path` "move") or set of moves ("moves") and shows the game the server gives
// back; then the focus goes to what stands for `focused` after the redraw (none when null), and the game
// goes on.
async function sendMoves(path, body, focused) {
  if (!st.game || st.busy) return;
  st.busy = true;
  clearError();
  $("#undo-note").textContent = "";
  $("#bot-move").textContent = "";
  try {
    const r = await api("POST", `/api/games/${st.game.id}/${path}`, body);
    st.moved = movedCity(r.moved);
    await setGame(r.view);
  } catch (e) {
    showError(e.message);
  } finally {
    st.busy = false;
  }
  if (focused) refocus(focused);
  advance();
}

async function undo() {
  if (!st.game || st.busy) return;
  st.busy = true;
  clearError();
  try {
    const r = await api("POST", `/api/games/${st.game.id}/undo`, {});
    st.moved = null;
    const undone = r.undone ? st.game.log.slice(r.undone.i).filter((e) => e.seat === r.undone.seat && e.kind !== "done").map(moveText) : [];
    // "Place no house" is a lone "done": it is taken back as "no house"
    if (!undone.length && r.undone && r.undone.kind === "done") undone.push("no house");
    $("#undo-note").textContent = undone.length ? `Taken back: ${undone.join(", ")}.` : "";
    await setGame(r.view);
  } catch (e) {
    showError(e.message);
  } finally {
    st.busy = false;
  }
  if ($("#undo").disabled) refocus({ dataset: {} });
}

async function stepOnce() {
  if (!st.game || st.game.waiting_for !== "bot" || st.busy) return false;
  st.busy = true;
  const seat = st.game.to_move;
  setStatus(`seat ${seat} (${st.game.seats[seat]}) is thinking…`);
  try {
    const r = await api("POST", `/api/games/${st.game.id}/step`);
    st.moved = movedCity(r.moved);
    $("#undo-note").textContent = "";
    const before = displayRects();
    await setGame(r.view);
    if (nav.current === "play") showBotMove(r.moved, before);
    return true;
  } catch (e) {
    showError(e.message);
    return false;
  } finally {
    st.busy = false;
    setStatus("");
  }
}

// How long the bots wait after the person's move ended the turn, while Undo can take it back (a mis-tapped
// card on a phone); End turn lets them move at once.
export const UNDO_GRACE_MS = 2500;
const CARD_PLAYS = new Set(["left", "right", "new", "horse"]);

// Waits while the person's last move can still be taken back before the bots move: until the grace is over,
// End turn is pressed, or the move is undone. Says so in the turn's help.
async function undoGrace() {
  const last = st.game && st.game.log[st.game.log.length - 1];
  // only after a card play that ended the turn by itself (stop, Place houses and Discard end it on purpose)
  if (!last || !(st.game.undo > 0) || !st.game.humans.includes(last.seat) || !CARD_PLAYS.has(last.kind)) return;
  const n = st.game.log.length;
  const end = $("#end-turn");
  end.hidden = false;
  st.grace = `Your turn is over: the bots move in ${(UNDO_GRACE_MS / 1000).toFixed(1)} s. Undo takes your last move back; End turn lets them move now.`;
  $("#game").dataset.grace = "yes";
  if (nav.current === "play") showPlay();      // the turn box and the moves say so, with Undo beside the cards
  const near = $("#grace-end");
  if (near) near.scrollIntoView({ block: "nearest" });       // a phone: in view below the tapped card
  await new Promise((resolve) => {
    const done = () => { clearInterval(poll); clearTimeout(timer); end.removeEventListener("click", done); resolve(); };
    const timer = setTimeout(done, UNDO_GRACE_MS);
    const poll = setInterval(() => { if (!st.game || st.game.log.length !== n || st.game.waiting_for !== "bot") done(); }, 50);
    end.addEventListener("click", done);
  });
  end.hidden = true;
  st.grace = null;
  delete $("#game").dataset.grace;
  if (nav.current === "play" && st.game) showPlay();
}

// The bots move one after another, with a pause between moves so that each can be followed.
async function advance() {
  if (st.stepping) return;
  st.stepping = true;
  try {
    while (st.game && st.game.waiting_for === "bot") {
      const speed = $("#bot-speed").value;
      if (speed === "step") break;
      await undoGrace();
      if (!st.game || st.game.waiting_for !== "bot") break;     // the move was taken back
      if (Number(speed) > 0) await sleep(Number(speed));
      if ($("#bot-speed").value === "step") break;
      if (!(await stepOnce())) break;
    }
  } finally {
    st.stepping = false;
  }
  // the person's turn again: the keyboard's place is the moves (unless they are typing elsewhere)
  if (st.game && st.game.waiting_for === "person" && nav.current === "play" && (!document.activeElement || document.activeElement === document.body)) {
    const first = firstMove();
    if (first) first.focus({ preventScroll: true });
  }
}

async function toSetup() {
  if (!st.game) return;
  try {
    const pos = await api("GET", `/api/games/${st.game.id}/position`);
    nav.switchTab("setup");
    await editPosition(pos);
  } catch (e) {
    showError(e.message);
  }
}

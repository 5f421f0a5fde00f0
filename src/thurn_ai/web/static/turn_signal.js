// The person's turn, signalled: always in the tab's title (a player in another tab sees it), and with a
// short sound and a notification when they opt in (a checkbox beside the bots' speed, kept in this browser).
import { $ } from "./common.js";

const TITLE = "thurn-ai: the board";
const KEEP = "thurn-ai-turn-alert";
let waited = null;      // what the game last waited for: an alert when it turns from the bots to the person

export function initTurnSignal() {
  const box = $("#turn-alert");
  try { box.checked = localStorage.getItem(KEEP) === "yes"; } catch (e) { box.checked = false; }
  box.addEventListener("change", async () => {
    try { localStorage.setItem(KEEP, box.checked ? "yes" : "no"); } catch (e) { /* private windows */ }
    if (box.checked && "Notification" in window && Notification.permission === "default") {
      try { await Notification.requestPermission(); } catch (e) { /* the sound still plays */ }
    }
  });
}

// Called whenever the game is redrawn: the title says whose turn it is; a turn that comes back to the
// person after the bots' moves rings (when opted in).
export function signalTurn(game) {
  const mine = Boolean(game) && !game.over && game.waiting_for === "person" && game.humans.length > 0;
  document.title = !game ? TITLE : game.over ? `Game over · ${TITLE}` :
    mine ? `▶ Your turn · ${TITLE}` : `Seat ${game.to_move} is playing · ${TITLE}`;
  const now = game ? `${game.id}:${game.waiting_for}` : null;
  if (mine && waited === `${game.id}:bot` && $("#turn-alert").checked) alert(game);
  waited = now;
}

function alert(game) {
  document.body.dataset.turnAlerts = String(Number(document.body.dataset.turnAlerts || 0) + 1);   // for tests
  beep();
  if (document.hidden && "Notification" in window && Notification.permission === "granted") {
    try { new Notification("thurn-ai: your turn", { body: `Turn ${game.turn + 1}: it is your move.`, tag: "thurn-ai-turn" }); } catch (e) { /* not allowed here */ }
  }
}

let audio = null;
function beep() {
  try {
    audio = audio || new (window.AudioContext || window.webkitAudioContext)();
    const osc = audio.createOscillator(), gain = audio.createGain();
    osc.frequency.value = 660;
    gain.gain.setValueAtTime(0.12, audio.currentTime);
    gain.gain.exponentialRampToValueAtTime(0.001, audio.currentTime + 0.25);
    osc.connect(gain).connect(audio.destination);
    osc.start();
    osc.stop(audio.currentTime + 0.25);
  } catch (e) { /* no sound here: the title and the notification remain */ }
}

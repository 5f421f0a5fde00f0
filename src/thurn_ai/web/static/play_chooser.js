// The small menu that asks before a click is played: which of several moves, and before a move that
// throws the route away or (from a click on a card or city) spends an official. And where the keyboard
// goes after a redraw.
import { $, moveText, nav } from "./common.js";
import { el } from "./board.js";
import { hooks } from "./play_state.js";
import { destroys, FITS, givesUp, moveLabel, spends } from "./play_moves.js";

let opener = null;      // what opened the move menu (focus returns there)

export function initChooser() {
  document.addEventListener("keydown", (ev) => {
    if (ev.key === "Escape" && !$("#chooser").hidden) { ev.preventDefault(); closeChooser(); }
  });
  document.addEventListener("click", (ev) => {
    if (!$("#chooser").hidden && !ev.target.closest("#chooser") && !ev.target.closest(".clickable") && !ev.target.closest(".card")) closeChooser();
  });
  $("#chooser").addEventListener("keydown", chooserKeys);
}

// Play `moves[0]` at once when that is safe; otherwise the menu asks. Safe moves are listed first, the
// destructive one last.
//
// A click on a card of the hand that fits the route plays it at the end it fits (a new route with it is
// under Moves, marked as destructive): one click, a menu only when it fits both ends.
export function choose(moves, ev, opts = {}) {
  if (opts.card && moves.some((m) => FITS.has(m.kind))) moves = moves.filter((m) => FITS.has(m.kind));
  else if (!opts.fromList && moves.some((m) => FITS.has(m.kind))) moves = moves.filter((m) => m.kind !== "new");   // a city on the map
  const order = [...moves].sort((a, b) => Number(Boolean(destroys(a))) - Number(Boolean(destroys(b))));
  // one warning each (two moves of one card that both spend an official say it once)
  const warn = [...new Set(order.map((m) => destroys(m) || givesUp(m) || (opts.fromList ? null : spends(m))).filter(Boolean))];
  if (order.length === 1 && !warn.length) { closeChooser(); hooks.play(order[0].move); return; }
  const question = order.length === 1 ? `${moveText(order[0])}?` :
    order.every((m) => m.kind === "left" || m.kind === "right") ? `${order[0].city} fits both ends of your route: which end?` : "Which move?";
  openChooser(question, warn, order.map((m) => ({ label: moveLabel(m), move: m.move, destructive: Boolean(destroys(m) || givesUp(m)) })), ev);
}

// The menu: a question, its warnings, one button a choice ({label, move | onclick, destructive}) and
// Cancel, beside what was clicked (for a key press: the element focused).
export function openChooser(question, warnings, choices, ev) {
  const box = $("#chooser");
  opener = (ev && ev.currentTarget instanceof Element) ? ev.currentTarget : document.activeElement;
  box.replaceChildren(el("p", { id: "chooser-title" }, question), ...warnings.map((w) => el("p", { class: "warning" }, w)));
  for (const c of choices) {
    box.append(el("button", { type: "button", class: `move ${c.destructive ? "destructive" : ""} ${c.onclick ? "confirm" : ""}`.replace(/ +/g, " ").trim(), "data-move": c.move || null,
      onclick: () => { closeChooser(false); if (c.onclick) c.onclick(); else hooks.play(c.move); } }, c.label));
  }
  box.append(el("button", { type: "button", class: "cancel", onclick: () => closeChooser() }, "Cancel"));
  const area = $("#board-area").getBoundingClientRect();
  const r = opener && opener.getBoundingClientRect ? opener.getBoundingClientRect() : null;
  const x = ev && ev.clientX ? ev.clientX : r ? r.left : area.left + 40;
  const y = ev && ev.clientY ? ev.clientY : r ? r.bottom : area.top + 40;
  box.hidden = false;
  const w = box.offsetWidth, h = box.offsetHeight;
  box.style.left = `${Math.max(0, Math.min(x + 8, window.innerWidth - w - 8) - area.left)}px`;
  box.style.top = `${Math.max(0, Math.min(y + 8, window.innerHeight - h - 8) - area.top)}px`;
  // the focus on the first safe choice, else on Cancel: Enter never throws anything away by itself
  (box.querySelector("button.move:not(.destructive)") || box.querySelector("button.cancel")).focus({ preventScroll: true });
  if (ev) ev.stopPropagation();
}

function chooserKeys(ev) {
  const buttons = [...$("#chooser").querySelectorAll("button")];
  const i = buttons.indexOf(document.activeElement);
  if (ev.key === "ArrowDown" || ev.key === "ArrowUp") {
    ev.preventDefault();
    buttons[(i + (ev.key === "ArrowDown" ? 1 : buttons.length - 1)) % buttons.length].focus();
  } else if (ev.key === "Tab") {           // keep the focus in the menu while it is open
    ev.preventDefault();
    buttons[(i + (ev.shiftKey ? buttons.length - 1 : 1)) % buttons.length].focus();
  }
}

export function closeChooser(refocus = true) {
  const box = $("#chooser");
  if (box.hidden) return;
  box.hidden = true;
  if (refocus && opener && opener.isConnected) opener.focus({ preventScroll: true });
}

// After a redraw the element focused is gone: focus what stands for it now (the same move, or the first
// legal move) so that keyboard play goes on.
export function refocus(before) {
  if (!before || nav.current !== "play") return;
  const same = before.dataset.move && document.querySelector(`#view-play [data-move="${CSS.escape(before.dataset.move)}"]:not([disabled])`);
  const first = firstMove();
  (same || first || $("#undo")).focus({ preventScroll: true });     // a phone's page must not jump away from the map
}

// The move the keyboard goes to after a redraw: the first that spends no official and throws nothing
// away (Enter on a Postmaster's draw would spend it without the question a click gets).
// Nor a close: after a card is played Enter, Enter must not close the route (`stop` comes first).
export function firstMove() {
  return document.querySelector("#moves button[data-move]:not(.uses-official):not(.destructive):not(.asks):not(.kind-close), #moves button[data-pick]:not([disabled]), #place-discards:not([disabled])") ||
    document.querySelector("#moves button[data-move]:not(.destructive):not(.asks)") || document.querySelector("#moves button[data-move]");
}

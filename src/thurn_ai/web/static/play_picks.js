// Picking the houses of a close, or the cards to discard, as a set in any order; confirmed with a button.
import { plural, points } from "./common.js";
import { canonical, el } from "./board.js";
import { hooks, myHand, picked, st } from "./play_state.js";

export { points };

// A placement's points in words: the houses' own (+1 each: a house placed no longer counts −1) apart
// from the tiles and the carriage they bring ("3 houses, +5 points" read as if the houses alone gave 5).
export function placementPoints(s) {
  const n = s.cities.length, rest = s.points - n;
  return rest ? `${plural(n, "house")} +${n}, tiles and carriage ${rest > 0 ? "+" : "−"}${Math.abs(rest)}: ${points(s.points)} in all` : `${plural(n, "house")}: ${points(s.points)}`;
}

// Whether `city` may be added to the houses picked: some placement the rules allow holds them all.
export function housePickable(city) {
  const hc = st.game.house_choice;
  if (!hc) return false;
  const want = [...picked(), city];
  return hc.sets.some((s) => want.every((c) => s.cities.includes(c)));
}

export function discardCount() {
  return Math.max(0, myHand().length - 3);
}

export function togglePick(city, ev) {
  const list = picked();
  const i = list.indexOf(city);
  if (st.game.phase === "houses") {
    if (i >= 0) list.splice(i, 1);
    else if (housePickable(city)) list.push(city);
    else return;
  } else if (st.game.phase === "discard") {
    const have = myHand().filter((c) => canonical(st.geo, c) === city).length;
    const chosen = list.filter((c) => c === city).length;
    if (ev && ev.currentTarget && ev.currentTarget.getAttribute && ev.currentTarget.getAttribute("aria-pressed") === "true") list.splice(i, 1);
    else if (chosen < have && list.length < discardCount()) list.push(city);
    else return;
  }
  const focused = document.activeElement;
  hooks.redraw();
  refocusPick(focused);
}

function refocusPick(before) {
  if (!before || !before.dataset) return;
  const sel = before.dataset.pick ? `#moves [data-pick="${CSS.escape(before.dataset.pick)}"]` :
    before.closest && before.closest("#board") && before.dataset.city ? `#board .city[data-city="${CSS.escape(before.dataset.city)}"]` :
      before.id ? `#${CSS.escape(before.id)}` : null;
  const again = sel && document.querySelector(sel);
  if (again) again.focus({ preventScroll: true });
}

// The houses picked, in words: which placement they make and what it earns.
export function housesHelp(list) {
  const hc = st.game.house_choice;
  const names = (s) => s.cities.join(", ");
  const kinds = hc.sets.map((s) => (s.kind === "province" ? `every ${s.province} city of the route: ${names(s)}` :
    `one house in each province of the route: ${names(s)}`) + ` (${placementPoints(s)})` + (s.ends_game ? "; your last houses: the game ends" : ""));
  const exact = hc.sets.find((s) => s.cities.length === list.length && list.every((c) => s.cities.includes(c)));
  return el("div", { id: "houses-help", class: "help" },
    el("p", {}, el("strong", {}, "Houses: "), "the rules allow either one house in each province of the route, or a house in every city of one province. Pick them in any order; nothing is placed until you press the button. Here you can place:"),
    el("ul", {}, kinds.map((k) => el("li", {}, k))),
    list.length && !exact ? el("p", {}, `Picked so far: ${list.join(", ")} (more can be added).`) : null);
}

export async function confirmPicks(kind) {
  const list = [...picked()];
  await hooks.playSet(list.map((c) => `${kind} ${c}`));
}

// What a move means for the person: what it throws away or spends, which end of the route it goes to,
// whether a card fits, and what the phase allows, in words.
import { moveText, plural } from "./common.js";
import { st, myRoute } from "./play_state.js";
import { discardCount, points } from "./play_picks.js";

export const HAND_KINDS = new Set(["left", "right", "new", "horse", "discard"]);
export const FITS = new Set(["left", "right", "horse"]);     // a card that goes on the route (or the carriage)

// A warning when a move throws something away, or null: a new route discards the route being built.
export function destroys(m) {
  const route = myRoute();
  if (m.kind === "new" && route.length) {
    return `Start a new route with ${m.city}: this discards your route of ${route.length} card${route.length === 1 ? "" : "s"} (${route.join(" – ")}).`;
  }
  return null;
}

// A note when a click spends an official (a Postmaster's draw from the display, the Postal Carrier's
// second card): the buttons under Moves say so in their text, a click on a card or a city does not.
export function spends(m) {
  return m.official_label ? `This uses your ${m.official_label} (once a turn).` : null;
}

// Which end of the route a card goes to, by the city it joins ("left" and "right" say nothing on a map).
function endText(m) {
  const route = myRoute();
  if (!route.length) return "";
  if (m.kind === "left") return ` (before ${route[0]})`;
  if (m.kind === "right") return ` (after ${route[route.length - 1]})`;
  return "";
}

export function moveLabel(m) {
  const d = destroys(m);
  return moveText(m) + endText(m) + cartwrightText(m) + (d ? ` ✗ discards route of ${myRoute().length}` : "");
}

const carriage = (k) => (k ? `the ${k}-carriage` : "no carriage");

// What a Cartwright move gives, for its label: which carriage, how many points, whether the game ends.
function cartwrightText(m) {
  const c = st.game.cartwright_choice;
  if (!c || (m.kind !== "cartwright" && m.kind !== "no_cartwright")) return "";
  const got = m.kind === "cartwright" ? c.take : c.decline;
  if (m.kind === "no_cartwright") return `: keep ${carriage(got.carriage)}` + (got.points ? ` (${points(got.points)})` : "");
  return `: take ${carriage(got.carriage)} (${points(got.points)})` + (got.ends_game ? "; the game ends" : "");
}

// The Cartwright phase in words: what taking the carriage gives, and whether it ends the game.
function cartwrightHelp() {
  const c = st.game.cartwright_choice;
  if (!c) return "take the next carriage with the Cartwright, or not";
  const end = c.take.ends_game ? "; it is the largest carriage: you take the game-end tile and the game ends after this round" : "";
  return `use the Cartwright to take ${carriage(c.take.carriage)} instead of keeping ${carriage(c.decline.carriage)} (${points(c.take.points - c.decline.points)}${end}), or not`;
}

// A warning when a move gives up points or ends the game (the page asks first), or null.
export function givesUp(m) {
  const c = st.game.cartwright_choice;
  if (!c) return null;
  const lost = c.take.points - c.decline.points;
  if (m.kind === "no_cartwright" && lost > 0) {
    return `Without the Cartwright you keep ${carriage(c.decline.carriage)}: you give up ${carriage(c.take.carriage)} and ${plural(lost, "point")}.`;
  }
  if (m.kind === "cartwright" && c.take.ends_game) {
    return `Taking ${carriage(c.take.carriage)} (${points(c.take.points)}) ends the game: the round is played out, then the game is over. ${standing(c.take.points)}`;
  }
  return null;
}

// Where a move that ends the game leaves the person, from the scores the page shows: "You would have 17;
// seat 2 (heuristic) has 21: you would finish behind, unless the rest of the round changes it."
export function standing(gain) {
  const game = st.game, me = game.viewer;
  if (me === null || me === undefined || !game.scores || game.scores.length < 2) return "";
  const mine = game.scores[me] + gain;
  const others = game.scores.map((v, s) => ({ v, s })).filter((x) => x.s !== me);
  const top = others.reduce((a, b) => (b.v > a.v ? b : a));
  const where = mine < top.v ? "you would finish behind" : mine === top.v ? "you would be level with them" : "you would finish first";
  return `You would have ${mine}; seat ${top.s} (${game.seats[top.s]}) has ${top.v}: ${where}, unless the rest of the round changes it.`;
}

// The question before houses are placed, or null when the placement is the best there is and does not end
// the game: {question, warnings} naming what is given up.
export function housesQuestion(list) {
  const sets = ((st.game.house_choice || {}).sets || []).filter((s) => s.cities.length);
  if (!sets.length) return null;     // no house can be placed: nothing is given up
  const best = sets[0];        // the server lists the placements best first
  const bestText = `${points(best.points)} (${best.cities.join(", ")})`;
  const exact = sets.find((s) => s.cities.length === list.length && list.every((c) => s.cities.includes(c)));
  const warnings = [];
  if (!list.length) warnings.push(`You place no house: you give up up to ${bestText}, and the houses still count −1 each at the end.`);
  else if (!exact) warnings.push(`These ${plural(list.length, "house")} are only part of a placement: the best here is ${bestText}.`);
  else if (exact.points < best.points) warnings.push(`This earns ${points(exact.points)}; the best here is ${bestText}: you give up ${plural(best.points - exact.points, "point")}.`);
  if (exact && exact.ends_game) warnings.push(`These are your last houses: the game ends after this round. ${standing(exact.points)}`);
  if (!warnings.length) return null;
  const question = list.length ? `Place ${plural(list.length, "house")}: ${list.join(", ")}?` : "Place no house?";
  return { question, warnings };
}

// Whether a card of this city could go on the route now (an end of the route is next to it by road).
export function fitsRoute(city) {
  const route = myRoute();
  if (!route.length || route.includes(city)) return false;
  const adj = st.geo.adjacent[city] || new Set();
  return adj.has(route[0]) || adj.has(route[route.length - 1]);
}

// What the player to move may do now, from the moves the rules allow (never an official already spent).
export function phaseHelp() {
  const game = st.game;
  const kinds = {};
  for (const m of game.legal) (kinds[m.kind] = kinds[m.kind] || []).push(m);
  const free = (k) => (kinds[k] || []).some((m) => !m.official);
  const withOff = (k, o) => (kinds[k] || []).some((m) => m.official === o);
  const say = [];
  if (free("draw") || free("deck")) say.push("draw a card from the display or the deck");
  if (withOff("draw", "postmaster") || withOff("deck", "postmaster")) say.push(game.phase === "draw" ? "draw a second card (Postmaster)" : "draw another card first (Postmaster)");
  if (kinds.administrator) say.push("replace the display (Administrator)");
  if (["left", "right", "new", "horse"].some(free)) say.push("play a card from your hand");
  if (["left", "right", "new", "horse"].some((k) => withOff(k, "postal_carrier"))) say.push("play a second card (Postal Carrier)");
  if (kinds.close) say.push("close your route");
  if (kinds.stop) say.push("end your turn");
  if (kinds.house || kinds.done) say.push("pick the houses to place, then press Place houses");
  if (kinds.cartwright) say.push(cartwrightHelp());
  if (kinds.discard) say.push(`pick ${plural(discardCount(), "card")} to discard (you keep 3), then press Discard`);
  if (!say.length) return game.phase_help;
  return say.length === 1 ? say[0] : `${say.slice(0, -1).join(", ")} or ${say[say.length - 1]}`;
}

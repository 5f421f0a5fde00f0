// The Play view's state, shared by its modules (play.js, play_rules.js, play_chooser.js, play_view.js),
// and the hooks by which a lower module asks for a redraw or a move without importing play.js (no loops).
import { cardList } from "./board.js";

export const st = {
  game: null,        // the server's view of the game
  geo: null,         // the board's geometry
  moved: null,       // the city of the last move, marked on the board
  busy: false,       // a request for this game is under way
  stepping: false,   // the bots' loop is running
  // The houses of a close, or the cards to discard, as the person picks them (in any order; the engine
  // takes them in board order once they are confirmed): for the position with this key only.
  picks: { key: null, cities: [] },
  panned: null,      // what the map was last panned for (a phone's zoomed map)
  grace: null,       // while the bots wait for a possible Undo of the person's turn-ending move: what to say
};

// Filled in by play.js: redraw the view, play one move, play a set of moves (houses, discards).
export const hooks = { redraw: () => {}, play: (move) => {}, playSet: (moves) => {} };

// The position's key (a hint's key, the picks' key): the game and how many moves were made.
export const key = () => (st.game ? `${st.game.id}:${st.game.log.length}` : null);

// The seat whose view this is (the person), or the seat to move when nobody plays in person.
export const mySeat = () => st.game.viewer ?? st.game.to_move;

export function myRoute() {
  return (st.game.position.players[mySeat()] || {}).route || [];
}

export function myHand() {
  return cardList(st.game.position.players[mySeat()].hand);
}

// Moves of the person to move, by city (for clicks on the map, the display and the hand).
export function movesByCity() {
  const by = {};
  for (const m of st.game.legal) if (m.city) (by[m.city] = by[m.city] || []).push(m);
  return by;
}

const pickKey = () => `${st.game.id}:${st.game.log.length}:${st.game.phase}`;

// The houses or discards picked so far in this position.
export function picked() {
  if (st.picks.key !== pickKey()) st.picks = { key: pickKey(), cities: [] };
  return st.picks.cities;
}

// The end of a game: the scoring table and what ended the game. One column for all the tiles (each
// tile's points in the cell's tooltip and for screen readers): a column a kind of tile made a table wider
// than its column.
import { $ } from "./common.js";
import { el, isHorses, scoreText, tileLabel } from "./board.js";
import { st } from "./play_state.js";

export function showFinal() {
  const game = st.game, geo = st.geo;
  const box = $("#final");
  box.hidden = !game.over;
  if (!game.over) return;
  const pos = game.position;
  const t = pos.end_triggered_by;
  const why = t === null || t === undefined ? "" : (pos.players[t].houses_left === 0 ? "placed their last house" :
    isHorses(geo, pos) ? "placed their last house" : "took the largest carriage");
  const end = pos.truncated ? "The game was stopped by the turn limit." :
    why ? `Seat ${t} (${game.humans.includes(t) ? "you" : game.seats[t]}) triggered the end (${why}); the round was played out.` : "";
  $("#final-end").textContent = end;
  const parts = game.score_parts;
  const tileIds = geo.tiles.map((x) => x.id);
  const tileSum = (s) => tileIds.reduce((n, id) => n + (parts[s][`tile_${id}`] || 0), 0);
  const tileWords = (s) => tileIds.filter((id) => parts[s][`tile_${id}`]).map((id) => `${tileLabel(geo, id)} ${parts[s][`tile_${id}`]}`).join(", ") || "no tile";
  const head = el("tr", {}, el("th", { scope: "col" }, "place"), el("th", { scope: "col" }, "seat"),
    isHorses(geo, pos) ? null : el("th", { scope: "col" }, "carriage"),
    el("th", { scope: "col" }, "tiles"),
    el("th", { scope: "col" }, "houses not placed"), el("th", { scope: "col" }, "score"));
  const rows = game.ranking.map((s, i) => el("tr", { "data-seat": s },
    el("td", {}, String(i + 1)), el("th", { scope: "row" }, `seat ${s} (${game.humans.includes(s) ? "you" : game.seats[s]})`),
    isHorses(geo, pos) ? null : el("td", {}, parts[s].carriage_size ? `${parts[s].carriage} (size ${parts[s].carriage_size})` : "0"),
    el("td", { title: tileWords(s), class: "tiles-cell" }, String(tileSum(s)), el("span", { class: "visually-hidden" }, ` (${tileWords(s)})`)),
    el("td", {}, `−${parts[s].houses_unplaced}`), el("td", {}, el("strong", {}, String(parts[s].score)))));
  $("#final-table").replaceChildren(el("thead", {}, head), el("tbody", {}, rows));
  $("#final-table").setAttribute("aria-label", `final scores: ${game.ranking.map((s) => `seat ${s} ${scoreText(parts[s])}, ${parts[s].score}`).join("; ")}`);
}

// Drawing the Play view for the game in play: the board, the turn, the display, the hand and the moves.
import { $, closeText, drawPosition, geometry, moveText, nav, panToCities, plural, PHASE_WORDS, showError, turnSummaries, turnText } from "./common.js";
import { canonical, cardEl, cardList, el, isHorses } from "./board.js";
import { hintLine, hintStepsByMove, hintSteps, refreshHint, useHint } from "./hint.js";
import { key, movesByCity, myHand, myRoute, picked, st } from "./play_state.js";
import { destroys, fitsRoute, FITS, givesUp, HAND_KINDS, housesQuestion, moveLabel, phaseHelp } from "./play_moves.js";
import { confirmPicks, discardCount, housePickable, housesHelp, points, togglePick } from "./play_picks.js";
import { choose, openChooser } from "./play_chooser.js";
import { showFinal } from "./play_end.js";

function hintTarget() {
  const game = st.game;
  if (!game) return { error: "start a game first" };
  if (game.over) return { error: "the game is over" };
  if (game.waiting_for === "bot" && game.humans.length) return { error: `seat ${game.to_move} (${game.seats[game.to_move]}) is to move: a hint is for your own turn` };
  return { url: `/api/games/${game.id}/hint`, body: {}, key: key(), what: `turn ${game.turn + 1}, ${PHASE_WORDS[game.phase] || game.phase}`,
    since, noOfficial: game.forced_postmaster ? "an empty hand forces the Postmaster this turn: there is no official to choose" : null };
}

// The moves played since the position with this key (a hint's), or null when that is not this game's past:
// a hint's turn stays on screen while the moves played follow it.
function since(k) {
  const game = st.game;
  if (!game || !k) return null;
  const i = k.lastIndexOf(":");
  const id = k.slice(0, i), n = Number(k.slice(i + 1));
  if (id !== game.id || !(n <= game.log.length)) return null;
  return game.log.slice(n).map((e) => e.move);
}

// What a redraw works from: the phase, the picks, the hint's steps and the moves by city.
function context() {
  const game = st.game;
  const person = game.waiting_for === "person";
  const phase = game.phase;
  const picking = person && (phase === "houses" || phase === "discard");
  const me = game.viewer;
  return { game, person, phase, picking, list: picking ? picked() : [], byCity: movesByCity(), steps: hintStepsByMove(key()),
    me, hasSeat: me !== null && me !== undefined, stepMode: $("#bot-speed").value === "step", horses: isHorses(st.geo, game.position) };
}

export function showPlay() {
  const game = st.game;
  $("#hint-panel").hidden = !game;
  useHint(hintTarget, () => showPlay());
  if (!game) { showEmptyBoard(); return; }
  const cx = context();
  // for scripts and tests: whose turn it is, and how many moves were made
  $("#game").dataset.id = game.id;
  $("#game").dataset.waiting = game.waiting_for;
  $("#game").dataset.moves = String(game.log.length);
  $("#game").dataset.phase = cx.phase;
  showBoard(cx);
  showTurn(cx);
  showDisplay(cx);
  showHand(cx);
  showMoves(cx);
  $("#hint-next").textContent = (cx.person && hintLine()) || "";
  panMap(cx);
  $("#step-bot").disabled = !(game.waiting_for === "bot");
  const rec = $("#download-record");
  rec.hidden = game.from_position;
  rec.href = `/api/games/${game.id}/record`;
  rec.setAttribute("download", `thurn-ai-game-${game.seed}.jsonl`);
  showFinal();
  refreshHint();
}

// before the first game: the chosen board, empty
function showEmptyBoard() {
  geometry($("#play-board").value).then((g) => {
    if (st.game || nav.current !== "play") return;
    rulesForBoard(g);
    drawPosition(g, { players: [], display: [] }, { title: `${g.title} · choose the seats and press New game` });
  }).catch((e) => showError(e.message));
  $("#step-bot").disabled = true;
}

// The rules in brief speak of free cities only on a board that has them (the South board has none).
function rulesForBoard(geo) {
  $("#rules-free-city").hidden = !geo.cities.some((c) => c.province < 0);
}

function showBoard(cx) {
  rulesForBoard(st.geo);
  const { game, picking, phase, list, byCity } = cx;
  const handCities = new Set(cx.hasSeat ? myHand().map((c) => canonical(st.geo, c)) : []);
  const cityClass = (c) => {
    if (picking && phase === "houses") {
      if (list.includes(c)) return "clickable legal picked";
      return housePickable(c) ? "clickable legal" : "";
    }
    return byCity[c] && !picking ? "clickable legal" : "";
  };
  drawPosition(st.geo, game.position, {
    scores: game.scores, scoreParts: game.score_parts, viewer: game.viewer, log: game.log,
    seatLabels: game.seats.map((s, i) => (game.over && game.humans.includes(i) ? "you" : s)),
    title: `${st.geo.title} · ${game.summary}`,
    cityClass,
    onCity: (c, ev) => {
      if (picking && phase === "houses") { if (cityClass(c)) togglePick(c, ev); return; }
      if (byCity[c] && !picking) choose(byCity[c], ev);
    },
    hintSteps: hintSteps(key()), moved: st.moved, handCities,
  });
}

function showTurn(cx) {
  const { game, person } = cx;
  const labels = game.seats.map((s, i) => (game.humans.includes(i) ? "you" : s));
  $("#turn-info").textContent = turnText(game, labels, person);
  $("#turn-info").dataset.over = game.over ? "yes" : "no";
  $("#phase-help").textContent = game.over ? "" : person ? `You: ${phaseHelp()}.` : st.grace ||
    `seat ${game.to_move} (${game.seats[game.to_move]}) is to move` + (cx.stepMode ? ": press Step bot for its next move." : ": the bots are playing…");
  showBotSummary();
  showClosePreview();
  // after the person's move passed the turn, Undo stays until the first bot moves (play.js, undoGrace)
  $("#undo").disabled = !(game.undo > 0 && (person || game.waiting_for === "bot"));
  $("#undo").dataset.count = String(game.undo || 0);
}

// One line per turn of the other seats since the person's previous turn (a bots-only game: the last few).
function showBotSummary() {
  const game = st.game;
  const box = $("#bot-summary");
  box.replaceChildren();
  let end = game.log.length;
  const mine = (e) => game.humans.includes(e.seat);
  while (end > 0 && mine(game.log[end - 1]) && game.log[end - 1].turn === game.turn) end--;    // this turn's own moves
  let from = end;
  while (from > 0 && !mine(game.log[from - 1])) from--;
  if (!game.humans.length) from = Math.max(0, end - 12);
  const turns = turnSummaries(game.log.slice(from, end), st.geo).slice(-4);
  for (const t of turns) {
    box.append(el("li", { "data-seat": t.seat }, el("strong", {}, `seat ${t.seat} (${t.by})`), `: ${t.text || "no move yet"}`));
  }
}

function showClosePreview() {
  const p = $("#close-preview");
  const c = st.game.close_preview;
  p.hidden = !c;
  if (c) p.replaceChildren(el("strong", {}, "If you close now: "), closeText(c, st.geo, "route").replace(/^route /, "") + " (houses placed for the most points; without the Cartwright).");
}

// the display and the deck; in the draw phase, the cards that would fit the route are marked
function showDisplay(cx) {
  const { game, person, steps, horses } = cx;
  const pos = game.position;
  const draws = {};
  let deckMove = null;
  for (const m of game.legal) {
    if (m.kind === "draw") draws[m.city] = m;
    if (m.kind === "deck") deckMove = m;
  }
  const display = $("#display");
  display.replaceChildren();
  let displayFits = false;
  for (const c of pos.display) {
    const m = draws[canonical(st.geo, c)];
    const star = m && steps[m.move];
    const fits = Boolean(m) && person && fitsRoute(canonical(st.geo, c));     // only where it can be drawn now
    displayFits ||= fits;
    const extra = [star ? `★${star.join(",")}` : null, fits ? "fits" : null].filter(Boolean).join(" ") || null;
    display.append(cardEl(st.geo, c, { class: `${m ? "legal" : ""} ${star ? "hinted" : ""} ${fits ? "fits-route" : ""}`.replace(/ +/g, " ").trim(), disabled: !m, move: m ? m.move : null, horses,
      onclick: m ? (ev) => choose([m], ev) : null, extra,
      title: m ? moveText(m) + (fits ? ": fits your route" : "") : null }));
  }
  display.append(el("button", { type: "button", class: `card deck ${deckMove ? "legal" : ""}`, disabled: !deckMove, "data-move": deckMove ? deckMove.move : null,
    onclick: deckMove ? (ev) => choose([deckMove], ev) : null }, el("span", { class: "card-code" }, "deck"), el("span", { class: "card-name" }, plural(pos.deck_size, "card"))));
  $("#deck-info").textContent = `deck ${pos.deck_size} · discard pile ${cardList(pos.discard).length}` + (displayFits ? " · “fits”: goes on your route" : "");
}

// the hand of the person whose view this is: cards that fit the route apart from the others
function showHand(cx) {
  const hand = $("#hand");
  hand.replaceChildren();
  $("#hand-info").textContent = "";
  if (!cx.hasSeat) {
    hand.append(el("p", { class: "help" }, cx.game.over ? "Every hand is shown under Players." : "Nobody plays in person: every hand is shown under Players."));
    return;
  }
  const cards = myHand();
  if (!cards.length) hand.append(el("p", { class: "help" }, cx.person ? "empty" : "no cards"));
  const discarding = cx.picking && cx.phase === "discard";
  if (discarding) {
    showDiscardHand(cx, cards);
    return;
  }
  let someFit = false, someNot = false;
  for (const c of cards) {
    const name = canonical(st.geo, c);
    const ms = cx.picking ? [] : (cx.byCity[name] || []).filter((m) => HAND_KINDS.has(m.kind));
    const fits = ms.some((m) => FITS.has(m.kind));
    const breaks = ms.length && ms.every((m) => destroys(m));
    someFit ||= fits;
    someNot ||= breaks;
    const cls = !ms.length ? "" : fits ? "legal fits" : breaks ? "legal nofit" : "legal";
    const what = fits ? "fits your route" : breaks ? "does not fit: playing it starts a new route" : "";
    const one = fits ? ms.filter((m) => FITS.has(m.kind)) : ms;
    // the hint's steps that play this card (★ as on the moves and the map), also a later step's, e.g. in
    // the draw phase, when the card cannot be played yet
    const star = [...new Set([...ms.flatMap((m) => cx.steps[m.move] || []), ...laterSteps(cx.steps, name)])].sort((a, b) => a - b);
    const extra = [star.length ? `★${star.join(",")}` : null, breaks ? "new route" : null].filter(Boolean).join(" ") || null;
    hand.append(cardEl(st.geo, c, { class: `${cls} ${star.length ? "hinted" : ""}`.trim(), disabled: !ms.length, onclick: ms.length ? (ev) => choose(ms, ev, { card: true }) : null, horses: cx.horses,
      title: ms.map((m) => moveLabel(m)).join(" / ") || null, move: one.length === 1 ? one[0].move : null,
      extra, said: ms.length && what ? `: ${what}` : null }));
  }
  if (someFit || someNot) $("#hand-info").textContent = someNot ? "bold: fits your route · dashed: new route" : "bold: fits your route";
}

// The hint's steps that play the card of `city` (moves in notation: "left Passau", "new Passau").
function laterSteps(steps, city) {
  return Object.entries(steps).flatMap(([move, at]) => {
    const m = move.match(/^(?:left|right|new|horse) (.+)$/);
    return m && canonical(st.geo, m[1]) === city ? at : [];
  });
}

function showDiscardHand(cx, cards) {
  const taken = {};
  for (const c of cards) {
    const name = canonical(st.geo, c);
    const k = taken[name] = (taken[name] || 0) + 1;
    const isPicked = cx.list.filter((x) => x === name).length >= k;
    const star = cx.steps[`discard ${name}`];
    $("#hand").append(cardEl(st.geo, c, { class: `legal ${isPicked ? "picked" : ""} ${star ? "hinted" : ""}`.replace(/ +/g, " ").trim(), horses: cx.horses,
      onclick: (ev) => togglePick(name, ev), extra: [isPicked ? "discard" : null, star ? `★${star.join(",")}` : null].filter(Boolean).join(" ") || null,
      pressed: isPicked, title: isPicked ? "picked to discard: click to keep it" : "click to pick it for discarding" }));
  }
  $("#hand-info").textContent = `picked ${cx.list.length} of ${discardCount()} to discard`;
}

// every legal move as a button (the same moves as the clicks above); the hint's steps numbered
function showMoves(cx) {
  const { game, phase, picking, steps } = cx;
  const moves = $("#moves");
  moves.replaceChildren();
  if (st.grace && !cx.person) {       // the bots wait for a possible Undo: said where the card was tapped
    moves.append(el("p", { class: "help" }, st.grace),
      el("button", { type: "button", class: "move", id: "grace-undo", onclick: () => $("#undo").click() }, "Undo"),
      el("button", { type: "button", class: "move", id: "grace-end", onclick: () => $("#end-turn").click() }, "End turn"));
    return;
  }
  if (!game.legal.length) moves.append(el("p", { class: "help" }, game.over ? "The game is over." : cx.stepMode ? "A bot is to move: press Step bot." : "The bots are playing."));
  if (picking && phase === "houses") return showHouseMoves(cx);
  if (picking && phase === "discard") {
    const n = discardCount(), list = cx.list;
    moves.append(el("button", { type: "button", id: "place-discards", class: "move kind-close", disabled: list.length !== n, onclick: () => confirmPicks("discard") },
      list.length === n ? `Discard ${list.join(", ")}` : `Discard (pick ${plural(n - list.length, "more card")} in your hand)`));
    moves.append(el("p", { class: "help" }, `After a close you keep at most 3 cards: pick ${plural(n, "card")} of your hand to discard, in any order.`));
    return;
  }
  const ordered = [...game.legal].sort((a, b) => Number(Boolean(destroys(a))) - Number(Boolean(destroys(b))));   // destructive last
  for (const m of ordered) {
    const star = steps[m.move];
    moves.append(el("button", { type: "button", class: `move kind-${m.kind} ${star ? "hinted" : ""} ${destroys(m) ? "destructive" : ""} ${givesUp(m) ? "asks" : ""} ${m.official ? "uses-official" : ""}`.replace(/ +/g, " ").trim(),
      "data-move": m.move, "data-hint-step": star ? star.join(",") : null, title: m.official_label ? `uses your ${m.official_label}` : null,
      onclick: (ev) => choose([m], ev, { fromList: true }) },
      (star ? `★${star.join(",")} ` : "") + moveLabel(m)));
  }
}

function showHouseMoves(cx) {
  const { game, list, steps } = cx;
  const moves = $("#moves");
  for (const m of game.legal.filter((x) => x.kind === "house")) {
    const on = list.includes(m.city);
    const star = steps[m.move];
    moves.append(el("button", { type: "button", class: `move kind-house pick ${star ? "hinted" : ""}`.trim(), "data-pick": m.move, "aria-pressed": String(on),
      disabled: !on && !housePickable(m.city), onclick: (ev) => togglePick(m.city, ev) },
      (star ? `★${star.join(",")} ` : "") + (on ? "✓ " : "") + m.move));
  }
  const n = list.length;
  const exact = game.house_choice && game.house_choice.sets.find((s) => s.cities.length === n && list.every((c) => s.cities.includes(c)));
  const order = (a, b) => st.geo.cities.findIndex((x) => x.name === a) - st.geo.cities.findIndex((x) => x.name === b);
  moves.append(el("button", { type: "button", id: "place-houses", class: `move kind-close ${steps.done ? "hinted" : ""}`.trim(), onclick: (ev) => placeHouses(ev) },
    (n ? `Place ${plural(n, "house")}: ${[...list].sort(order).join(", ")}` : "Place no house") +
    (exact ? ` (${points(exact.points)} in all)` : "")));
  moves.append(housesHelp(list));
}

// Houses are placed at once when they are the best placement; otherwise (fewer points, none, or the last
// houses, which end the game) the page asks first, naming what is given up.
function placeHouses(ev) {
  const list = [...picked()];
  const q = housesQuestion(list);
  if (!q) { confirmPicks("house"); return; }
  const label = list.length ? `Place ${plural(list.length, "house")} anyway` : "Place no house anyway";
  openChooser(q.question, q.warnings, [{ label, onclick: () => confirmPicks("house"), destructive: true }], ev);
}

// A zoomed map (a phone) is panned to what matters for the person: at the start of each of their turns
// the route and the hand, when houses are placed the route, when a hint appears its cities. On a first turn
// with no route and an empty hand: the display's cities, the cards to choose from.
function panMap(cx) {
  if (!cx.person) return;
  const game = st.game;
  const hint = Object.keys(hintSteps(key()) || {});
  const route = myRoute();
  const hand = cx.hasSeat ? myHand().map((c) => canonical(st.geo, c)) : [];
  const own = route.length || hand.length;     // else the display: panned again once the first card is in hand
  const mine = own ? [...route, ...hand] : game.position.display.map((c) => canonical(st.geo, c));
  const [why, cities] = cx.phase === "houses" ? [`houses ${game.log.length}`, route] :
    hint.length ? [`hint ${hint.join(",")}`, hint] : [`turn ${game.turn}${own ? "" : " display"}`, mine];
  const focusKey = `${game.id}:${why}`;
  if (!cities.length || st.panned === focusKey) return;
  st.panned = focusKey;
  panToCities(st.geo, cities);
}

// Drawing a position: the board as SVG (cities, roads, routes, houses) and the panels beside it
// (turn, display, deck, players, tiles). Everything is drawn from a position dict in the format of
// docs/position-format.md, as the server sends it (hidden cards already removed) or as the set-up
// view builds it.

const SVG = "http://www.w3.org/2000/svg";

// Colour-blind-safe palettes. Seats: Okabe & Ito's colours, each with its own line pattern and the seat
// number on every house, so colour is never the only cue. Provinces: Paul Tol's "light" scheme (made
// for fills behind dark text), and each city carries its province's code as text.
// Counts in words, one helper for the whole page: plural(1, "house") "1 house", plural(3, "house") "3 houses";
// points(1) "+1 point", points(-3) "−3 points".
export const plural = (k, word, words = `${word}s`) => `${k} ${k === 1 ? word : words}`;
export const points = (n) => `${n >= 0 ? "+" : "−"}${plural(Math.abs(n), "point")}`;

export const SEAT_COLORS = ["#0072B2", "#D55E00", "#009E73", "#CC79A7"];
export const SEAT_NAMES = ["blue", "vermillion", "green", "purple"];
// Route patterns (solid, dashed, dotted, dash-dot), drawn with butt caps: a round cap would reach half the
// line's width into each gap and fill it. ROUTE_RING: each seat's ring around its route's cities has its
// own radius, so two routes through one city show both rings.
export const SEAT_DASH = ["", "18 9", "6 8", "18 7 6 7"];
const ROUTE_RING = [21, 25, 29, 33];
export const PROVINCE_COLORS = ["#77AADD", "#EE8866", "#EEDD88", "#FFAABB", "#99DDFF", "#44BB99",
                                "#BBCC33", "#AAAA00", "#DDDDDD", "#E8C8F0", "#C8E8C0", "#F4D8B0"];
export const FREE_CITY_COLOR = "#FFFFFF";

export function el(tag, attrs = {}, ...children) {
  const node = tag.startsWith("svg:") ? document.createElementNS(SVG, tag.slice(4)) : document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === null || v === undefined || v === false) continue;
    if (k === "text") node.textContent = v;
    else if (k === "class") node.setAttribute("class", v);
    else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
    else node.setAttribute(k, v === true ? "" : v);
  }
  for (const c of children.flat()) {
    if (c === null || c === undefined || c === false) continue;
    node.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return node;
}

const svgEl = (tag, attrs, ...children) => el("svg:" + tag, attrs, ...children);

export function provinceColor(geo, cityName) {
  const c = geo.byName[cityName];
  if (!c || c.province < 0) return FREE_CITY_COLOR;
  return PROVINCE_COLORS[c.province % PROVINCE_COLORS.length];
}

export function cityCode(geo, cityName) {
  const c = geo.byName[cityName];
  return c ? c.code : "?";
}

// Cards in a position are a list of names (a copy repeated) or {name: count}: always a list here.
export function cardList(cards) {
  if (!cards) return [];
  if (Array.isArray(cards)) return cards.slice();
  const out = [];
  for (const [name, k] of Object.entries(cards)) for (let i = 0; i < k; i++) out.push(name);
  return out;
}

// City names in a position may be spelt without umlauts ("Muenchen"): fold them as the server does.
export function fold(name) {
  let s = String(name).trim().toLowerCase();
  for (const [a, b] of [["ä", "a"], ["ö", "o"], ["ü", "u"], ["ß", "ss"], ["ae", "a"], ["oe", "o"], ["ue", "u"]]) {
    s = s.split(a).join(b);
  }
  return s.normalize("NFKD").replace(/[\u0300-\u036f]/g, "");
}

export function canonical(geo, name) {
  if (geo.byName[name]) return name;
  return geo.byFold[fold(name)] || name;
}

export function prepareGeometry(geo) {
  geo.byName = {};
  geo.byFold = {};
  for (const c of geo.cities) {
    geo.byName[c.name] = c;
    geo.byFold[fold(c.name)] = c.name;
  }
  geo.adjacent = {};
  for (const [a, b] of geo.roads) {
    (geo.adjacent[a] = geo.adjacent[a] || new Set()).add(b);
    (geo.adjacent[b] = geo.adjacent[b] || new Set()).add(a);
  }
  return geo;
}

// ---------------------------------------------------------------- the map

// opts: cityClass(name) -> extra classes, onCity(name, event), hintSteps {city: [step numbers]},
// moved: a city to mark as just played, title: text for the SVG's accessible name.
export function drawBoard(svg, geo, pos, opts = {}) {
  svg.replaceChildren();
  svg.setAttribute("viewBox", `0 0 ${geo.width} ${geo.height}`);
  // a picture, or (when its cities can be clicked) a group of buttons: an image may hold no controls
  svg.setAttribute("role", opts.onCity ? "group" : "img");
  svg.setAttribute("aria-label", opts.title || `${geo.title}: map`);
  const P = (name) => geo.byName[canonical(geo, name)];
  const horses = isHorses(geo, pos);

  const roads = svgEl("g", { class: "roads" });
  for (const [a, b] of geo.roads) {
    const ca = geo.byName[a], cb = geo.byName[b];
    roads.append(svgEl("line", { x1: ca.x, y1: ca.y, x2: cb.x, y2: cb.y }));
  }
  svg.append(roads);

  const players = (pos && pos.players) || [];
  const n = players.length;
  const routes = svgEl("g", { class: "routes" });
  players.forEach((pl, seat) => {
    const route = (pl.route || []).map(P).filter(Boolean);
    if (!route.length) return;
    const off = (seat - (n - 1) / 2) * 5;
    const points = route.map((c) => `${c.x + off},${c.y + off}`).join(" ");
    routes.append(svgEl("polyline", {
      points, class: `route seat${seat} ${SEAT_DASH[seat] ? "dashed" : ""}`.trim(), stroke: SEAT_COLORS[seat], "stroke-dasharray": SEAT_DASH[seat] || null,
      "data-seat": seat,
    }, svgEl("title", { text: `seat ${seat} route: ${(pl.route || []).join(" – ")}` })));
    for (const c of route) {
      routes.append(svgEl("circle", { cx: c.x, cy: c.y, r: ROUTE_RING[seat], class: `route-ring seat${seat}`, stroke: SEAT_COLORS[seat],
        "stroke-dasharray": seat ? SEAT_DASH[seat] : null, "data-seat": seat, "data-city": c.name }));
    }
  });
  svg.append(routes);

  const cities = svgEl("g", { class: "cities" });
  // the names go on top of everything (rings, houses, routes), their white halo keeps them readable
  const labels = svgEl("g", { class: "labels" });
  for (const c of geo.cities) {
    const extra = opts.cityClass ? opts.cityClass(c.name) : "";
    const g = svgEl("g", {
      class: `city ${extra}`.trim(), "data-city": c.name, transform: `translate(${c.x},${c.y})`,
      tabindex: opts.onCity && extra.includes("clickable") ? 0 : null,
      role: opts.onCity && extra.includes("clickable") ? "button" : null,
    });
    const fill = c.province < 0 ? FREE_CITY_COLOR : PROVINCE_COLORS[c.province % PROVINCE_COLORS.length];
    const label = `${c.name} (${c.province_name || "free city"})`;
    g.append(svgEl("title", { text: label }));
    if (c.province < 0) g.append(svgEl("rect", { x: -17, y: -17, width: 34, height: 34, fill, class: "dot free" }));
    else g.append(svgEl("circle", { r: 18, fill, class: "dot" }));
    if (horses && c.horses) {
      g.append(svgEl("text", { class: "code", y: -1, text: c.code }));
      g.append(svgEl("text", { class: "horses", y: 11, text: `${c.horses}h` }));
    } else {
      g.append(svgEl("text", { class: "code", y: 4, text: c.code }));
    }
    const inHand = opts.handCities && opts.handCities.has(c.name);
    labels.append(svgEl("text", { class: `name ${inHand ? "in-hand" : ""}`.trim(), x: c.x, y: c.y + 36, "data-city": c.name, text: c.name }));
    if (inHand) g.append(svgEl("rect", { class: "hand-mark", x: 12, y: 6, width: 9, height: 13, rx: 1.5 }));
    const steps = opts.hintSteps && opts.hintSteps[c.name];
    if (steps) {
      g.append(svgEl("circle", { r: 29, class: "hint-ring" }));
      g.append(svgEl("g", { class: "hint-badge", transform: "translate(0,-33)" },   // above: houses sit at the corners
        svgEl("circle", { r: 10 }), svgEl("text", { y: 4, text: steps.join(",") })));
    }
    if (opts.moved && canonical(geo, opts.moved) === c.name) g.append(svgEl("circle", { r: 26, class: "moved-ring" }));
    if (opts.onCity) {
      const fire = (ev) => opts.onCity(c.name, ev);
      g.addEventListener("click", fire);
      g.addEventListener("keydown", (ev) => { if (ev.key === "Enter" || ev.key === " ") { ev.preventDefault(); fire(ev); } });
    }
    cities.append(g);
  }
  svg.append(cities);

  // houses: a small square per seat at a fixed corner of the city, with the seat number in it
  const houses = svgEl("g", { class: "houses" });
  players.forEach((pl, seat) => {
    const ang = (Math.PI / 180) * (225 + 90 * seat);
    for (const name of pl.houses || []) {
      const c = P(name);
      if (!c) continue;
      const x = c.x + 23 * Math.cos(ang), y = c.y + 23 * Math.sin(ang);
      houses.append(svgEl("g", { class: `house seat${seat}`, transform: `translate(${x},${y})`, "data-seat": seat, "data-city": c.name },
        svgEl("rect", { x: -7, y: -7, width: 14, height: 14, fill: SEAT_COLORS[seat] }),
        svgEl("text", { y: 4, text: String(seat) }),
        svgEl("title", { text: `house of seat ${seat} in ${c.name}` })));
    }
  });
  svg.append(houses, labels);
}

// The horses variant: the rules say so, or (a position being set up without them) the board's default.
export function isHorses(geo, pos) {
  const variant = pos && pos.rules && pos.rules.variant;
  return (variant || geo.default_variant) === "horses";
}

export function drawLegend(box, geo, players, horses = false) {
  box.replaceChildren();
  const prov = el("ul", { class: "legend-provinces", "aria-label": "provinces" });
  for (const p of geo.provinces) {
    prov.append(el("li", {}, el("span", { class: "swatch", style: `background:${PROVINCE_COLORS[p.index % PROVINCE_COLORS.length]}` }, p.code), " ", p.name));
  }
  if (geo.cities.some((c) => c.province < 0)) {
    prov.append(el("li", {}, el("span", { class: "swatch free" }, "free"), " free city"));
  }
  if (horses) prov.append(el("li", {}, el("strong", {}, "2h"), " 2 horses on the city's cards"));
  const seats = el("ul", { class: "legend-seats", "aria-label": "seats" });
  for (let s = 0; s < players; s++) {
    const line = el("svg:svg", { width: 44, height: 10, "aria-hidden": "true" },
      svgEl("line", { x1: 2, y1: 5, x2: 42, y2: 5, stroke: SEAT_COLORS[s], "stroke-width": 5, "stroke-dasharray": SEAT_DASH[s] || null }));
    seats.append(el("li", {}, line, ` seat ${s} (${SEAT_NAMES[s]})`));
  }
  box.append(prov, seats);
  if (geo.notice) box.append(el("p", { class: "notice" }, geo.notice));
}

// ---------------------------------------------------------------- cards and panels

export function cardEl(geo, name, attrs = {}) {
  const cname = canonical(geo, name);
  const c = geo.byName[cname];
  if (attrs.horses && c && c.horses && !attrs.extra) attrs = { ...attrs, extra: `${c.horses} horse${c.horses === 1 ? "" : "s"}` };
  return el("button", {
    type: "button", class: `card ${attrs.class || ""}`.trim(), "data-city": cname,
    style: `--card:${provinceColor(geo, cname)}`, disabled: attrs.disabled, title: attrs.title || null,
    "aria-label": attrs.label || null, "aria-pressed": attrs.pressed === undefined ? null : String(Boolean(attrs.pressed)),
    "data-move": attrs.move || null, onclick: attrs.onclick || null,
  }, el("span", { class: "card-code" }, cityCode(geo, cname)), el("span", { class: "card-name" }, cname),
  attrs.extra ? el("span", { class: "card-extra" }, attrs.extra) : null,
  attrs.said ? el("span", { class: "visually-hidden" }, attrs.said) : null);   // for screen readers, after the visible text
}

const OFFICIAL_LABEL = { postmaster: "Postmaster", administrator: "Administrator", postal_carrier: "Postal Carrier", cartwright: "Cartwright" };

// A tile stack by its name in words ("every city of Baden"), from the board's data; the id otherwise.
export function tileLabel(geo, id) {
  const t = geo && geo.tiles.find((st) => st.id === id);
  return t && t.label ? t.label : id;
}

export function tilesText(tiles, geo = null) {
  const parts = [];
  for (const [id, v] of Object.entries(tiles || {})) {
    if (Array.isArray(v)) parts.push(`${tileLabel(geo, id)}: ${v.join(" + ")}`);
    else if (v && typeof v === "object") parts.push(`${tileLabel(geo, id)}: ${v.count}× (${v.points})`);
  }
  return parts.join("; ") || "–";
}

// The horses at a carriage (horses variant): the cards' horses and the route they can close (2 + them).
export function horseTotal(geo, cards) {
  return cardList(cards).reduce((n, c) => n + ((geo.byName[canonical(geo, c)] || {}).horses || 0), 0);
}

export function horsesText(geo, pl) {
  const h = horseTotal(geo, pl.horse_cards);
  return `${2 + h} horses (2 + ${h} on cards): closes a route of up to ${2 + h} cards`;
}

// A score in its parts: carriage, tiles, unplaced houses (1 point off each, counted from the start).
export function scoreText(parts) {
  if (!parts) return "";
  const bits = [];
  if (parts.carriage_size) bits.push(`carriage ${parts.carriage_size}: +${parts.carriage}`);
  if (parts.tiles) bits.push(`tiles +${parts.tiles}`);
  bits.push(`${parts.houses_unplaced} houses not placed: −${parts.houses_unplaced}`);
  return bits.join(", ");
}

// The players' table: score, carriage, houses left, hand (as the viewer may know it), route, tiles.
// seatLabels: names of who plays each seat; viewer: whose hand is listed (null: all).
export function drawPlayers(box, geo, pos, opts = {}) {
  box.replaceChildren();
  const scores = opts.scores || [];
  const horses = isHorses(geo, pos);
  pos.players.forEach((pl, seat) => {
    const toMove = pos.phase !== "over" && pos.to_move === seat;
    const who = opts.seatLabels ? opts.seatLabels[seat] : "";
    const head = el("h3", {},
      el("span", { class: "seat-swatch", style: `background:${SEAT_COLORS[seat]}` }, String(seat)),
      ` seat ${seat}`, who ? ` · ${who}` : "", opts.viewer === seat ? " (you)" : "",
      toMove ? el("span", { class: "to-move" }, " ◀ to move") : null);
    const rows = [];
    const add = (k, v) => rows.push(el("dt", {}, k), el("dd", {}, v));
    const parts = opts.scoreParts ? opts.scoreParts[seat] : null;
    if (scores.length) add("score", el("span", {}, el("strong", { class: "score" }, String(scores[seat])), parts ? el("span", { class: "sub" }, ` (${scoreText(parts)})`) : null));
    if (!horses) add("carriage", pl.carriage ? String(pl.carriage) : "none");
    else {
      add("horse cards", cardList(pl.horse_cards).map((c) => `${c} (${(geo.byName[canonical(geo, c)] || {}).horses || 0})`).join(", ") || "–");
      add("horses", horsesText(geo, pl));
    }
    add("houses left", String(pl.houses_left ?? 20 - (pl.houses || []).length));
    let hand;
    if (pl.hand !== undefined) {
      hand = cardList(pl.hand);
      add("hand", hand.length ? el("span", { class: "mini-cards" }, hand.map((c) => cardEl(geo, c, { class: "mini", disabled: true }))) : "–");
    } else {
      const known = cardList(pl.known);
      const k = pl.hand_size ?? 0;
      add("hand", `${k} card${k === 1 ? "" : "s"}` + (known.length ? `, known: ${known.join(", ")}` : ""));
    }
    add("route", (pl.route || []).join(" – ") || "–");
    add("tiles", tilesText(pl.tiles, geo));
    const uses = pl.official_uses || {};
    const used = Object.entries(uses).filter(([, k]) => k).map(([o, k]) => `${OFFICIAL_LABEL[o] || o} ${k}`);
    if (used.length) add("officials used", used.join(", "));
    box.append(el("section", { class: `player seat${seat} ${toMove ? "moving" : ""}`.trim(), "data-seat": seat,
      style: `--seat:${SEAT_COLORS[seat]}` }, head, el("dl", {}, rows)));
  });
}

export function drawTileStacks(box, geo, pos) {
  box.replaceChildren();
  const stacks = pos.tile_stacks || {};
  const list = el("ul", { class: "tile-stacks" });
  for (const st of geo.tiles) {
    const left = stacks[st.id] !== undefined ? stacks[st.id] : st.values;
    list.append(el("li", { "data-stack": st.id }, el("span", { class: "stack-id" }, st.label || st.id), ": ", left.length ? left.join(" / ") : "empty"));
  }
  box.append(list);
}

export function officialLabel(o) {
  return OFFICIAL_LABEL[o] || o;
}

// The players at a glance, above the board: score (explained in a tooltip and for screen readers),
// carriage or horses, houses left, cards in hand. opts as drawPlayers.
export function drawStrip(box, geo, pos, opts = {}) {
  box.replaceChildren();
  const horses = isHorses(geo, pos);
  (pos.players || []).forEach((pl, seat) => {
    const toMove = pos.phase !== "over" && pos.to_move === seat;
    const parts = opts.scoreParts ? opts.scoreParts[seat] : null;
    const who = opts.viewer === seat ? "you" : (opts.seatLabels ? opts.seatLabels[seat] : "");
    const score = opts.scores && opts.scores.length ? opts.scores[seat] : null;
    const hand = pl.hand !== undefined ? cardList(pl.hand).length : (pl.hand_size ?? 0);
    const ride = horses ? `${2 + horseTotal(geo, pl.horse_cards)} horses` : (pl.carriage ? `carriage ${pl.carriage}` : "no carriage");
    const left = pl.houses_left ?? 20 - (pl.houses || []).length;
    box.append(el("div", { class: `strip-seat ${toMove ? "moving" : ""}`.trim(), "data-seat": seat, style: `--seat:${SEAT_COLORS[seat]}`,
      title: parts ? `score ${score}: ${scoreText(parts)}` : null },
      el("span", { class: "seat-swatch", style: `background:${SEAT_COLORS[seat]}` }, String(seat)),
      el("span", { class: "strip-who" }, who || `seat ${seat}`),
      score !== null ? el("strong", { class: "strip-score" }, `${score} pts`) : null,
      parts ? el("span", { class: "visually-hidden" }, ` (${scoreText(parts)})`) : null,
      // on a phone only the seat and its score show (every seat's in view); the rest is read aloud
      el("span", { class: "strip-more" }, ride), el("span", { class: "strip-more" }, `${plural(left, "house")} left`),
      el("span", { class: "strip-more" }, `${hand} in hand`),
      toMove ? el("span", { class: "to-move" }, "◀", el("span", { class: "strip-more" }, " to move")) : null));
  });
  box.setAttribute("role", "group");      // a div with a label needs a role (axe: aria-prohibited-attr)
}

// The lobby: every game, live, and a form to create one.

import { move, rps } from "./api.js";
import { miniBoard } from "./board.js";
import { h, replace, shown } from "./dom.js";
import { isOver, nextPlayer, playerLabel, seat, stateText } from "./labels.js";
import { throwIcon } from "./icons.js";
import { THROWS, nextText, outcomeText, seatLabel } from "./rps_labels.js";

const MAX_SHOWN = 200;
const FRESH_MS = 1500;

export function gameHref(name) {
  return `#/game/${encodeURIComponent(name)}`;
}

export function rpsHref(name) {
  return `#/rps/${encodeURIComponent(name)}`;
}

/** " rated 26.8" for a player the leaderboard rates (its rating, one decimal; "26.8?" while provisional, fewer than 5
 * games), else nothing. */
function rated(live, key) {
  const row = key ? live.ratingOf(key) : null;
  return row ? ` rated ${row.rating.toFixed(1)}${row.provisional ? "?" : ""}` : "";
}

function rpsItem(game, me, live) {
  const yourTurn = me !== null && game.next.some((step) => step.player === me);
  const over = outcomeText(game, me, true);
  const players = game.players.map((player) => seatLabel(player) + rated(live, player.key)).join(" vs ") || "nobody has joined yet";
  const score = game.players.length === 2 && game.state !== "AWAITING_GAME" ? ` · ${game.players.map((p) => p.score).join("-")}` : "";
  return h(
    "li",
    { class: "game-item", dataset: { over: String(game.state === "CONCLUDED"), yourTurn: String(yourTurn) } },
    h(
      "a",
      { href: rpsHref(game.name), class: "game-link rps-link" },
      h("span", { class: "rps-badge", "aria-hidden": "true" }, THROWS.map((throw_) => throwIcon(throw_, "badge-icon"))),
      h(
        "span",
        { class: "game-text" },
        shown(game.shown, "name game-name"),
        yourTurn ? h("span", { class: "badge", text: "your move" }) : null,
        h("span", { class: "game-state", text: over ?? nextText(game, me) }),
        h("span", { class: "game-players", text: `${players}${score}` }),
      ),
    ),
  );
}

function players(game, live) {
  const [x, o] = [seat(game, 1), seat(game, 2)];
  return `X: ${playerLabel(x.key, x.name)}${rated(live, x.key)} · O: ${playerLabel(o.key, o.name)}${rated(live, o.key)}`;
}

function gameItem(game, me, live) {
  const number = nextPlayer(game.state);
  const yourTurn = number !== null && seat(game, number).key === me && me !== null;
  return h(
    "li",
    { class: "game-item", dataset: { over: String(isOver(game)), yourTurn: String(yourTurn) } },
    h(
      "a",
      { href: gameHref(game.name), class: "game-link" },
      miniBoard(game.board),
      h(
        "span",
        { class: "game-text" },
        shown(game.shown, "name game-name"),
        yourTurn ? h("span", { class: "badge", text: "your turn" }) : null,
        h("span", { class: "game-state", text: stateText(game, me) }),
        h("span", { class: "game-players", text: players(game, live) }),
      ),
    ),
  );
}

export function mount(app, _parameter, signal) {
  document.title = "xo · lobby";
  const nameInput = h("input", {
    id: "new-game-name",
    name: "name",
    required: true,
    autocomplete: "off",
    spellcheck: "false",
    maxlength: "200",
    placeholder: "e.g. game1",
  });
  const createButton = h("button", { type: "submit", class: "primary", text: "Create" });
  const kind = h(
    "select",
    { id: "new-game-kind" },
    h("option", { value: "xo", text: "Tic-tac-toe" }),
    h("option", { value: "rps", text: "Rock-paper-scissors" }),
  );
  const points = h("select", { id: "new-game-points" }, [1, 2, 3].map((value) => h("option", { value, text: `first to ${value}` })));
  const pointsLabel = h("label", { for: "new-game-points", class: "visually-hidden", text: "Points to win" });
  const showPoints = () => {
    points.hidden = kind.value !== "rps";
  };
  kind.addEventListener("change", showPoints);
  const createError = h("p", { class: "error", role: "alert", id: "create-error" });
  const filter = h("input", { type: "search", id: "filter", autocomplete: "off", placeholder: "Filter by name" });
  const summary = h("p", { class: "summary" });
  const list = h("ul", { class: "games", "aria-labelledby": "xo-heading" });
  const rpsList = h("ul", { class: "games", "aria-labelledby": "rps-heading", id: "rps-games" });
  const fresh = new Set();

  async function create(event) {
    event.preventDefault();
    const player = app.player();
    const name = nameInput.value;
    if (!player) {
      createError.textContent = "Choose a key to play as first (make one with xo keygen).";
      return;
    }
    createButton.disabled = true;
    createButton.textContent = "Creating…";
    createError.textContent = "";
    try {
      if (kind.value === "rps") {
        await rps(player.name, "create", name, { points: Number(points.value) });
        location.hash = rpsHref(name);
      } else {
        await move(player.name, "create", name);
        location.hash = gameHref(name);
      }
    } catch (error) {
      createError.textContent = error.message;
      nameInput.focus();
    } finally {
      createButton.disabled = false;
      createButton.textContent = "Create";
    }
  }

  function render() {
    const wanted = filter.value.trim().toLowerCase();
    const all = [...app.live.games.values()];
    const matching = wanted ? all.filter((game) => game.name.toLowerCase().includes(wanted)) : all;
    const me = app.me();
    const items = matching.slice(0, MAX_SHOWN).map((game) => {
      const item = gameItem(game, me, app.live);
      if (fresh.has(game.name)) item.classList.add("fresh");
      return item;
    });
    replace(list, items.length ? items : h("li", { class: "empty", text: emptyText(all.length, wanted) }));
    const allRps = [...app.live.rps.values()];
    const matchingRps = wanted ? allRps.filter((game) => game.name.toLowerCase().includes(wanted)) : allRps;
    const rpsItems = matchingRps.slice(0, MAX_SHOWN).map((game) => {
      const item = rpsItem(game, me, app.live);
      if (fresh.has(`rps:${game.name}`)) item.classList.add("fresh");
      return item;
    });
    replace(rpsList, rpsItems.length ? rpsItems : h("li", { class: "empty", text: emptyText(allRps.length, wanted) }));
    const total = all.length + allRps.length;
    const shownCount = matching.length + matchingRps.length;
    const more = Math.max(matching.length, matchingRps.length) > MAX_SHOWN ? `; the first ${MAX_SHOWN} of each kind are shown, filter to find others` : "";
    const count = `${total} game${total === 1 ? "" : "s"}`;
    summary.textContent = (wanted ? `${shownCount} of ${count} match` : count) + more;
  }

  function emptyText(total, wanted) {
    if (!app.live.ready) return "Reading the games…";
    if (total === 0) return "None yet: create the first one above.";
    return wanted ? "No game name matches the filter." : "";
  }

  app.live.addEventListener(
    "games",
    (event) => {
      const changed = [
        ...event.detail.changes.map((change) => change.name),
        ...event.detail.rpsChanges.map((change) => `rps:${change.name}`),
      ];
      for (const key of changed) {
        fresh.add(key);
        setTimeout(() => fresh.delete(key), FRESH_MS);
      }
      render();
    },
    { signal },
  );
  app.addEventListener("player", render, { signal });
  app.live.addEventListener("rated", render, { signal });
  filter.addEventListener("input", render);

  replace(
    app.main,
    h("h1", { tabindex: "-1", id: "games-heading", text: "Games" }),
    h(
      "form",
      { class: "create-form", on: { submit: create }, "aria-describedby": "create-error" },
      h("label", { for: "new-game-name", text: "New game" }),
      h(
        "div",
        { class: "row" },
        nameInput,
        h("label", { for: "new-game-kind", class: "visually-hidden", text: "Kind of game" }),
        kind,
        pointsLabel,
        points,
        createButton,
      ),
      createError,
    ),
    h("div", { class: "list-head" }, h("label", { for: "filter", class: "visually-hidden", text: "Filter games" }), filter, summary),
    h("h2", { id: "xo-heading", text: "Tic-tac-toe" }),
    list,
    h("h2", { id: "rps-heading", text: "Rock-paper-scissors" }),
    rpsList,
  );
  showPoints();
  render();
}

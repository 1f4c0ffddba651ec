// The lobby: every game, live, and a form to create one.

import { move } from "./api.js";
import { miniBoard } from "./board.js";
import { h, replace, shown } from "./dom.js";
import { isOver, nextPlayer, playerLabel, seat, stateText } from "./labels.js";

const MAX_SHOWN = 200;
const FRESH_MS = 1500;

export function gameHref(name) {
  return `#/game/${encodeURIComponent(name)}`;
}

function players(game) {
  const [x, o] = [seat(game, 1), seat(game, 2)];
  return `X: ${playerLabel(x.key, x.name)} · O: ${playerLabel(o.key, o.name)}`;
}

function gameItem(game, me) {
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
        h("span", { class: "game-players", text: players(game) }),
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
  const createError = h("p", { class: "error", role: "alert", id: "create-error" });
  const filter = h("input", { type: "search", id: "filter", autocomplete: "off", placeholder: "Filter by name" });
  const summary = h("p", { class: "summary" });
  const list = h("ul", { class: "games", "aria-labelledby": "games-heading" });
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
      await move(player.name, "create", name);
      location.hash = gameHref(name);
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
      const item = gameItem(game, me);
      if (fresh.has(game.name)) item.classList.add("fresh");
      return item;
    });
    replace(list, items.length ? items : h("li", { class: "empty", text: emptyText(all.length, wanted) }));
    const more = matching.length > MAX_SHOWN ? `; the first ${MAX_SHOWN} are shown, filter to find others` : "";
    const count = `${all.length} game${all.length === 1 ? "" : "s"}`;
    summary.textContent = (wanted ? `${matching.length} of ${count} match` : count) + more;
  }

  function emptyText(total, wanted) {
    if (!app.live.ready) return "Reading the games…";
    if (total === 0) return "No games yet: create the first one above.";
    return wanted ? "No game name matches the filter." : "";
  }

  app.live.addEventListener(
    "games",
    (event) => {
      for (const change of event.detail.changes) {
        fresh.add(change.name);
        setTimeout(() => fresh.delete(change.name), FRESH_MS);
      }
      render();
    },
    { signal },
  );
  app.addEventListener("player", render, { signal });
  filter.addEventListener("input", render);

  replace(
    app.main,
    h("h1", { tabindex: "-1", id: "games-heading", text: "Games" }),
    h(
      "form",
      { class: "create-form", on: { submit: create }, "aria-describedby": "create-error" },
      h("label", { for: "new-game-name", text: "New game" }),
      h("div", { class: "row" }, nameInput, createButton),
      createError,
    ),
    h("div", { class: "list-head" }, h("label", { for: "filter", class: "visually-hidden", text: "Filter games" }), filter, summary),
    list,
  );
  render();
}

// A game's history: its committed moves in order, each with the board it left; click a move,
// or use the arrow keys on the list, to see the board after it, and follow it to its transaction. A name created again after a
// delete has had several games: each is listed.

import { history } from "./api.js";
import { BoardView } from "./board.js";
import { transactionHref } from "./chain.js";
import { h, replace, shown } from "./dom.js";
import { gridName, playerLabel, stateText } from "./labels.js";

const REFRESH_MS = 300;

function stepText(move) {
  const who = playerLabel(move.player, move.player_name);
  if (move.action === "take" && move.space !== null && move.game) {
    const mark = move.game.board[move.space - 1];
    return `${who} took ${gridName(move.space)} (${move.space}) as ${mark}`;
  }
  return `${who} ${move.action === "create" ? "created the game" : move.action === "delete" ? "deleted the game" : move.action}`;
}

export function mount(app, name, signal) {
  const heading = h("h1", { tabindex: "-1", text: "History" });
  const body = h("div", { class: "history" }, h("p", { text: "Reading the chain…" }));
  let record = null;
  let selected = null; // {game: index, move: index}
  let timer = null;

  async function load() {
    try {
      record = await history(name ?? "");
    } catch (error) {
      replace(body, h("p", { class: "error", role: "alert", text: error.message }));
      return;
    }
    const games = record.games;
    const atEnd = !selected || isLast(selected);
    if (games.length && atEnd) {
      const lastGame = games.length - 1;
      selected = { game: lastGame, move: games[lastGame].moves.length - 1 };
    }
    render();
  }

  function isLast(choice) {
    const games = record?.games ?? [];
    return choice.game === games.length - 1 && choice.move === games[choice.game].moves.length - 1;
  }

  function render() {
    document.title = `xo · history of ${record.shown}`;
    replace(heading, "History of ", shown(record.shown));
    const games = record.games;
    if (!games.length) {
      replace(body, h("p", { text: "This name has no game on the chain (yet)." }));
      return;
    }
    const me = app.me();
    const sections = games.map((game, gameIndex) => {
      const items = game.moves.map((move, moveIndex) => {
        const current = selected?.game === gameIndex && selected?.move === moveIndex;
        return h(
          "li",
          {},
          h(
            "button",
            {
              type: "button",
              class: "step",
              "aria-current": current ? "step" : null,
              tabindex: current ? "0" : "-1",
              dataset: { game: String(gameIndex), move: String(moveIndex) },
              on: { click: () => choose(gameIndex, moveIndex, true), keydown: (event) => key(event, gameIndex, moveIndex) },
            },
            h("span", { class: "block-number", text: `block ${move.block_num}` }),
            " ",
            stepText(move),
          ),
        );
      });
      const ending = game.deleted ? "Deleted" : stateText(game.game, me);
      return h(
        "section",
        { class: "history-game", "aria-label": `Game ${game.number} of ${games.length}` },
        h("h2", { text: games.length > 1 ? `Game ${game.number} of ${games.length}` : "Moves" }),
        h("p", { class: "game-ending", text: ending }),
        h("ol", { class: "steps" }, items),
      );
    });
    const chosen = games[selected.game].moves[selected.move];
    const board = new BoardView({ label: "Board after the chosen move", size: "medium" });
    board.update(chosen.game ? chosen.game.board : "---------", { last: chosen.action === "take" ? chosen.space : null });
    const caption = chosen.game ? `After ${stepText(chosen)}: ${stateText(chosen.game, me)}` : "After the game was deleted";
    const problems = record.problems.map((problem) => h("li", { text: problem }));
    replace(
      body,
      h(
        "div",
        { class: "history-board" },
        board.element,
        h("p", { class: "caption", "aria-live": "polite", text: caption }),
        h("p", { class: "transaction-link" }, h("a", { href: transactionHref(chosen.transaction_id), text: "This move's transaction on the chain" })),
      ),
      h("div", { class: "history-steps" }, sections),
      problems.length ? h("ul", { class: "problems", "aria-label": "Moves left out" }, problems) : null,
    );
  }

  function choose(gameIndex, moveIndex, focus) {
    selected = { game: gameIndex, move: moveIndex };
    render();
    if (focus) body.querySelector(`.step[data-game="${gameIndex}"][data-move="${moveIndex}"]`)?.focus();
  }

  function key(event, gameIndex, moveIndex) {
    const flat = record.games.flatMap((game, g) => game.moves.map((_, m) => [g, m]));
    const at = flat.findIndex(([g, m]) => g === gameIndex && m === moveIndex);
    const next = { ArrowDown: at + 1, ArrowRight: at + 1, ArrowUp: at - 1, ArrowLeft: at - 1, Home: 0, End: flat.length - 1 }[event.key];
    if (next === undefined) return;
    event.preventDefault();
    const [g, m] = flat[Math.max(0, Math.min(flat.length - 1, next))];
    choose(g, m, true);
  }

  app.live.addEventListener(
    "games",
    (event) => {
      if (!event.detail.changes.some((change) => change.name === name)) return;
      clearTimeout(timer);
      timer = setTimeout(load, REFRESH_MS);
    },
    { signal },
  );
  signal.addEventListener("abort", () => clearTimeout(timer));

  replace(
    app.main,
    h("p", { class: "back" }, h("a", { href: `#/game/${encodeURIComponent(name ?? "")}`, text: "← Back to the game" })),
    heading,
    body,
  );
  load();
}

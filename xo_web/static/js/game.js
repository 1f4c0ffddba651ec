// One game: the board to play on, who plays, whose turn it is, and each move as it commits.
// Moves: click a space, or type 1-9 or A1-C3 anywhere on the page, or use the arrow keys and
// Enter on the board. The server checks a move with the processor's own rules before it signs
// it; a refusal is shown in words, as the server gives it.

import { move, startComputer, stopComputer } from "./api.js";
import { BoardView } from "./board.js";
import { transactionsLink } from "./chain.js";
import { h, replace, shown } from "./dom.js";
import { changeText, gridName, isOver, parseSpace, playerLabel, seat, sentence, stateText } from "./labels.js";

const TYPING_TARGETS = new Set(["INPUT", "SELECT", "TEXTAREA"]);

export function mount(app, name, signal) {
  const heading = h("h1", { tabindex: "-1" });
  const seats = h("dl", { class: "seats" });
  const status = h("p", { class: "game-status", id: "game-status", "aria-live": "polite" });
  const announcer = h("p", { class: "visually-hidden", "aria-live": "polite", id: "announcer" });
  const error = h("p", { class: "error", role: "alert", id: "move-error" });
  const note = h("p", { class: "note", id: "move-note" });
  const board = new BoardView({ label: "Board", onTake: (space) => take(space) });
  const historyLink = h("a", { class: "button", href: `#/history/${encodeURIComponent(name ?? "")}`, text: "History" });
  const deleteButton = h("button", { type: "button", class: "danger", text: "Delete game", on: { click: askDelete } });
  const actions = h("div", { class: "actions" }, historyLink, transactionsLink("game", name ?? ""), deleteButton);
  const computer = computerPanel(app, name, (message) => (error.textContent = message));
  const help = h("p", { class: "help", id: "move-help", text: "Click a space, or type 1-9 or A1-C3. On the board, the arrow keys move and Enter takes." });
  let pending = null;
  let last = null;
  let letter = null;
  let confirmingDelete = false;

  function current() {
    return name === null ? null : app.live.game(name);
  }

  function render() {
    const game = current();
    if (!game) {
      document.title = "xo · game";
      heading.textContent = app.live.ready ? "No such game" : "Loading…";
      replace(seats);
      status.textContent = app.live.ready
        ? "There is no game by this name (yet): it appears here as soon as someone creates it."
        : "";
      board.element.hidden = true;
      actions.hidden = true;
      computer.element.hidden = true;
      help.hidden = true;
      return;
    }
    document.title = `xo · ${game.shown}`;
    replace(heading, "Game ", shown(game.shown));
    const me = app.me();
    replace(
      seats,
      [seat(game, 1), seat(game, 2)].map((player) => [
        h("dt", { class: `mark-${player.mark}`, text: player.mark }),
        h("dd", {}, playerLabel(player.key, player.name), player.key && player.key === me ? h("strong", { text: " (you)" }) : null),
      ]),
    );
    status.textContent = stateText(game, me);
    status.dataset.over = String(isOver(game));
    board.element.hidden = false;
    help.hidden = isOver(game); // how to move: only while there are moves to make
    actions.hidden = false;
    computer.render(game);
    board.update(game.board, { last, pending, active: !isOver(game) && pending === null });
  }

  async function take(space) {
    const game = current();
    const player = app.player();
    if (!game || pending !== null) return;
    if (!player) {
      error.textContent = "Choose a key to play as first (make one with xo keygen).";
      return;
    }
    pending = space;
    error.textContent = "";
    note.textContent = `Sending ${gridName(space)} (${space})…`;
    render();
    try {
      const { body } = await move(player.name, "take", name, space);
      note.textContent = body.message;
    } catch (failure) {
      note.textContent = "";
      error.textContent = failure.message;
    } finally {
      pending = null;
      render();
    }
  }

  async function askDelete() {
    const player = app.player();
    if (!player) {
      error.textContent = "Choose a key to play as first (make one with xo keygen).";
      return;
    }
    if (!confirmingDelete) {
      confirmingDelete = true;
      deleteButton.textContent = "Really delete? Click again";
      setTimeout(() => {
        confirmingDelete = false;
        deleteButton.textContent = "Delete game";
      }, 4000);
      return;
    }
    confirmingDelete = false;
    deleteButton.disabled = true;
    try {
      await move(player.name, "delete", name);
      location.hash = "#/";
    } catch (failure) {
      error.textContent = failure.message;
    } finally {
      deleteButton.disabled = false;
      deleteButton.textContent = "Delete game";
    }
  }

  function typed(event) {
    if (event.ctrlKey || event.metaKey || event.altKey || TYPING_TARGETS.has(event.target.tagName)) return;
    if (letter && /^[1-3]$/.test(event.key)) {
      const space = parseSpace(letter + event.key);
      letter = null;
      event.preventDefault();
      take(space);
      return;
    }
    if (/^[a-cA-C]$/.test(event.key)) {
      letter = event.key;
      note.textContent = `${letter.toUpperCase()}… (type the row: 1, 2 or 3)`;
      return;
    }
    letter = null;
    if (/^[1-9]$/.test(event.key)) {
      event.preventDefault();
      take(Number(event.key));
    }
  }

  app.live.addEventListener(
    "games",
    (event) => {
      const mine = event.detail.changes.filter((change) => change.name === name);
      const taken = mine.filter((change) => change.action === "take");
      if (taken.length) last = taken[taken.length - 1].space;
      if (event.detail.snapshot) last = null;
      if (mine.length) {
        const game = current();
        const said = mine.map(changeText).join("; ");
        announcer.textContent = game ? `${sentence(said)} ${sentence(stateText(game, app.me()))}` : `The game was ${said}.`;
      }
      render();
    },
    { signal },
  );
  app.addEventListener("player", render, { signal });
  app.live.addEventListener("computer", render, { signal });
  document.addEventListener("keydown", typed, { signal });

  replace(
    app.main,
    h("p", { class: "back" }, h("a", { href: "#/", text: "← All games" })),
    heading,
    h(
      "div",
      { class: "game-layout" },
      seats,
      status,
      board.element,
      note,
      error,
      announcer,
      computer.element,
      actions,
      help,
    ),
  );
  render();
}

// "Play against the computer": the server's computer player (xo bot's seat core, with its own key, xo-ai)
// takes the open seat and answers each move; a level to choose; stop it at any time.
function computerPanel(app, name, showError) {
  const levels = app.session.levels;
  const level = h(
    "select",
    { id: "computer-level" },
    levels.map((value) => h("option", { value, text: value })),
  );
  const state = h("p", { class: "computer-state", id: "computer-state" });
  const start = h("button", { type: "button", class: "primary", text: "Play against the computer", on: { click: begin } });
  const stop = h("button", { type: "button", text: "Stop the computer", on: { click: end } });
  const choice = h("label", { class: "computer-level" }, "Level ", level);
  const element = h(
    "section",
    { class: "computer", "aria-labelledby": "computer-heading" },
    h("h2", { id: "computer-heading", text: "The computer" }),
    state,
    h("div", { class: "actions" }, choice, start, stop),
  );

  async function begin() {
    start.disabled = true;
    showError("");
    try {
      await startComputer(name, level.value);
    } catch (failure) {
      showError(failure.message);
    } finally {
      start.disabled = false;
    }
  }

  async function end() {
    try {
      await stopComputer(name);
    } catch (failure) {
      showError(failure.message);
    }
  }

  function render(game) {
    const seat = app.live.computer.get(name);
    const active = Boolean(seat?.active);
    const seated = Boolean(game.player1 && game.player2); // no seat left for it to take
    element.hidden = (isOver(game) || seated) && !active && !seat?.message;
    choice.hidden = active || isOver(game) || seated;
    start.hidden = active || isOver(game) || seated;
    stop.hidden = !active;
    if (active) {
      const first = !game.player1 ? " Make the first move: it answers as O." : "";
      state.textContent = `The computer plays here, level ${seat.level}.${first}`;
    } else {
      state.textContent = seat?.message ?? "Let the computer take the open seat and answer your moves (with its own key, xo-ai).";
    }
  }

  return { element, render };
}

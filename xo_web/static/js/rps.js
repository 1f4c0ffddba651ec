// One rock-paper-scissors game: its players and scores, what it waits for, the rounds played, and
// your part: join, get ready, throw (r, p or s on the keyboard), claim, resign. Your throw is sent to
// the local server, which keeps it in your rps vault and commits only its salted hash; it reveals the
// throw once both players have committed, so nobody sees a throw before both are bound to theirs.

import { rps } from "./api.js";
import { h, replace, shown } from "./dom.js";
import { transactionsLink } from "./chain.js";
import { throwIcon } from "./icons.js";
import { shortKey } from "./labels.js";
import { duration } from "./time.js";
import {
  THROWS,
  nextText,
  opening,
  outcomeText,
  roundText,
  seatLabel,
  seatStatus,
  settingsText,
  who,
} from "./rps_labels.js";

const TYPING_TARGETS = new Set(["INPUT", "SELECT", "TEXTAREA"]);
const THROW_KEYS = { r: "rock", p: "paper", s: "scissors" };

function button(text, send, className = "") {
  return h("button", { type: "button", class: className, text, on: { click: send } });
}

export function mount(app, name, signal) {
  const heading = h("h1", { tabindex: "-1" });
  const settings = h("p", { class: "rps-settings", id: "rps-settings" });
  const seats = h("dl", { class: "seats rps-seats" });
  const status = h("p", { class: "game-status", id: "rps-status", "aria-live": "polite" });
  const claim = h("p", { class: "note", id: "rps-claim" });
  const note = h("p", { class: "note", id: "rps-note" });
  const error = h("p", { class: "error", role: "alert", id: "rps-error" });
  const announcer = h("p", { class: "visually-hidden", "aria-live": "polite", id: "rps-announcer" });
  const throws = h(
    "div",
    { class: "throws", role: "group", "aria-label": "Your throw" },
    THROWS.map((throw_) =>
      h(
        "button",
        { type: "button", class: "throw", dataset: { throw: throw_ }, on: { click: () => send("throw", { throw: throw_ }) } },
        throwIcon(throw_),
        ` ${throw_}`,
      ),
    ),
  );
  const buttons = {
    join: button("Join the game", () => send("join"), "primary"),
    ready: button("I'm ready", () => send("ready"), "primary"),
    reveal: button("Reveal my throw", () => send("reveal")),
    claim: button("Claim the game", () => send("claim"), "primary"),
    resign: button("Resign", () => send("resign"), "danger"),
    delete: button("Delete game", () => send("delete"), "danger"),
  };
  const points = h("select", { id: "rps-points" }, [1, 2, 3].map((value) => h("option", { value, text: String(value) })));
  const timeout = h("input", { id: "rps-timeout", type: "number", min: "1", max: "604800", inputmode: "numeric" });
  const changeSettings = (event) => {
    event.preventDefault();
    send("setup", { points: Number(points.value), timeout: Number(timeout.value) });
  };
  const setup = h(
    "form",
    { class: "rps-setup", on: { submit: changeSettings } },
    h("label", { for: "rps-points", text: "First to" }),
    points,
    h("label", { for: "rps-timeout", text: "Seconds to act" }),
    timeout,
    h("button", { type: "submit", text: "Change the settings" }),
  );
  const actions = h("div", { class: "actions" }, Object.values(buttons));
  const roundsHeading = h("h2", { text: "Rounds" });
  const rounds = h("ol", { class: "rounds", "aria-label": "Rounds played" });
  const help = h("p", {
    class: "help",
    id: "rps-help",
    text: "Throw with the buttons, or type r, p or s. Your throw stays secret until both players have thrown.",
  });
  let busy = false;
  let thrownHere = null; // the round this page threw in: its reveal is the server's to make
  let clock = null;

  function current() {
    return name === null ? null : app.live.rpsGame(name);
  }

  function mine(game) {
    const me = app.me();
    return game.players.find((player) => player.key === me) ?? null;
  }

  function render() {
    clearTimeout(clock);
    const game = current();
    if (!game) {
      document.title = "xo · rock-paper-scissors";
      heading.textContent = app.live.ready ? "No such game" : "Loading…";
      status.textContent = app.live.ready ? "There is no rock-paper-scissors game by this name (yet)." : "";
      for (const element of [settings, seats, throws, setup, actions, roundsHeading, rounds, claim, help]) element.hidden = true;
      return;
    }
    const me = app.me();
    const you = mine(game);
    document.title = `xo · ${game.shown}`;
    replace(heading, "Rock-paper-scissors ", shown(game.shown));
    settings.hidden = false;
    settings.textContent = opening(settingsText(game.settings));
    seats.hidden = false;
    replace(
      seats,
      [0, 1].map((seat) => {
        const player = game.players[seat];
        if (!player) return [h("dt", { text: `Player ${seat + 1}` }), h("dd", { text: "open seat" })];
        return [
          h("dt", { text: seat === 0 ? "Host" : "Player 2" }),
          h("dd", {}, seatLabel(player), player.key === me ? h("strong", { text: " (you)" }) : null, `: ${seatStatus(game, player)}`),
        ];
      }),
    );
    const over = outcomeText(game, me, true);
    status.textContent = over ?? nextText(game, me);
    status.dataset.over = String(game.state === "CONCLUDED");
    const playing = game.state === "PLAYING_GAME";
    const due = (action) => game.next.some((step) => step.action === action && step.player === me && me !== null);
    const bothCommitted = playing && game.players.every((player) => player.committed);
    throws.hidden = !due("commit");
    help.hidden = !(playing && you); // how to throw: for the players, while there are throws to make
    buttons.join.hidden = !(game.state === "AWAITING_HOST" || (game.state === "AWAITING_GAME" && game.players.length < 2)) || Boolean(you);
    buttons.ready.hidden = !due("ready");
    buttons.reveal.hidden = !(bothCommitted && you && !you.throw && thrownHere !== game.round);
    buttons.claim.hidden = true;
    buttons.resign.hidden = !(playing && you);
    buttons.delete.hidden = !(game.host === me && me !== null && !playing);
    setup.hidden = !(game.host === me && me !== null && (game.state === "AWAITING_HOST" || game.state === "AWAITING_GAME"));
    if (!setup.contains(document.activeElement)) {
      points.value = String(game.settings.points);
      timeout.value = String(game.settings.timeout);
    }
    actions.hidden = false;
    claim.hidden = true;
    if (game.claim && game.claim.player === me && me !== null) {
      claim.hidden = false;
      const wait = game.claim.from === null ? null : game.claim.from - Date.now() / 1000;
      if (wait === null) claim.textContent = "No time-out is running (the network kept no BlockInfo), so you cannot claim.";
      else if (wait <= 0) {
        claim.textContent = `${who(game.claim.against, game, me)} has not acted within the time-out: you may claim the game.`;
        buttons.claim.hidden = false;
      } else {
        claim.textContent = `If ${who(game.claim.against, game, me)} does not act, you may claim the game in ${duration(wait)}.`;
        clock = setTimeout(render, 1000);
      }
    }
    for (const button of Object.values(buttons)) button.disabled = busy;
    for (const button of throws.querySelectorAll("button")) button.disabled = busy;
    rounds.hidden = roundsHeading.hidden = !game.history.length;
    replace(rounds, game.history.map((_, index) => h("li", { text: roundText(game, index + 1, me, true) })));
  }

  async function send(op, fields = {}) {
    const player = app.player();
    const game = current();
    if (!player) {
      error.textContent = "Choose a key to play as first (make one with xo keygen).";
      return;
    }
    busy = true;
    error.textContent = "";
    note.textContent = op === "throw" ? `Throwing ${fields.throw}…` : "Sending…";
    render();
    try {
      // An op is signed for the moment of the game shown (docs/rps-family.md, "Moments"): if the game has
      // moved on since, the server refuses it, naming both moments, rather than sign for one not seen.
      const shown = game && op !== "reveal" ? { round: game.round, phase: game.phase } : {};
      const { body } = await rps(player.name, op, name, { ...shown, ...fields });
      note.textContent = body.message;
      if (op === "throw" && game) thrownHere = game.round || 1;
      if (op === "delete") location.hash = "#/";
    } catch (failure) {
      note.textContent = "";
      error.textContent = failure.message;
    } finally {
      busy = false;
      render();
    }
  }

  function typed(event) {
    if (event.ctrlKey || event.metaKey || event.altKey || TYPING_TARGETS.has(event.target.tagName)) return;
    const throw_ = THROW_KEYS[event.key.toLowerCase()];
    if (throw_ && !throws.hidden && !busy) {
      event.preventDefault();
      send("throw", { throw: throw_ });
    }
  }

  app.live.addEventListener(
    "games",
    (event) => {
      const told = event.detail.rpsChanges.filter((change) => change.name === name && change.change !== "snapshot");
      if (told.length) announcer.textContent = `${told.map((change) => changeText(change, app.me())).join(". ")}.`;
      render();
    },
    { signal },
  );
  app.live.addEventListener(
    "rps_note",
    (event) => {
      // Each reveal is told to the pages playing as its player: "Revealed rock ..." is theirs.
      if (event.detail.name === name && event.detail.player === app.player()?.name) note.textContent = event.detail.message;
    },
    { signal },
  );
  app.addEventListener("player", render, { signal });
  document.addEventListener("keydown", typed, { signal });
  signal.addEventListener("abort", () => clearTimeout(clock));

  replace(
    app.main,
    h("p", { class: "back" }, h("a", { href: "#/", text: "← All games" })),
    heading,
    settings,
    seats,
    status,
    throws,
    claim,
    note,
    error,
    announcer,
    actions,
    h("p", { class: "actions" }, transactionsLink("rps", name ?? "")),
    setup,
    roundsHeading,
    rounds,
    help,
  );
  render();
}

/**
 * One change as a sentence for screen readers: "bob has thrown in round 1", "You are ready",
 * "Round 1: you rock, bob scissors: you won the round". Players are named as everywhere on the page (rps_labels.js).
 */
function changeText(change, me) {
  const game = change.game;
  const you = change.player !== null && change.player === me;
  const player = change.player ? (you ? "You" : (change.player_name ?? shortKey(change.player))) : "";
  switch (change.change) {
    case "created":
      return "The game was created";
    case "joined":
      return `${player} joined`;
    case "ready":
      return `${player} ${you ? "are" : "is"} ready`;
    case "set-up":
      return `${player} changed the settings`;
    case "started":
      return "Play starts, round 1";
    case "committed":
      return `${player} ${you ? "have" : "has"} thrown in round ${change.round}`;
    case "revealed":
      return `${player} revealed ${change.throws?.[0]}`;
    case "round":
      return game && game.history.length >= change.round ? `Round ${change.round}: ${roundText(game, change.round, me)}` : `Round ${change.round} is over`;
    case "deleted":
      return "The game was deleted";
    default:
      return game ? `The game is over: ${outcomeText(game, me)}` : "The game is over";
  }
}

// A staked match in a channel (#/channel/ID): its terms, both balances, the stake per game or round, a
// challenge's countdown, and the match itself. "Play" has the local server play your side (the chips
// client's match loop, as `chips play` runs it); your moves go from here to it, and every state either
// player signs arrives as a "chips" event at once, through the broker, long before any block.

import { chips, chipsOf } from "./api.js";
import { BoardView } from "./board.js";
import { transactionsLink } from "./chain.js";
import { capitalized, clockTime, countdown, deadlineCountdown, gameName, opponentLabel, opponentName, roundsText, stakeText, statusText, tick } from "./chips.js";
import { h, replace, shown } from "./dom.js";
import { throwIcon } from "./icons.js";
import { THROWS } from "./rps_labels.js";

const MAX_LINES = 50;
const THROW_KEYS = { r: "rock", p: "paper", s: "scissors" };

/** What the match shows in words: whose move, the position, and who won the last game or round; the server's
 * words for the position and the score (`state.words`) when it sent them. */
export function positionText(state, game, opponent = "your opponent") {
  if (!state) return "";
  // A final state keeps the position before it, so the last round's throws are still there to show.
  const reveal = state.throws ? `Round ${state.round}: you threw ${state.throws[0]}, ${opponent} ${state.throws[1]}. ` : "";
  if (state.words) return `${reveal}${capitalized(state.words)}.`;
  if (state.final) {
    return `${reveal}The match is over: you end with ${state.balances[0]} chips in the channel, ${opponent} with ${state.balances[1]}.`;
  }
  const turn = state.next_is_mine ? "Your move" : `${capitalized(opponent)}'s move`;
  if (game === "xo") {
    const said = { Victory: "The game is won.", Draw: "The game is a draw." }[state.position] ?? "";
    return `${said} ${turn}.`.trim();
  }
  const sealed = state.position === "RoundProposed" ? `Round ${state.round}: the first throw is sealed. ` : "";
  return `${reveal}${sealed}${turn}.`;
}

export function mount(app, id, signal) {
  document.title = "xo · channel";
  const heading = h("h1", { tabindex: "-1", text: "Channel" });
  const terms = h("p", { class: "channel-terms", id: "channel-terms" });
  const status = h("p", { class: "channel-status", id: "channel-status" });
  const balances = h("dl", { class: "seats chips-balances", id: "chips-balances" });
  const position = h("p", { class: "game-status", id: "chips-position", "aria-live": "polite" });
  const error = h("p", { class: "error", role: "alert", id: "chips-error" });
  const playButton = h("button", { type: "button", class: "primary", id: "chips-play", text: "Play", hidden: true });
  const challengeButton = h("button", { type: "button", id: "chips-challenge", text: "Challenge", hidden: true });
  const finalizeButton = h("button", { type: "button", id: "chips-finalize", text: "Finalize", hidden: true });
  const chainNote = h("p", { class: "note", id: "chips-chain-note" });
  // A challenge waiting on your move: its deadline counted down, and when the computer plays it for you.
  const urgent = h("p", { class: "error urgent", id: "chips-urgent", role: "alert", hidden: true });
  const board = new BoardView({ label: "Board", onTake: (space) => send({ space }) });
  const throws = h(
    "div",
    { class: "throws", role: "group", "aria-label": "Your throw", hidden: true },
    THROWS.map((throw_) =>
      h("button", { type: "button", class: "throw", dataset: { throw: throw_ }, on: { click: () => send({ throw: throw_ }) } }, throwIcon(throw_), ` ${throw_}`),
    ),
  );
  const log = h("ol", { class: "chips-log", id: "chips-log", "aria-label": "What the match said" });
  // Shown with the first line the match says: a closed channel's page does not end with an empty heading.
  const logHeading = h("h2", { id: "chips-log-heading", text: "The match", hidden: true });
  let channel = null;
  let skew = 0;
  let wanted = null;

  async function send(move) {
    error.textContent = "";
    if (!wanted) {
      error.textContent = "It is not your move: wait for your opponent.";
      return;
    }
    try {
      await chips("move", app.player().name, { channel: id, ...move });
    } catch (failure) {
      error.textContent = failure.message;
    }
  }

  async function play() {
    playButton.disabled = true;
    error.textContent = "";
    try {
      await chips("play", app.player().name, { channel: id });
    } catch (failure) {
      error.textContent = failure.message;
      playButton.disabled = false;
    }
  }
  playButton.addEventListener("click", play);

  // The player's call on a silent opponent: challenge with the newest state held; once the deadline has passed
  // unanswered, finalize (a match the server plays finalizes by itself).
  async function toChain(path, button) {
    button.disabled = true;
    error.textContent = "";
    try {
      const { body } = await chips(path, app.player().name, { channel: id });
      chainNote.textContent = body.message;
    } catch (failure) {
      error.textContent = failure.message;
    } finally {
      button.disabled = false;
    }
  }
  challengeButton.addEventListener("click", () => toChain("challenge", challengeButton));
  finalizeButton.addEventListener("click", () => toChain("finalize", finalizeButton));

  // Before any move only the joiner may challenge (the chain's own turn 0): the first move is the opener's.
  function showChainActions() {
    const running = channel?.status === "running";
    const state = channel?.state;
    const holdable = state && (state.turn > 0 || !state.next_is_mine);
    challengeButton.hidden = !running || Boolean(channel.challenge) || !holdable;
    finalizeButton.hidden = !running || !channel.challenge?.by_me;
  }

  function showBalances(state) {
    if (!channel) return;
    const mine = state ? state.balances : channel.deposits;
    replace(
      balances,
      h("dt", { text: "You" }),
      h("dd", { class: "balance-mine", text: `${mine[0]} chips` }),
      h("dt", { text: opponentLabel(channel) }),
      h("dd", { class: "balance-theirs", text: `${mine[1]} chips` }),
      h("dt", { text: "Stake" }),
      h("dd", { class: "stake", text: stakeText(channel) }),
    );
  }

  function showUrgent() {
    urgent.hidden = !wanted?.deadline;
    if (urgent.hidden) return;
    const opponent = channel ? capitalized(opponentName(channel)) : "Your opponent";
    const computer = wanted.computer_at
      ? ` If you have not moved by ${clockTime(wanted.computer_at, skew)}, the computer plays it for you.`
      : " Nobody plays it for you.";
    replace(urgent, `${opponent} challenged you: your move must be on chain`, deadlineCountdown(wanted.deadline, skew), computer);
  }

  function showState(state, match) {
    wanted = match?.playing ? match.wanted : null;
    showUrgent();
    showBalances(state);
    position.textContent = positionText(state, channel?.game, channel ? opponentName(channel) : undefined);
    if (channel?.game === "xo") {
      board.update(state?.board ?? "---------", { active: wanted !== null });
      board.element.dataset.wanted = String(wanted !== null);
    } else {
      throws.hidden = !wanted;
    }
    const playing = Boolean(match?.playing);
    playButton.hidden = playing || !channel || channel.status !== "running";
    playButton.disabled = false;
  }

  function say(line) {
    if (!line) return;
    logHeading.hidden = false;
    log.prepend(h("li", { text: line }));
    while (log.children.length > MAX_LINES) log.lastChild.remove();
  }

  async function read() {
    const player = app.player();
    if (!player) return;
    try {
      const view = await chipsOf(player.name);
      if (signal.aborted) return;
      skew = Date.now() / 1000 - view.now;
      channel = view.channels.find((found) => found.id === id) ?? null;
      if (!channel) {
        replace(heading, "Channel not found");
        status.textContent = "You take part in no channel with this id: the Chips page lists yours.";
        return;
      }
      document.title = `xo · channel ${channel.shown}`;
      replace(heading, "Channel ", shown(channel.shown));
      terms.textContent = `${gameName(channel.game)}, ${stakeText(channel)}, ${roundsText(channel)}; deposits ${channel.deposits[0]} and ${channel.deposits[1]}.`;
      replace(status, statusText(channel), countdown(channel, skew));
      showChainActions();
      const match = app.live.match(app.me(), id);
      showState(match?.state ?? channel.state, match);
    } catch (failure) {
      if (!signal.aborted) error.textContent = failure.message;
    }
  }

  replace(
    app.main,
    h("p", { class: "back" }, h("a", { href: "#/chips", text: "← Your chips" })),
    heading,
    terms,
    status,
    balances,
    h("div", { class: "actions" }, playButton, challengeButton, finalizeButton, transactionsLink("channel", id ?? "")),
    chainNote,
    urgent,
    position,
    channel?.game === "rps" ? null : board.element,
    throws,
    error,
    logHeading,
    log,
  );
  read().then(() => {
    if (channel?.game === "rps") board.element.remove();
    else throws.remove();
  });
  tick(app.main, () => skew, signal);
  app.live.addEventListener("chips", (event) => {
    const match = event.detail;
    if (match.channel !== id || match.player !== app.me()) return;
    say(match.line);
    if (channel && match.state) {
      channel.state = match.state;
      showChainActions();
    }
    if (match.state) showState(match.state, match);
    else showState(channel?.state ?? null, match);
    if (!match.playing) read();
  }, { signal });
  app.live.addEventListener("games", () => {
    if (channel && channel.status !== "running") read();
    else if (channel) readChain();
  }, { signal });
  app.addEventListener("player", read, { signal });
  document.addEventListener("keydown", (event) => {
    if (event.target.closest?.("input, select, textarea")) return;
    if (channel?.game === "xo" && /^[1-9]$/.test(event.key)) send({ space: Number(event.key) });
    else if (channel?.game === "rps" && THROW_KEYS[event.key]) send({ throw: THROW_KEYS[event.key] });
  }, { signal });

  // A block while the match runs changes only what the chain says (a challenge, the close): its status line.
  let chainReading = false;
  async function readChain() {
    if (chainReading) return;
    chainReading = true;
    try {
      const view = await chipsOf(app.player().name);
      const found = view.channels.find((candidate) => candidate.id === id);
      if (found && !signal.aborted) {
        channel = found;
        skew = Date.now() / 1000 - view.now;
        replace(status, statusText(channel), countdown(channel, skew));
        showChainActions();
      }
    } catch {
      // the next block tries again
    } finally {
      chainReading = false;
    }
  }
}

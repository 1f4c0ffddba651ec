// What rps games say to a person: players, where a game stands, rounds and results. Pure: games in, text out.
// The wording follows the rps command's (rps_cli/render.py). A player is "you" or their key's name exactly as
// it was typed: a sentence that starts with a key's name starts in its spelling ("alice won 1-0"), never
// capitalised; "You" takes its own verbs ("You are ready", "You have thrown").

import { shortKey } from "./labels.js";

export const THROWS = ["rock", "paper", "scissors"];
const BEATS = { rock: "scissors", scissors: "paper", paper: "rock" };
const ACTIONS = { join: "join", ready: "get ready", commit: "throw", reveal: "reveal" };

/** A player in a sentence: "you", the key's name, else its first characters. */
export function who(key, game, me) {
  if (key && key === me) return "you";
  const player = game.players.find((seat) => seat.key === key);
  return player?.name ?? shortKey(key ?? "");
}

/** A player opening a sentence: "You", or the key's name as it is. */
export function subject(player) {
  return player === "you" ? "You" : player;
}

/** Text opening a sentence with a word of the page's own (never a player's name): its first letter capitalised. */
export function opening(text) {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** "alice (0208fb…)" for a seat's list entry. */
export function seatLabel(player) {
  return player.name ? `${player.name} (${shortKey(player.key)})` : shortKey(player.key);
}

export function settingsText(settings) {
  const points = `first to ${settings.points} point${settings.points === 1 ? "" : "s"}`;
  return `${points}, ${settings.timeout} seconds to act`;
}

/** 0 or 1 for the seat whose throw wins, null for a tie. */
export function roundWinner(throws) {
  if (throws[0] === throws[1]) return null;
  return BEATS[throws[0]] === throws[1] ? 0 : 1;
}

/** A round, "alice rock, you scissors: alice won the round"; with `starts`, as a sentence's start ("You rock, ..."). */
export function roundText(game, number, me, starts = false) {
  const throws = game.history[number - 1];
  const [first, second] = game.players.map((player) => who(player.key, game, me));
  const winner = roundWinner(throws);
  const result = winner === null ? "a tie" : `${[first, second][winner]} won the round`;
  return `${starts ? subject(first) : first} ${throws[0]}, ${second} ${throws[1]}: ${result}`;
}

/**
 * How a concluded game ended, said to `me`: "you won 2-1", "bob resigned: alice won", "a draw at 3-3 ...";
 * with `starts`, as a sentence's start: "You won 2-1", "A draw at ...", "bob resigned: alice won".
 */
export function outcomeText(game, me, starts = false) {
  if (game.state !== "CONCLUDED" || !game.results) return null;
  const names = game.players.map((player) => who(player.key, game, me));
  const outcomes = game.results.map((result) => result.outcome);
  const scores = game.results.map((result) => result.final_score);
  const start = (name) => (starts ? subject(name) : name);
  if (outcomes[0] === "drew") return `${starts ? "A" : "a"} draw at ${scores[0]}-${scores[1]} after round ${game.round}`;
  const winner = outcomes.indexOf("won");
  const loser = 1 - winner;
  if (game.conclusion_type === "by-resignation") return `${start(names[loser])} resigned: ${names[winner]} won`;
  if (game.conclusion_type === "by-timeout") return `${start(names[loser])} timed out: ${names[winner]} won`;
  return `${start(names[winner])} won ${scores[winner]}-${scores[loser]}`;
}

/** What the game waits for, said to `me` as a sentence: "You and bob must throw in round 2", "alice must get ready". */
export function nextText(game, me) {
  if (game.state === "CONCLUDED") return `The game is over: ${outcomeText(game, me)}`;
  if (game.state === "AWAITING_HOST") return "Anyone may join: the first player to join hosts the game";
  const clauses = [];
  for (const action of ["ready", "commit", "reveal"]) {
    const players = game.next.filter((step) => step.action === action && step.player).map((step) => who(step.player, game, me));
    if (!players.length) continue;
    players.sort((a, b) => (b === "you") - (a === "you")); // "you and bob", never "bob and you"
    if (!clauses.length) players[0] = subject(players[0]);
    const round = game.state === "PLAYING_GAME" ? ` in round ${game.round}` : "";
    clauses.push(`${players.join(" and ")} must ${ACTIONS[action]}${round}`);
  }
  if (game.next.some((step) => step.action === "join")) clauses.push(`${clauses.length ? "a" : "A"} second player may join`);
  return clauses.join("; ");
}

/** A seat's standing: score and step in play, ready or not before. */
export function seatStatus(game, player) {
  const points = `${player.score} point${player.score === 1 ? "" : "s"}`;
  if (game.state === "CONCLUDED" && game.results) {
    const result = game.results.find((entry) => entry.key === player.key);
    return `${result.outcome.replace("timed-out", "timed out")}, ${points}`;
  }
  if (game.state === "PLAYING_GAME") {
    if (player.throw) return `${points}, revealed ${player.throw}`;
    if (player.committed) return `${points}, has thrown (secret until both have)`;
    return `${points}, has not thrown yet`;
  }
  return player.ready ? "ready" : "not ready";
}

// What rps games say to a person: players, where a game stands, rounds and results. Pure: games in, text out.
// The wording follows the rps command's (rps_cli/render.py).

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

export function roundText(game, number, me) {
  const throws = game.history[number - 1];
  const [first, second] = game.players.map((player) => who(player.key, game, me));
  const winner = roundWinner(throws);
  const result = winner === null ? "a tie" : `${[first, second][winner]} won the round`;
  return `${first} ${throws[0]}, ${second} ${throws[1]}: ${result}`;
}

/** How a concluded game ended, said to `me`: "you won 2-1", "bob resigned: alice won", "a draw at 3-3 ...". */
export function outcomeText(game, me) {
  if (game.state !== "CONCLUDED" || !game.results) return null;
  const names = game.players.map((player) => who(player.key, game, me));
  const outcomes = game.results.map((result) => result.outcome);
  const scores = game.results.map((result) => result.final_score);
  if (outcomes[0] === "drew") return `a draw at ${scores[0]}-${scores[1]} after round ${game.round}`;
  const winner = outcomes.indexOf("won");
  const loser = 1 - winner;
  if (game.conclusion_type === "by-resignation") return `${names[loser]} resigned: ${names[winner]} won`;
  if (game.conclusion_type === "by-timeout") return `${names[loser]} timed out: ${names[winner]} won`;
  return `${names[winner]} won ${scores[winner]}-${scores[loser]}`;
}

/** What the game waits for, said to `me`: "you and bob must throw in round 2", "alice must get ready". */
export function nextText(game, me) {
  if (game.state === "CONCLUDED") return `The game is over: ${outcomeText(game, me)}`;
  if (game.state === "AWAITING_HOST") return "Anyone may join: the first player to join hosts the game";
  const clauses = [];
  for (const action of ["ready", "commit", "reveal"]) {
    const players = game.next.filter((step) => step.action === action && step.player).map((step) => who(step.player, game, me));
    if (!players.length) continue;
    const round = game.state === "PLAYING_GAME" ? ` in round ${game.round}` : "";
    clauses.push(`${players.join(" and ")} must ${ACTIONS[action]}${round}`);
  }
  if (game.next.some((step) => step.action === "join")) clauses.push("a second player may join");
  const text = clauses.join("; ");
  return text.charAt(0).toUpperCase() + text.slice(1);
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

/** "42 s", "4 min 12 s", "2 h 5 min". */
export function duration(seconds) {
  const total = Math.max(Math.ceil(seconds), 0);
  const hours = Math.floor(total / 3600);
  const minutes = Math.floor((total % 3600) / 60);
  const rest = total % 60;
  if (hours) return `${hours} h ${minutes} min`;
  if (minutes) return `${minutes} min ${rest} s`;
  return `${rest} s`;
}

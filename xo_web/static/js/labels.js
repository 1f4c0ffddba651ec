// What games say to a person: spaces, players, turns and results. Pure: games in, text out.
// The wording follows the xo command's (render.py), so the page and the terminal agree.

export const COLUMNS = "ABC";
export const ROWS = "123";
export const LINES = [
  [0, 1, 2], [3, 4, 5], [6, 7, 8],
  [0, 3, 6], [1, 4, 7], [2, 5, 8],
  [0, 4, 8], [2, 4, 6],
];

/** 5 -> "B2": column letter, row number. */
export function gridName(space) {
  const index = space - 1;
  return COLUMNS[index % 3] + ROWS[Math.floor(index / 3)];
}

/** "5", "b2", "B2" -> 5; anything else -> null (the same forms the xo command accepts). */
export function parseSpace(text) {
  if (/^[1-9]$/.test(text)) return Number(text);
  const match = /^([A-Ca-c])([1-3])$/.exec(text);
  if (!match) return null;
  return ROWS.indexOf(match[2]) * 3 + COLUMNS.indexOf(match[1].toUpperCase()) + 1;
}

export function shortKey(key) {
  return `${key.slice(0, 6)}…`;
}

/**
 * "alice" for a key the key directory names, else "0208fb…"; "nobody yet" for an open seat. A name alone, as the
 * commands show it (client_core/keys.py's key_label): the full key is the API's, and a title's where one is shown.
 */
export function playerLabel(key, name) {
  if (!key) return "nobody yet";
  return name || shortKey(key);
}

export function seat(game, number) {
  return number === 1
    ? { number, mark: "X", key: game.player1, name: game.player1_name }
    : { number, mark: "O", key: game.player2, name: game.player2_name };
}

/** 1 or 2 for the player to move, null once the game is over. */
export function nextPlayer(state) {
  return state === "P1-NEXT" ? 1 : state === "P2-NEXT" ? 2 : null;
}

export function isOver(game) {
  return nextPlayer(game.state) === null;
}

/** The indices of a completed line, if the board has one. */
export function winningLine(board) {
  return LINES.find(([a, b, c]) => board[a] !== "-" && board[a] === board[b] && board[b] === board[c]) ?? null;
}

/** The game's state in a sentence, said to `me` (a public key, or null). */
export function stateText(game, me) {
  const winner = game.state === "P1-WIN" ? 1 : game.state === "P2-WIN" ? 2 : null;
  if (winner) {
    const won = seat(game, winner);
    return won.key && won.key === me
      ? `You won as ${won.mark}!`
      : `${won.mark} won: ${playerLabel(won.key, won.name)}`;
  }
  if (game.state === "TIE") return "A tie: the board is full and nobody won";
  const number = nextPlayer(game.state);
  if (number === null) return game.state;
  const mover = seat(game, number);
  if (!mover.key) return `${mover.mark} to play: the seat is open; the next to take a space joins as ${mover.mark}`;
  if (mover.key === me) return `Your turn: you play ${mover.mark}`;
  return `${mover.mark} to play: ${playerLabel(mover.key, mover.name)}`;
}

/** `text` ended as a sentence: a full stop, unless it already ends with one, a "!" or a "?". */
export function sentence(text) {
  return /[.!?]$/.test(text) ? text : `${text}.`;
}

/** One change as a sentence: "bob took B2 (5) as O". */
export function changeText(change) {
  if (change.action === "take" && change.game) {
    const mark = change.game.board[change.space - 1];
    return `${playerLabel(change.player, change.player_name)} took ${gridName(change.space)} (${change.space}) as ${mark}`;
  }
  if (change.action === "create") return "created";
  if (change.action === "delete") return "deleted";
  return "rewritten";
}


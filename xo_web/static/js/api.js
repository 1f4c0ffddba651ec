// Talking to the local server: JSON reads, and moves carrying this run's token.

const TOKEN = document.querySelector('meta[name="xo-token"]').content;

export class ApiError extends Error {
  constructor(status, message, body) {
    super(message);
    this.status = status;
    this.body = body;
  }
}

async function answer(response) {
  let body = null;
  try {
    body = await response.json();
  } catch {
    body = null;
  }
  if (!response.ok) {
    const message = body?.error?.message ?? `the server answered ${response.status} ${response.statusText}`;
    throw new ApiError(response.status, message, body);
  }
  return { status: response.status, body };
}

async function request(path, options) {
  let response;
  try {
    response = await fetch(path, { credentials: "same-origin", cache: "no-store", ...options });
  } catch {
    throw new ApiError(0, "the local xo web server does not answer: is it still running?", null);
  }
  return answer(response);
}

export async function getJson(path) {
  return (await request(path, { headers: { Accept: "application/json" } })).body;
}

export async function postJson(path, document) {
  return request(path, {
    method: "POST",
    headers: { "Content-Type": "application/json", Accept: "application/json", "X-XO-Token": TOKEN },
    body: JSON.stringify(document),
  });
}

/** Play a move as `player` (a key's name): resolves to the server's answer, rejects with an ApiError in words. */
export function move(player, action, name, space = null) {
  return postJson("/api/moves", { player, action, name, space });
}

export function history(name) {
  return getJson(`/api/history?name=${encodeURIComponent(name)}`);
}

/** Let the computer play in game `name` at `level` (it answers: the person moves first in a new game). */
export function startComputer(name, level) {
  return postJson("/api/computer", { name, level });
}

export function stopComputer(name) {
  return postJson("/api/computer/stop", { name });
}

/**
 * An rps op as `player`: create, join, setup, ready, throw, reveal, resign, claim, delete (`fields`: points,
 * timeout, throw, and the round and phase of the game shown, which the op is signed for).
 */
export function rps(player, op, name, fields = {}) {
  return postJson("/api/rps", { player, op, name, ...fields });
}

/** The chips of `player` (a key's name): balance, channels, and the server's clock (`now`, Unix seconds). */
export function chipsOf(player) {
  return getJson(`/api/chips?player=${encodeURIComponent(player)}`);
}

/** A chips request as `player`: open, join, play or move (`fields`: the channel's id, terms, space or throw). */
export function chips(path, player, fields = {}) {
  return postJson(`/api/chips/${path}`, { player, ...fields });
}

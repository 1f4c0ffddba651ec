// The games as the server follows them, kept current from its event stream.
// Beside them, every player's rating (the leaderboard's table), read again whenever a game finishes.
// Every (re)connection starts with a snapshot, so the page is whole again after any
// interruption; then one "block" event per committed block.

import { getJson } from "./api.js";

const FIRST_RETRY_MS = 500;
const MAX_RETRY_MS = 10_000;

export class Live extends EventTarget {
  constructor() {
    super();
    /** name -> game, as the server's JSON gives it */
    this.games = new Map();
    /** name -> rps game, as the server's JSON gives it */
    this.rps = new Map();
    /** name -> {level, active, message}: the games the computer plays (or last left, with why) */
    this.computer = new Map();
    /** "player/channel" -> the latest chips event of a match the server plays */
    this.chips = new Map();
    /** public key -> the player's row of the leaderboard ({rank, rating, deviation, games, ...}) */
    this.ratings = new Map();
    this.block = null;
    this.ready = false;
    this.status = { live: false, message: "Connecting to the local server…" };
    this.retryMs = FIRST_RETRY_MS;
  }

  connect() {
    const source = new EventSource("/api/events");
    source.addEventListener("snapshot", (event) => this.#snapshot(JSON.parse(event.data)));
    source.addEventListener("block", (event) => this.#block(JSON.parse(event.data)));
    source.addEventListener("status", (event) => this.#setStatus(JSON.parse(event.data)));
    source.addEventListener("computer", (event) => this.#computer(JSON.parse(event.data)));
    source.addEventListener("chips", (event) => this.#chips(JSON.parse(event.data)));
    // A block finished a rated game: the leaderboard asks for its table again.
    source.addEventListener("ratings", (event) => {
      this.#readRatings();
      this.dispatchEvent(new CustomEvent("ratings", { detail: JSON.parse(event.data) }));
    });
    // The open offers changed (one arrived, was withdrawn or expired): the whole list, for the Chips view.
    source.addEventListener("offers", (event) => {
      this.dispatchEvent(new CustomEvent("offers", { detail: JSON.parse(event.data) }));
    });
    source.addEventListener("rps_note", (event) => {
      this.dispatchEvent(new CustomEvent("rps_note", { detail: JSON.parse(event.data) }));
    });
    source.addEventListener("error", () => {
      this.#setStatus({ live: false, message: "Lost the local server; reconnecting…" });
      if (source.readyState === EventSource.CLOSED) {
        // The browser gives up after an error answer (the server busy, or restarting): try again, more slowly each time.
        setTimeout(() => this.connect(), this.retryMs);
        this.retryMs = Math.min(this.retryMs * 2, MAX_RETRY_MS);
      }
    });
  }

  game(name) {
    return this.games.get(name) ?? null;
  }

  rpsGame(name) {
    return this.rps.get(name) ?? null;
  }

  /** The leaderboard's row of the player with public key `key`, or null while unrated (or not read yet). */
  ratingOf(key) {
    return this.ratings.get(key) ?? null;
  }

  // Every player's rating, for the views that name players; a "rated" event once it is in. A failure leaves the
  // last table: the leaderboard's own view says why it cannot be read.
  async #readRatings() {
    try {
      const table = await getJson("/api/ratings");
      if (!table.ready) return;
      this.ratings = new Map(table.players.map((row) => [row.key, row]));
      this.dispatchEvent(new CustomEvent("rated"));
    } catch {
      // kept as it was
    }
  }

  #snapshot(data) {
    this.retryMs = FIRST_RETRY_MS;
    this.games = new Map(data.games.map((game) => [game.name, game]));
    this.rps = new Map(data.rps_games.map((game) => [game.name, game]));
    this.block = data.block;
    this.ready = data.block !== null;
    this.computer = new Map(data.computer.map(({ name, level }) => [name, { level, active: true, message: null }]));
    this.chips = new Map((data.chips ?? []).map((match) => [`${match.player}/${match.channel}`, match]));
    this.#setStatus(data.status);
    this.dispatchEvent(new CustomEvent("games", { detail: { snapshot: true, changes: [], rpsChanges: [] } }));
    this.#readRatings();
  }

  #block(data) {
    this.block = data.block;
    for (const change of data.changes) {
      if (change.game) this.games.set(change.name, change.game);
      else this.games.delete(change.name);
    }
    for (const change of data.rps_changes) {
      if (change.game) this.rps.set(change.name, change.game);
      else this.rps.delete(change.name);
    }
    const detail = { snapshot: false, changes: data.changes, rpsChanges: data.rps_changes };
    this.dispatchEvent(new CustomEvent("games", { detail }));
    this.dispatchEvent(new CustomEvent("status"));
  }

  #computer(data) {
    this.computer.set(data.name, { level: data.level, active: data.active, message: data.message });
    this.dispatchEvent(new CustomEvent("computer", { detail: data }));
  }

  /** The latest event of the match the server plays for `player` (a public key) in `channel`, or null. */
  match(player, channel) {
    return this.chips.get(`${player}/${channel}`) ?? null;
  }

  #chips(data) {
    this.chips.set(`${data.player}/${data.channel}`, data);
    this.dispatchEvent(new CustomEvent("chips", { detail: data }));
  }

  #setStatus(status) {
    this.status = status;
    this.dispatchEvent(new CustomEvent("status"));
  }
}

// The page: read the session, follow the server's event stream, and show the view the address names.
//   #/             the lobby: every game, live; create a game
//   #/game/NAME    one game: its board, to play on
//   #/history/NAME the game's committed moves, stepped through
//   #/rps/NAME     one rock-paper-scissors game: its players, rounds, and your throw
//   #/chips        your chips and channels; open or join one
//   #/channel/ID   a staked match in a channel, played live through the broker
//   #/ratings[/G]  every player's rating from the chain, live (G: xo, rps or chips alone)
//   #/tournaments  every tournament's standings and pairings, live; join one and take part
//   #/transactions/game|rps|channel/NAME  what the chain holds of a game or channel, in words
//   #/transaction/ID                      one transaction: what it did, its block, its outcome

import { getJson } from "./api.js";
import { h, replace } from "./dom.js";
import { playerLabel } from "./labels.js";
import { Live } from "./live.js";
import * as gameView from "./game.js";
import * as historyView from "./history.js";
import * as lobbyView from "./lobby.js";
import * as rpsView from "./rps.js";
import * as chipsView from "./chips.js";
import * as channelView from "./channel.js";
import * as ratingsView from "./ratings.js";
import * as tournamentsView from "./tournaments.js";
import { transactionView, transactionsView } from "./chain.js";

const PLAYER_STORAGE = "xo.player";
const ROUTES = [
  { pattern: /^#?\/?$/, view: lobbyView },
  { pattern: /^#\/game\/(.+)$/, view: gameView },
  { pattern: /^#\/history\/(.+)$/, view: historyView },
  { pattern: /^#\/rps\/(.+)$/, view: rpsView },
  { pattern: /^#\/chips\/?$/, view: chipsView },
  { pattern: /^#\/channel\/([0-9a-f]{64})$/, view: channelView },
  { pattern: /^#\/ratings(?:\/(xo|rps|chips))?\/?$/, view: ratingsView },
  { pattern: /^#\/tournaments\/?$/, view: tournamentsView },
  { pattern: /^#\/transactions\/((?:game|rps|channel)\/.+)$/, view: transactionsView },
  { pattern: /^#\/transaction\/([0-9a-f]{6,128})$/, view: transactionView },
];

/** What every view shares: the live games, the session, who plays, and where views go. */
class App extends EventTarget {
  constructor(session, live) {
    super();
    this.session = session;
    this.live = live;
    this.main = document.getElementById("main");
    // The computer's own key (xo-ai) is the computer's: people pick among the others.
    session.keys = session.keys.filter((key) => key.name !== session.computer_key);
    this.playable = session.keys.filter((key) => key.public_key);
    const stored = sessionStorage.getItem(PLAYER_STORAGE);
    const preferred = [stored, session.default_key].find((name) => this.playable.some((key) => key.name === name));
    this.playerName = preferred ?? this.playable[0]?.name ?? null;
  }

  /** The key this tab plays as: {name, shown, public_key}, or null when there is none to play with. */
  player() {
    return this.playable.find((key) => key.name === this.playerName) ?? null;
  }

  /** The public key of the player, to tell "you" apart in games. */
  me() {
    return this.player()?.public_key ?? null;
  }

  choosePlayer(name) {
    this.playerName = name;
    sessionStorage.setItem(PLAYER_STORAGE, name);
    this.dispatchEvent(new CustomEvent("player"));
  }
}

function setUpPlayerPicker(app) {
  const select = document.getElementById("player");
  const hint = document.getElementById("player-key");
  const options = app.session.keys.map((key) =>
    h("option", {
      value: key.name,
      disabled: !key.public_key,
      selected: key.name === app.playerName,
      text: key.public_key ? key.shown : `${key.shown} (cannot sign: ${key.problem})`,
    }),
  );
  if (!options.length) options.push(h("option", { value: "", disabled: true, selected: true, text: "no keys: make one with xo keygen" }));
  replace(select, options);
  const showKey = () => {
    const player = app.player();
    hint.textContent = player ? playerLabel(player.public_key, null) : "";
  };
  select.addEventListener("change", () => {
    app.choosePlayer(select.value);
    showKey();
  });
  showKey();
}

// The connection line: whether the page is live (a status region, so a screen reader hears when that
// changes) and the block it stands at (shown, not announced: it changes with every block).
function setUpConnection(app) {
  const line = document.getElementById("connection");
  const state = document.getElementById("connection-state");
  const block = document.getElementById("connection-block");
  const show = () => {
    const { live, message } = app.live.status;
    line.dataset.live = String(live);
    const said = live ? (message ? `Live: ${message}` : "Live") : message ?? "Offline";
    if (state.textContent !== said) state.textContent = said;
    block.textContent = live && app.live.block ? ` · block ${app.live.block.num}` : "";
  };
  app.live.addEventListener("status", show);
  show();
}

function route(app) {
  let current = null;
  const show = () => {
    current?.abort();
    current = new AbortController();
    const hash = location.hash || "#/";
    const found = ROUTES.map(({ pattern, view }) => ({ match: pattern.exec(hash), view })).find(({ match }) => match);
    const view = found?.view ?? lobbyView;
    let parameter = null;
    if (found?.match?.[1] !== undefined) {
      try {
        parameter = decodeURIComponent(found.match[1]);
      } catch {
        parameter = null;
      }
    }
    app.main.replaceChildren();
    document.getElementById("nav-lobby").toggleAttribute("aria-current", view === lobbyView);
    document.getElementById("nav-chips").toggleAttribute("aria-current", view === chipsView);
    document.getElementById("nav-ratings").toggleAttribute("aria-current", view === ratingsView);
    document.getElementById("nav-tournaments").toggleAttribute("aria-current", view === tournamentsView);
    view.mount(app, parameter, current.signal);
  };
  window.addEventListener("hashchange", () => {
    show();
    app.main.querySelector("h1")?.focus();
  });
  show();
}

async function start() {
  const main = document.getElementById("main");
  let session;
  try {
    session = await getJson("/api/session");
  } catch (error) {
    replace(main, h("p", { class: "error", role: "alert", text: `Cannot start: ${error.message}` }));
    return;
  }
  const live = new Live();
  const app = new App(session, live);
  setUpPlayerPicker(app);
  setUpConnection(app);
  live.connect();
  route(app);
}

start();

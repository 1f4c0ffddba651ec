// The leaderboard: every player's rating, computed by the server from the chain alone, live as games finish.
//   #/ratings        every game: XO, rps and staked matches
//   #/ratings/xo     one family's games (xo, rps, chips)
// The table is asked for again whenever the server says a block finished a game (a "ratings" event).

import { getJson } from "./api.js";
import { h, replace, shown } from "./dom.js";
import { shortKey } from "./labels.js";

const POOLS = [
  ["", "All games"],
  ["xo", "XO"],
  ["rps", "Rock-paper-scissors"],
  ["chips", "Staked matches"],
];
const HEADINGS = ["Rank", "Player", "Score", "Rating", "Deviation", "Games", "Wins", "Losses", "Draws"];
const PROVISIONAL = "Provisional: fewer than 5 games";

export function ratingsHref(game = "") {
  return game ? `#/ratings/${game}` : "#/ratings";
}

function playerCell(row, me) {
  const name = row.name ? [shown(row.name), " "] : [];
  return h(
    "td",
    { class: "rating-player" },
    name,
    h("span", { class: "key-hint", title: row.key, text: row.name ? `(${shortKey(row.key)})` : shortKey(row.key) }),
    row.key === me ? h("span", { class: "badge", text: "you" }) : null,
  );
}

/** The rating, marked "?" with its reason when it rests on fewer than 5 games (as lichess marks one). */
function ratingCell(row) {
  const mark = row.provisional ? h("abbr", { class: "provisional", title: PROVISIONAL, text: "?" }) : null;
  return h("td", { class: "number" }, row.rating.toFixed(2), mark);
}

function tableRow(row, me) {
  const numbers = [row.deviation.toFixed(2), row.games, row.wins, row.losses, row.draws];
  return h(
    "tr",
    { dataset: { key: row.key, you: String(row.key === me), provisional: String(Boolean(row.provisional)) } },
    h("td", { text: String(row.rank) }),
    playerCell(row, me),
    h("td", { class: "number", text: row.ordinal.toFixed(2) }),
    ratingCell(row),
    numbers.map((number) => h("td", { class: "number", text: String(number) })),
  );
}

export function mount(app, parameter, signal) {
  const game = POOLS.some(([value]) => value === parameter) ? parameter : "";
  const title = POOLS.find(([value]) => value === game)[1];
  document.title = `xo · ratings · ${title}`;
  const heading = h("h1", { tabindex: "-1", text: "Ratings" });
  const tabs = h(
    "nav",
    { class: "rating-pools", "aria-label": "Which games" },
    POOLS.map(([value, label]) =>
      h("a", { href: ratingsHref(value), "aria-current": value === game ? "page" : false, text: label }),
    ),
  );
  const summary = h("p", { class: "caption", id: "ratings-summary", "aria-live": "polite" });
  const error = h("p", { class: "error", role: "alert", id: "ratings-error" });
  const body = h("tbody", { id: "ratings-rows" });
  const table = h(
    "table",
    { class: "ratings", "aria-describedby": "ratings-summary" },
    h("thead", {}, h("tr", {}, HEADINGS.map((text) => h("th", { scope: "col", text })))),
    body,
  );
  const about = h(
    "p",
    { class: "caption" },
    "Computed from the chain alone (openskill). Ranked by score = rating − 3 × deviation: a rating the player is ",
    "very likely above, so a player of few games ranks below one whose rating is surer. ? marks a provisional ",
    "rating (fewer than 5 games; a staked match counts each of its games). ",
    h("code", { text: "xo ratings" }),
    " prints the same table.",
  );
  replace(app.main, heading, tabs, summary, error, h("div", { class: "ratings-scroll" }, table), about);

  let reading = false;
  let again = false;
  async function refresh() {
    if (reading) {
      again = true;
      return;
    }
    reading = true;
    try {
      const data = await getJson(`/api/ratings${game ? `?game=${game}` : ""}`);
      if (signal.aborted) return;
      error.textContent = "";
      show(data);
    } catch (failure) {
      if (!signal.aborted) error.textContent = failure.message;
    } finally {
      reading = false;
      if (again && !signal.aborted) {
        again = false;
        refresh();
      }
    }
  }

  function show(data) {
    if (!data.ready) {
      summary.textContent = data.message ? `Not ready: ${data.message}` : "Reading the chain's games…";
      replace(body);
      return;
    }
    const players = data.players.length;
    const block = data.block?.num ?? 0;
    summary.textContent = players
      ? `${data.games} ${data.games === 1 ? "game" : "games"}, ${players} ${players === 1 ? "player" : "players"}, as of block ${block}`
      : `No rated games yet, as of block ${block}`;
    replace(body, data.players.map((row) => tableRow(row, app.me())));
  }

  app.live.addEventListener("ratings", refresh, { signal });
  app.addEventListener("player", refresh, { signal });
  refresh();
}

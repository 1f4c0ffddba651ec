// Tournaments (#/tournaments): every tournament on the chain with its terms, standings (with their tie-breaks),
// every round's pairings and results, and the prizes paid, read again at every block, so they are live.
// The player chosen at the top joins one (paying the buy-in) and takes part: the server then starts it when due,
// records results and advances rounds, and opens each of the player's matches on its channel's page.

import { getJson, postJson } from "./api.js";
import { h, replace, shown } from "./dom.js";
import { playerLabel } from "./labels.js";
import { channelHref } from "./chips.js";

function who(player) {
  return player ? playerLabel(player.key, player.name) : "bye";
}

function termsText(t) {
  const format = t.format === "swiss" ? `Swiss of ${t.rounds} rounds` : "knockout";
  const game = t.game === "xo" ? "tic-tac-toe" : `rock-paper-scissors first to ${t.first_to} (at most ${2 * t.first_to - 1} rounds a match)`;
  return `${game}, ${format}, buy-in ${t.buy_in}, ${t.min_players}–${t.max_players} players, prizes ${t.prizes.join("/")} %, rounds of ${t.round_seconds} s`;
}

function statusText(t) {
  if (t.status === "joining") return `Joining: ${t.players.length} in, pool ${t.pool}.`;
  if (t.status === "playing") return `Playing round ${t.round} of ${t.rounds}; pool ${t.pool}.`;
  if (t.status === "cancelled") return "Cancelled: too few players, every buy-in refunded.";
  return "Closed: the pool is paid out.";
}

function resultText(pairing) {
  if (!pairing.black) return "bye";
  return pairing.result ?? "playing";
}

function standingsTable(t) {
  const swiss = t.format === "swiss";
  const headings = swiss ? ["Place", "Player", "Points", "Buchholz", "Wins"] : ["Place", "Player", "Rounds through", "Wins"];
  const rows = t.standings.map((line) =>
    h(
      "tr",
      {},
      h("td", { text: String(line.place) }),
      h("td", {}, shown(who(line.player))),
      h("td", { class: "number", text: String(line.points) }),
      swiss ? h("td", { class: "number", text: String(line.buchholz) }) : null,
      h("td", { class: "number", text: String(line.wins) }),
    ),
  );
  return h(
    "table",
    { class: "ratings tournament-standings" },
    h("thead", {}, h("tr", {}, headings.map((text) => h("th", { scope: "col", text })))),
    h("tbody", {}, rows),
  );
}

function roundsList(t, me) {
  return t.pairings.map((pairings, index) =>
    h(
      "details",
      { class: "tournament-round", open: index === t.pairings.length - 1 },
      h("summary", { text: `Round ${index + 1}` }),
      h(
        "ul",
        {},
        pairings
          .filter((p) => p.white)
          .map((p) => {
            const mine = me && [p.white?.key, p.black?.key].includes(me);
            const link = mine && p.channel && !p.result ? h("a", { class: "button-link", href: channelHref(p.channel), text: "Play your match" }) : null;
            return h(
              "li",
              { dataset: { board: String(p.board), mine: String(Boolean(mine)) } },
              shown(who(p.white)),
              p.black ? [" – ", shown(who(p.black))] : null,
              `: ${resultText(p)} `,
              link,
            );
          }),
      ),
    ),
  );
}

function card(app, t, takingPart, refresh) {
  const me = app.me();
  const player = app.player();
  const inIt = t.players.some((p) => p.key === me);
  const mine = takingPart.find((part) => part.key === me && part.tournament === t.name);
  const note = h("p", { class: "caption", role: "status" });
  const error = h("p", { class: "error", role: "alert" });
  async function ask(path, done) {
    error.textContent = "";
    try {
      const answer = await postJson(path, { player: player.name, tournament: t.name });
      note.textContent = answer.body.message;
      done?.();
      refresh();
    } catch (failure) {
      error.textContent = failure.message;
    }
  }
  const actions = [];
  if (player && t.status === "joining" && !inIt) {
    actions.push(h("button", { type: "button", text: `Join (${t.buy_in} chips)`, on: { click: () => ask("/api/tournaments/join") } }));
  }
  if (player && inIt && (t.status === "joining" || t.status === "playing") && !(mine && !mine.stopped)) {
    actions.push(h("button", { type: "button", text: "Take part", on: { click: () => ask("/api/tournaments/play") } }));
  }
  if (mine && !mine.stopped) note.textContent = "Taking part: your match of each round opens below as it comes.";
  if (mine?.stopped) error.textContent = `Your part stopped: ${mine.stopped}`;
  const paid = t.payout
    ? h("p", {}, `${t.status === "cancelled" ? "Refunded" : "Paid"}: `, t.payout.map((p, i) => [i ? ", " : "", shown(who(p)), ` ${p.amount}`]))
    : null;
  return h(
    "article",
    { class: "tournament", dataset: { name: t.name, status: t.status } },
    h("h2", {}, shown(t.name)),
    h("p", { class: "caption", text: termsText(t) }),
    h("p", { class: "tournament-status", text: statusText(t) }),
    actions.length ? h("p", { class: "actions" }, actions) : null,
    note,
    error,
    t.standings.length ? standingsTable(t) : null,
    roundsList(t, me),
    paid,
  );
}

export function mount(app, _parameter, signal) {
  document.title = "xo · tournaments";
  const heading = h("h1", { tabindex: "-1", text: "Tournaments" });
  const error = h("p", { class: "error", role: "alert", id: "tournaments-error" });
  const list = h("div", { id: "tournaments" });
  const about = h(
    "p",
    { class: "caption" },
    "The buy-ins sit in a pool only the chain's rules pay out; the chain pairs every round. ",
    h("code", { text: "chips tournament create" }),
    " makes one.",
  );
  replace(app.main, heading, error, list, about);

  let reading = false;
  async function refresh() {
    if (reading) return;
    reading = true;
    try {
      const data = await getJson("/api/tournaments");
      if (signal.aborted) return;
      error.textContent = "";
      replace(list, data.tournaments.length ? data.tournaments.map((t) => card(app, t, data.taking_part, refresh)) : h("p", { text: "No tournaments on the chain yet." }));
    } catch (failure) {
      if (!signal.aborted) error.textContent = failure.message;
    } finally {
      reading = false;
    }
  }
  app.live.addEventListener("games", refresh, { signal });
  app.addEventListener("player", refresh, { signal });
  refresh();
}

// Open offers, in the Chips view: every offer the broker holds, verified by the server and kept live by its
// "offers" events, each with its offerer (their key's name, "you", or a short key), their rating, the terms in
// words and how long it stays open. Accept opens the offer's channel for you and takes you to it; the match is
// played there once the offerer joins. The Offer form publishes your own offer; its first accept is joined by
// the server and played on the channel's page, which opens by itself.

import { chips, getJson } from "./api.js";
import { h, replace, shown } from "./dom.js";
import { shortKey } from "./labels.js";
import { duration } from "./time.js";

const UNITS = { xo: "game", rps: "round" };

function plural(count, unit) {
  return `${count} ${unit}${count === 1 ? "" : "s"}`;
}

/** "Tic-tac-toe for 10 chips a game, 3 games; 50 chips deposited each; 1 h 0 min to answer a challenge." */
export function offerTerms(offer) {
  const game = offer.game === "xo" ? "Tic-tac-toe" : "Rock-paper-scissors";
  const unit = UNITS[offer.game];
  const rounds = offer.rounds === 0 ? "until a player cannot cover the stake" : plural(offer.rounds, unit);
  return `${game} for ${plural(offer.stake, "chip")} a ${unit}, ${rounds}; ${plural(offer.deposit, "chip")} deposited each; ${duration(offer.challenge_seconds)} to answer a challenge.`;
}

/** The offerer's rating at staked games, as `chips offers` words it: "rated 27.31 ± 4.02 (6 games)", a provisional
 * one (fewer than 5 games) "rated 27.31? ± 4.02 (1 game)": every game of a match (round, at rps) counts as one. */
export function ratingText(rating) {
  if (!rating) return "no staked games yet";
  const mark = rating.provisional ? "?" : "";
  return `rated ${rating.rating.toFixed(2)}${mark} ± ${rating.deviation.toFixed(2)} (${plural(rating.games, "game")})`;
}

/** " open until 14:03:22 (52 min 7 s left)": the expiry (the server's clock, Unix seconds) as local clock time. */
export function staysText(expires, skew) {
  const left = Math.max(0, Math.ceil(expires - (Date.now() / 1000 - skew)));
  const at = new Date((expires + skew) * 1000).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit", second: "2-digit", hourCycle: "h23" });
  return left > 0 ? `Open until ${at} (${duration(left)} left).` : `Expired at ${at}.`;
}

function numberInput(id, value, min, max) {
  return h("input", { id, type: "number", min: String(min), max: String(max), value: String(value), inputmode: "numeric", required: true });
}

/** The offers' part of the Chips view: the list and the form, live until `signal` aborts. */
export function offersSection(app, signal, channelHref) {
  const list = h("ul", { class: "channels offers", id: "offers", "aria-labelledby": "offers-heading" });
  const note = h("p", { class: "note", id: "offers-note", "aria-live": "polite" });
  const error = h("p", { class: "error", role: "alert", id: "offers-error" });
  const game = h("select", { id: "offer-game" }, h("option", { value: "xo", text: "Tic-tac-toe" }), h("option", { value: "rps", text: "Rock-paper-scissors" }));
  const stake = numberInput("offer-stake", 10, 1, 1_000_000_000_000);
  const deposit = numberInput("offer-deposit", 50, 1, 1_000_000_000_000);
  const rounds = numberInput("offer-rounds", 3, 0, 255);
  const challenge = numberInput("offer-challenge", 3600, 1, 2_592_000);
  const seconds = numberInput("offer-seconds", 3600, 10, 86_400); // as `chips offer --for`
  const offerButton = h("button", { type: "submit", class: "primary", id: "offer-submit", text: "Offer" });
  const offerNote = h("p", { class: "note", id: "offer-note", "aria-live": "polite" });
  const offerError = h("p", { class: "error", role: "alert", id: "offer-error" });
  const field = (label, input) => h("label", { class: "field" }, h("span", { text: label }), input);
  const form = h(
    "form",
    { class: "open-channel", id: "offer-form", on: { submit: offer } },
    field("Game", game),
    field("Stake (chips a game or round)", stake),
    field("Deposit (each)", deposit),
    field("Games or rounds (0: until one cannot cover the stake)", rounds),
    field("Seconds to answer a challenge", challenge),
    field("Open for (seconds)", seconds),
    offerButton,
  );
  let skew = 0;
  let offers = [];

  function offererLabel(offer) {
    const key = offer.offerer.public_key;
    if (key === app.me()) return h("span", { class: "offer-offerer", text: "you" });
    const label = offer.offerer.name ? [shown(offer.offerer.name), ` (${shortKey(key)})`] : shortKey(key);
    return h("span", { class: "offer-offerer", title: key }, label);
  }

  async function act(path, offerId, button) {
    button.disabled = true;
    error.textContent = "";
    try {
      const { body } = await chips(path, app.player().name, { offer: offerId });
      note.textContent = body.message;
      if (path === "accept") location.hash = channelHref(body.channel);
    } catch (failure) {
      error.textContent = failure.message;
      button.disabled = false;
    }
  }

  function item(offer) {
    const mine = offer.offerer.public_key === app.me();
    const button = mine
      ? h("button", { type: "button", class: "withdraw", text: "Withdraw" })
      : h("button", { type: "button", class: "primary accept", text: "Accept" });
    button.addEventListener("click", () => act(mine ? "withdraw" : "accept", offer.id, button));
    return h(
      "li",
      { class: "channel offer", dataset: { offer: offer.id, mine: String(mine) } },
      h("p", { class: "offer-by" }, offererLabel(offer), `, ${ratingText(offer.rating)}, offers:`),
      h("p", { class: "offer-terms", text: offerTerms(offer) }),
      h("p", { class: "offer-stays", dataset: { expires: String(offer.expires) }, text: staysText(offer.expires, skew) }),
      app.player() ? h("div", { class: "actions" }, button) : null,
    );
  }

  function render() {
    replace(list, offers.length ? offers.map(item) : h("li", { class: "note", text: "No open offers: make one below." }));
  }

  function show(document) {
    skew = Date.now() / 1000 - document.now;
    offers = document.offers;
    render();
    error.textContent = document.message ? `The offers cannot be read: ${document.message}.` : "";
  }

  async function read() {
    try {
      const document = await getJson("/api/chips/offers");
      if (!signal.aborted) show(document);
    } catch (failure) {
      if (!signal.aborted) error.textContent = failure.message;
    }
  }

  async function offer(event) {
    event.preventDefault();
    const player = app.player();
    if (!player) return;
    offerButton.disabled = true;
    offerError.textContent = "";
    offerNote.textContent = "";
    try {
      const fields = {
        game: game.value, stake: Number(stake.value), deposit: Number(deposit.value), rounds: Number(rounds.value),
        challenge: Number(challenge.value), seconds: Number(seconds.value),
      };
      const { body } = await chips("offer", player.name, fields);
      offerNote.textContent = body.message;
    } catch (failure) {
      offerError.textContent = failure.message;
    } finally {
      offerButton.disabled = false;
    }
  }

  const timer = setInterval(() => {
    for (const element of list.querySelectorAll(".offer-stays")) {
      const text = staysText(Number(element.dataset.expires), skew);
      if (element.textContent !== text) element.textContent = text;
    }
  }, 1000);
  signal.addEventListener("abort", () => clearInterval(timer));
  app.live.addEventListener("offers", (event) => show(event.detail), { signal });
  app.live.addEventListener("games", (event) => {
    if (event.detail.snapshot) read(); // a new connection: the list as it is now
  }, { signal });
  app.live.addEventListener("rated", read, { signal });
  app.addEventListener("player", render, { signal });
  // Your offer accepted and joined: its match is played on the channel's page.
  app.live.addEventListener("chips", (event) => {
    if (event.detail.offer && event.detail.player === app.me()) location.hash = channelHref(event.detail.channel);
  }, { signal });
  read();

  return [
    h("h2", { id: "offers-heading", text: "Open offers" }),
    h("p", { class: "help", text: "Offers any player made through the broker, each signed by its offerer. Accept opens the channel on exactly those terms with your deposit; the match starts once the offerer joins, or your deposit comes back." }),
    list,
    note,
    error,
    h("h2", { text: "Make an offer" }),
    h("p", { class: "help", text: "Anyone may accept it while it is open: the first accept is joined here and played on its channel's page. Your chips must cover the deposit." }),
    form,
    offerNote,
    offerError,
  ];
}

// Your chips (#/chips): your free balance, every channel you take part in (open to you, waiting for your
// opponent's deposit, running, challenged with its countdown, closed with its payout), and a form to open
// a channel: a match of XO or rock-paper-scissors for a stake per game or round, played off chain; and the open
// offers on the broker, with Accept and a form to make one (offers.js).
// The list is read again whenever a block commits or a match the server plays ends.

import { chips, chipsOf } from "./api.js";
import { h, replace, shown } from "./dom.js";
import { playerLabel } from "./labels.js";
import { offersSection } from "./offers.js";
import { duration } from "./time.js";

export function channelHref(id) {
  return `#/channel/${id}`;
}

export function gameName(game) {
  return game === "xo" ? "Tic-tac-toe" : "Rock-paper-scissors";
}

/** "10 chips a game" (xo) or "10 chips a round" (rps). */
export function stakeText(channel) {
  return `${channel.stake} ${channel.stake === 1 ? "chip" : "chips"} a ${channel.game === "xo" ? "game" : "round"}`;
}

export function roundsText(channel) {
  const unit = channel.game === "xo" ? "game" : "round";
  return channel.rounds === 0 ? "until a player cannot cover the stake" : `${channel.rounds} ${unit}${channel.rounds === 1 ? "" : "s"}`;
}

/** ``text`` with its first letter capitalized, to begin a sentence. */
export function capitalized(text) {
  return text ? text[0].toUpperCase() + text.slice(1) : text;
}

export function opponentLabel(channel) {
  return playerLabel(channel.opponent.public_key, channel.opponent.name);
}

/** Seconds left before a challenge's deadline, on the server's clock (`skew`: the browser's clock minus it). */
export function secondsLeft(deadline, skew) {
  return Math.max(0, Math.ceil(deadline - (Date.now() / 1000 - skew)));
}

/** The opponent's name as the page shows it in a sentence: their key's name, or their short key. */
export function opponentName(channel) {
  return channel.opponent.name ?? `${channel.opponent.public_key.slice(0, 6)}...`;
}

/** What a channel waits for, in words; a challenge's countdown is an element of its own (`.countdown`). */
export function statusText(channel) {
  const opponent = opponentName(channel);
  if (channel.status === "closed") {
    const [mine, theirs] = channel.payout ?? [0, 0];
    return `Closed: you were paid ${mine} chips, ${opponent} ${theirs}.`;
  }
  if (channel.open_to_me) return "Open to you: join to pay your deposit in.";
  if (channel.waiting_for_opponent) return `Waiting for ${opponent}'s deposit.`;
  if (channel.challenge) {
    return channel.challenge.by_me ? `You challenged ${opponent}: they must answer` : `${opponent} challenged you: answer`;
  }
  return "Funded: the match is on.";
}

/** A moment on the server's clock (Unix seconds) as this browser's local clock time, 24-hour, with seconds. */
export function clockTime(moment, skew) {
  return new Date((moment + skew) * 1000).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit", second: "2-digit", hourCycle: "h23" });
}

/** How long a challenge in the channel lasts, and the server's warning when that is short, before a join. */
export function challengeText(channel) {
  const within = `A challenge must be answered within ${duration(channel.challenge_seconds)}.`;
  return channel.challenge_note ? `${within} Warning: ${channel.challenge_note}.` : within;
}

export function countdown(channel, skew) {
  if (!channel.challenge || channel.status === "closed") return null;
  return deadlineCountdown(channel.challenge.deadline, skew);
}

/** A deadline (Unix seconds, the server's clock) counted down: ` before 14:03:22 (52 min 7 s left).`, kept ticking by `tick`. */
export function deadlineCountdown(deadline, skew) {
  return h("span", {
    class: "countdown",
    dataset: { deadline: String(deadline) },
    text: countdownText(secondsLeft(deadline, skew), clockTime(deadline, skew)),
  });
}

export function countdownText(left, at) {
  return left > 0 ? ` before ${at} (${duration(left)} left).` : `: the deadline, ${at}, has passed, so it can be finalized.`;
}

/** Keep every `.countdown` under `root` ticking, once a second, until `signal` aborts. */
export function tick(root, skew, signal) {
  const timer = setInterval(() => {
    for (const element of root.querySelectorAll(".countdown")) {
      const deadline = Number(element.dataset.deadline);
      const text = countdownText(secondsLeft(deadline, skew()), clockTime(deadline, skew()));
      if (element.textContent !== text) element.textContent = text;
    }
  }, 1000);
  signal.addEventListener("abort", () => clearInterval(timer));
}

function numberInput(id, value, min, max) {
  return h("input", { id, type: "number", min: String(min), max: String(max), value: String(value), inputmode: "numeric", required: true });
}

export function mount(app, _parameter, signal) {
  document.title = "xo · chips";
  const heading = h("h1", { tabindex: "-1", text: "Your chips" });
  const balance = h("p", { class: "chips-balance", id: "chips-balance", "aria-live": "polite" });
  const error = h("p", { class: "error", role: "alert", id: "chips-error" });
  const list = h("ul", { class: "channels", id: "channels", "aria-labelledby": "channels-heading" });
  const name = h("input", { id: "channel-name", required: true, maxlength: "64", autocomplete: "off", spellcheck: "false", placeholder: "e.g. duel" });
  const opponent = h("select", { id: "channel-opponent", required: true });
  const game = h(
    "select",
    { id: "channel-game" },
    h("option", { value: "xo", text: "Tic-tac-toe" }),
    h("option", { value: "rps", text: "Rock-paper-scissors" }),
  );
  const stake = numberInput("channel-stake", 10, 1, 1_000_000_000_000);
  const deposit = numberInput("channel-deposit", 50, 1, 1_000_000_000_000);
  const rounds = numberInput("channel-rounds", 3, 0, 255);
  const challenge = numberInput("channel-challenge", 3600, 1, 2_592_000);
  const openButton = h("button", { type: "submit", class: "primary", text: "Open the channel" });
  const openError = h("p", { class: "error", role: "alert", id: "open-error" });
  const field = (label, input) => h("label", { class: "field" }, h("span", { text: label }), input);
  const form = h(
    "form",
    { class: "open-channel", on: { submit: open } },
    field("Channel name", name),
    field("Opponent", opponent),
    field("Game", game),
    field("Stake (chips a game or round)", stake),
    field("Deposit (each)", deposit),
    field("Games or rounds (0: until one cannot cover the stake)", rounds),
    field("Seconds to answer a challenge", challenge),
    openButton,
  );
  let skew = 0;
  let reading = null;
  let again = false;

  function fillOpponents() {
    const me = app.player()?.name;
    replace(
      opponent,
      app.session.keys.filter((key) => key.name !== me && key.public_key).map((key) => h("option", { value: key.name, text: key.shown })),
    );
  }

  async function open(event) {
    event.preventDefault();
    const player = app.player();
    if (!player) return;
    openButton.disabled = true;
    openError.textContent = "";
    try {
      const fields = {
        name: name.value, opponent: opponent.value, game: game.value, stake: Number(stake.value),
        deposit: Number(deposit.value), rounds: Number(rounds.value), challenge: Number(challenge.value),
      };
      const { body } = await chips("open", player.name, fields);
      location.hash = channelHref(body.channel);
    } catch (failure) {
      openError.textContent = failure.message;
    } finally {
      openButton.disabled = false;
    }
  }

  async function join(channel, button) {
    button.disabled = true;
    error.textContent = "";
    try {
      await chips("join", app.player().name, { channel: channel.id });
      location.hash = channelHref(channel.id);
    } catch (failure) {
      error.textContent = failure.message;
      button.disabled = false;
    }
  }

  function item(channel) {
    const actions = [];
    if (channel.open_to_me) {
      const button = h("button", { type: "button", class: "primary join", text: "Join" });
      button.addEventListener("click", () => join(channel, button));
      actions.push(button);
    }
    if (channel.status === "running") actions.push(h("a", { class: "button-link", href: channelHref(channel.id), text: "Play" }));
    const balances = channel.state ? `Balances: you ${channel.state.balances[0]}, ${opponentName(channel)} ${channel.state.balances[1]}.` : "";
    const words = channel.state?.words ? `${capitalized(channel.state.words)}.` : "";
    return h(
      "li",
      { class: "channel", dataset: { channel: channel.id, status: channel.status } },
      h("a", { class: "channel-link", href: channelHref(channel.id) }, shown(channel.shown)),
      h("span", { class: "channel-terms", text: ` ${gameName(channel.game)}, ${stakeText(channel)}, ${roundsText(channel)}; deposits ${channel.deposits[0]} and ${channel.deposits[1]}; against ` }),
      h("span", { class: "channel-opponent", text: opponentLabel(channel) }),
      h("p", { class: "channel-status" }, statusText(channel), countdown(channel, skew)),
      channel.open_to_me ? h("p", { class: "channel-challenge", text: challengeText(channel) }) : null,
      balances ? h("p", { class: "channel-balances", text: balances }) : null,
      words ? h("p", { class: "channel-words", text: words }) : null,
      actions.length ? h("div", { class: "actions" }, actions) : null,
    );
  }

  async function read() {
    const player = app.player();
    if (!player) {
      balance.textContent = "Choose a key to play as (make one with xo keygen).";
      return;
    }
    if (reading) {
      again = true;
      return;
    }
    reading = chipsOf(player.name);
    try {
      const view = await reading;
      if (signal.aborted || view.public_key !== app.me()) return;
      skew = Date.now() / 1000 - view.now;
      balance.textContent = `You hold ${view.balance} chips, not counting what is locked in channels.`;
      error.textContent = "";
      replace(list, view.channels.length ? view.channels.map(item) : h("li", { class: "note", text: "No channels yet: open one below." }));
    } catch (failure) {
      if (!signal.aborted) error.textContent = failure.message;
    } finally {
      reading = null;
      if (again && !signal.aborted) {
        again = false;
        read();
      }
    }
  }

  replace(
    app.main,
    heading,
    balance,
    error,
    h("h2", { id: "channels-heading", text: "Your channels" }),
    list,
    offersSection(app, signal, channelHref),
    h("h2", { text: "Open a channel" }),
    h("p", { class: "help", text: "You pay your deposit in now; your opponent joins from their own Chips page. Every move is then a signed message through the broker, and the channel closes with one transaction." }),
    form,
    openError,
  );
  fillOpponents();
  read();
  tick(app.main, () => skew, signal);
  app.live.addEventListener("games", read, { signal });
  app.live.addEventListener("chips", (event) => {
    if (!event.detail.playing) read();
  }, { signal });
  app.addEventListener("player", () => {
    fillOpponents();
    read();
  }, { signal });
}

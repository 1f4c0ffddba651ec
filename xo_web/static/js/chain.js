// The explorer: what the chain holds of one game or channel, and one transaction, as `xo chain` says them.
//   #/transactions/game/NAME, #/transactions/rps/NAME, #/transactions/channel/ID
//                   every transaction that wrote it, oldest first: block, time (UTC), who, what, in words
//   #/transaction/ID one transaction: what it did, who signed it, its block and batch, its outcome

import { getJson } from "./api.js";
import { h, replace, shown } from "./dom.js";
import { playerLabel } from "./labels.js";

const BACK = {
  game: (name) => ({ href: `#/game/${encodeURIComponent(name)}`, text: "← Back to the game" }),
  rps: (name) => ({ href: `#/rps/${encodeURIComponent(name)}`, text: "← Back to the game" }),
  channel: (id) => ({ href: `#/channel/${id}`, text: "← Back to the channel" }),
};

/** The link a game's or channel's view shows: "Transactions", to the list of what the chain holds of it. */
export function transactionsLink(kind, name) {
  return h("a", { class: "button", href: `#/transactions/${kind}/${encodeURIComponent(name)}`, text: "Transactions" });
}

export function transactionHref(id) {
  return `#/transaction/${id}`;
}

function signerText(row) {
  return playerLabel(row.signer, row.signer_name);
}

/** #/transactions/KIND/NAME: the table of a game's or channel's transactions, each linking to its own view. */
export const transactionsView = {
  mount(app, parameter, signal) {
    const slash = (parameter ?? "").indexOf("/");
    const kind = slash > 0 ? parameter.slice(0, slash) : "";
    const name = slash > 0 ? parameter.slice(slash + 1) : "";
    const heading = h("h1", { tabindex: "-1", text: "Transactions" });
    const body = h("div", { class: "explorer" }, h("p", { text: "Reading the chain…" }));
    const back = BACK[kind]?.(name) ?? { href: "#/", text: "← All games" };
    replace(app.main, h("p", { class: "back" }, h("a", back)), heading, body);

    async function load() {
      let listed;
      try {
        listed = await getJson(`/api/chain/transactions?${encodeURIComponent(kind)}=${encodeURIComponent(name)}`);
      } catch (error) {
        if (!signal.aborted) replace(body, h("p", { class: "error", role: "alert", text: error.message }));
        return;
      }
      if (signal.aborted) return;
      document.title = `xo · transactions of ${listed.shown}`;
      replace(heading, "Transactions of ", shown(listed.shown));
      if (!listed.transactions.length) {
        replace(body, h("p", { text: "The chain holds no transaction of it (yet)." }));
        return;
      }
      const rows = listed.transactions.map((row) =>
        h(
          "tr",
          {},
          h("td", { class: "number", text: String(row.block_num) }),
          h("td", { text: row.time ?? "–" }),
          h("td", {}, shown(signerText(row))),
          h("td", {}, h("a", { href: transactionHref(row.transaction_id) }, shown(row.words))),
        ),
      );
      replace(
        body,
        h("p", { class: "note", text: "Every transaction that wrote it, oldest first; the time is the block's, in UTC." }),
        h(
          "div",
          { class: "ratings-scroll" },
          h(
            "table",
            { class: "ratings transactions" },
            h("thead", {}, h("tr", {}, ["Block", "Time (UTC)", "Signed by", "What"].map((text) => h("th", { scope: "col", text })))),
            h("tbody", {}, rows),
          ),
        ),
      );
    }

    app.live.addEventListener("block", () => load(), { signal });
    load();
  },
};

/** #/transaction/ID: one transaction's fields, as `xo chain transaction ID` prints them. */
export const transactionView = {
  mount(app, id, signal) {
    const heading = h("h1", { tabindex: "-1", text: "Transaction" });
    const body = h("div", { class: "explorer" }, h("p", { text: "Reading the chain…" }));
    replace(app.main, h("p", { class: "back" }, h("a", { href: "#/", text: "← All games" })), heading, body);

    (async () => {
      let t;
      try {
        t = await getJson(`/api/chain/transaction?id=${encodeURIComponent(id ?? "")}`);
      } catch (error) {
        if (!signal.aborted) replace(body, h("p", { class: "error", role: "alert", text: error.message }));
        return;
      }
      if (signal.aborted) return;
      document.title = `xo · ${t.words}`;
      replace(heading, shown(t.words));
      const field = (term, ...value) => [h("dt", { text: term }), h("dd", {}, ...value)];
      const changes = t.state_changes.map((change) =>
        h("li", {}, `${change.type === "DELETE" ? "deleted" : "set"} `, h("code", { text: change.address })),
      );
      replace(
        body,
        h(
          "dl",
          { class: "transaction" },
          field("What it did", shown(t.words)),
          field("Family", `${t.family} ${t.version}`),
          field("Signed by", shown(signerText(t))),
          field("Block", `${t.block_num}, at ${t.time ?? "no time (genesis)"}`),
          field("Outcome", t.outcome),
          field("Transaction", h("code", { class: "id", text: t.transaction_id })),
          field("Batch", h("code", { class: "id", text: t.batch_id })),
          field("Block id", h("code", { class: "id", text: t.block_id })),
        ),
        changes.length ? h("ul", { class: "state-changes", "aria-label": "State it changed" }, changes) : null,
      );
    })();
  },
};

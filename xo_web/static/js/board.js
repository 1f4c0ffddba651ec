// The board: nine cells, X and O, the winning line and the last move marked.
// Playable boards are buttons in a group with one tab stop: the arrow keys move
// between cells, Enter or Space takes the focused one.

import { h } from "./dom.js";
import { gridName, winningLine } from "./labels.js";

const ARROWS = { ArrowLeft: [0, -1], ArrowRight: [0, 1], ArrowUp: [-1, 0], ArrowDown: [1, 0] };

function cellLabel(space, mark) {
  return `${gridName(space)} (${space}): ${mark === "-" ? "empty" : mark}`;
}

/** A read-only board summary for screen readers: "X on A1, B2; O on C1; 6 empty". */
export function boardSummary(board) {
  const spaces = (mark) => [...board].flatMap((cell, index) => (cell === mark ? [gridName(index + 1)] : []));
  const parts = [];
  for (const mark of ["X", "O"]) {
    const found = spaces(mark);
    if (found.length) parts.push(`${mark} on ${found.join(", ")}`);
  }
  parts.push(`${spaces("-").length} empty`);
  return parts.join("; ");
}

export class BoardView {
  /** onTake(space) is called when a playable board's cell is chosen. */
  constructor({ label, onTake = null, size = "large" }) {
    this.onTake = onTake;
    this.focusIndex = 4;
    this.playable = onTake !== null;
    const tag = this.playable ? "button" : "span";
    this.cells = Array.from({ length: 9 }, (_, index) =>
      h(
        tag,
        {
          class: "cell",
          type: this.playable ? "button" : null,
          tabindex: this.playable ? (index === this.focusIndex ? "0" : "-1") : null,
          dataset: { space: String(index + 1) },
          on: this.playable ? { click: () => this.onTake(index + 1), focus: () => this.#remember(index) } : {},
        },
        h("span", { class: "mark", "aria-hidden": "true" }),
        h("span", { class: "coordinate", "aria-hidden": "true", text: gridName(index + 1) }),
      ),
    );
    this.element = h(
      "div",
      {
        class: `board board-${size}`,
        role: this.playable ? "group" : "img",
        "aria-label": label,
        on: this.playable ? { keydown: (event) => this.#key(event) } : {},
      },
      this.cells,
    );
    this.label = label;
  }

  /** Show `board`; `last` is the space of the latest move, `pending` one being sent, `active` whether moves are possible. */
  update(board, { last = null, pending = null, active = true } = {}) {
    const line = winningLine(board) ?? [];
    this.cells.forEach((cell, index) => {
      const mark = board[index];
      cell.querySelector(".mark").textContent = mark === "-" ? (pending === index + 1 ? "·" : "") : mark;
      cell.dataset.mark = mark;
      cell.classList.toggle("winning", line.includes(index));
      cell.classList.toggle("last", last === index + 1);
      cell.classList.toggle("pending", pending === index + 1);
      if (this.playable) {
        cell.setAttribute("aria-label", cellLabel(index + 1, mark));
        cell.setAttribute("aria-disabled", String(!active || mark !== "-"));
      }
    });
    if (!this.playable) this.element.setAttribute("aria-label", `${this.label}: ${boardSummary(board)}`);
  }

  focus() {
    this.cells[this.focusIndex].focus();
  }

  #remember(index) {
    this.cells[this.focusIndex].tabIndex = -1;
    this.focusIndex = index;
    this.cells[index].tabIndex = 0;
  }

  #key(event) {
    const step = ARROWS[event.key];
    if (!step) return;
    event.preventDefault();
    const row = Math.floor(this.focusIndex / 3);
    const column = this.focusIndex % 3;
    const next = ((row + step[0] + 3) % 3) * 3 + ((column + step[1] + 3) % 3);
    this.#remember(next);
    this.cells[next].focus();
  }
}

/** A small picture of a board for lists (hidden from screen readers, which read the state text instead). */
export function miniBoard(board) {
  return h(
    "span",
    { class: "mini-board", "aria-hidden": "true" },
    [...board].map((mark) => h("span", { class: "mini-cell", dataset: { mark }, text: mark === "-" ? "" : mark })),
  );
}

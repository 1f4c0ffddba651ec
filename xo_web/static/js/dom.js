// Building the page's elements. Text is only ever set as text (textContent or text
// nodes), never parsed as markup: game names and key names come from other players.

/**
 * h("button", {class: "cell", "aria-label": "A1", on: {click}}, "text", child)
 * Properties: `class`, `text` (textContent), `on` (event listeners), `dataset`,
 * booleans (true sets the attribute empty, false leaves it out), anything else as an attribute.
 */
export function h(tag, props = {}, ...children) {
  const element = document.createElement(tag);
  for (const [key, value] of Object.entries(props)) {
    if (value === undefined || value === null || value === false) continue;
    if (key === "class") element.className = value;
    else if (key === "text") element.textContent = value;
    else if (key === "on") for (const [type, listener] of Object.entries(value)) element.addEventListener(type, listener);
    else if (key === "dataset") Object.assign(element.dataset, value);
    else element.setAttribute(key, value === true ? "" : String(value));
  }
  append(element, children);
  return element;
}

/** Append children: nodes as they are, strings and numbers as text nodes, arrays flattened, nullish skipped. */
export function append(parent, children) {
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    parent.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return parent;
}

/** Replace every child of `parent`. */
export function replace(parent, ...children) {
  parent.replaceChildren();
  return append(parent, children);
}

/** Player-chosen text, isolated so right-to-left text cannot reorder what surrounds it. */
export function shown(text, className = "name") {
  return h("bdi", { class: className, text });
}

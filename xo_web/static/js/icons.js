// The page's own pictures, drawn as inline SVG built element by element (never parsed from markup), so they
// look the same on every machine: emoji need an emoji font, and without one they show as empty boxes.
// Each is drawn in currentColor on a 24 x 24 grid and sized by CSS.

const SVG = "http://www.w3.org/2000/svg";

// A throw's picture as shapes: [element, attributes]. A rock (a stone), a paper (a sheet with a folded
// corner and lines of writing), scissors (two handles, two crossed blades).
const SHAPES = {
  rock: [
    ["path", { d: "M2.5 15.5 5.5 7.5 12 3.5l7 2.5 3 7.5-3 6.5-11 1z", fill: "currentColor", "fill-opacity": "0.25" }],
    ["path", { d: "M2.5 15.5 5.5 7.5 12 3.5l7 2.5 3 7.5-3 6.5-11 1z" }],
    ["path", { d: "M7.5 11 11.5 8l4.5 1.2" }],
  ],
  paper: [
    ["path", { d: "M5.5 2.5h9l4 4v15h-13z", fill: "currentColor", "fill-opacity": "0.12" }],
    ["path", { d: "M5.5 2.5h9l4 4v15h-13z" }],
    ["path", { d: "M14.5 2.5v4h4M8.5 11h7M8.5 14.5h7M8.5 18h5" }],
  ],
  scissors: [
    ["circle", { cx: "6.5", cy: "18", r: "3" }],
    ["circle", { cx: "17.5", cy: "18", r: "3" }],
    ["path", { d: "M8.3 15.6 18.5 2.5M15.7 15.6 5.5 2.5" }],
    ["circle", { cx: "12", cy: "10.85", r: "1", fill: "currentColor" }],
  ],
};

function svgElement(tag, attributes) {
  const element = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attributes)) element.setAttribute(name, value);
  return element;
}

/** The picture of a throw ("rock", "paper" or "scissors"): decorative, its name is always said beside it. */
export function throwIcon(throw_, className = "throw-icon") {
  const icon = svgElement("svg", {
    class: `icon ${className}`,
    viewBox: "0 0 24 24",
    fill: "none",
    stroke: "currentColor",
    "stroke-width": "1.6",
    "stroke-linecap": "round",
    "stroke-linejoin": "round",
    "aria-hidden": "true",
    focusable: "false",
    "data-throw": throw_,
  });
  for (const [tag, attributes] of SHAPES[throw_]) icon.append(svgElement(tag, attributes));
  return icon;
}

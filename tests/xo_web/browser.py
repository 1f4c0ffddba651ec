"""A headless Chromium for the page's tests: Debian's ``chromium``, driven by Playwright.

Playwright's own browser download cannot work on these machines (no network), so it
drives the system's Chromium by its executable path, headless, with a fresh profile
(Playwright makes a temporary ``--user-data-dir`` for every launch) and with every
background network feature off. Without a Chromium the browser tests skip, saying
why; in CI (``CI=true``) they fail instead: ``.ci/run`` installs it, so a missing
browser there is a broken CI, not a reason to skip.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import TYPE_CHECKING, Final

import pytest

if TYPE_CHECKING:
    from collections.abc import Iterator, Sequence

    from playwright.sync_api import Browser, BrowserContext, Page, ViewportSize

CHROMIUM_ENV: Final = "XO_CHROMIUM"
CHROMIUM_ARGS: Final = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
SECONDS: Final = 10.0

# Measures, in the page, when a move is clicked and when a cell first shows a mark (the frame after the
# board changed, when it is painted), on the clock all pages of one browser share. Each player's page is
# a window (browser context) of its own: headless Chromium draws a background tab lazily.
MEASURE_SCRIPT: Final = """
window.__xo = {clicks: {}, seen: {}};
const now = () => performance.timeOrigin + performance.now();
document.addEventListener("click", (event) => {
  const cell = event.target.closest && event.target.closest(".cell");
  if (cell) window.__xo.clicks[cell.dataset.space] = now();
}, true);
new MutationObserver(() => {
  for (const cell of document.querySelectorAll("button.cell")) {
    const space = cell.dataset.space;
    if (cell.dataset.mark && cell.dataset.mark !== "-" && !(space in window.__xo.seen)) {
      window.__xo.seen[space] = null;
      requestAnimationFrame(() => { window.__xo.seen[space] = now(); });
    }
  }
}).observe(document, {subtree: true, childList: true, attributes: true, attributeFilter: ["data-mark"]});
"""


def unavailable(reason: str) -> None:
    """Skip with ``reason``, or fail in CI, where the browser must be there."""
    if os.environ.get("CI") == "true":
        pytest.fail(f"{reason} (CI=true: the browser tests must run in CI; .ci/run installs chromium)")
    pytest.skip(reason)


def launched_chromium(timeout_seconds: float) -> Iterator[Browser]:
    """Debian's Chromium under Playwright for a module's browser fixture, every ``expect`` waiting at most
    ``timeout_seconds``; skipped (or failed in CI) as :func:`unavailable` says when either is missing."""
    try:
        from playwright.sync_api import expect, sync_playwright  # noqa: PLC0415 (the test extra may be missing)
    except ImportError:
        unavailable("playwright is not installed: pip install -e '.[test]'")
    executable = chromium_executable()
    expect.set_options(timeout=timeout_seconds * 1000)
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS, headless=True)
        yield launched
        launched.close()


def open_windows(
    browser: Browser, address: str, players: Sequence[str], errors: list[str], viewport: ViewportSize
) -> tuple[list[BrowserContext], list[Page]]:
    """A page at ``address`` for each of ``players``, each in a window (browser context) of its own with
    :data:`MEASURE_SCRIPT`, playing as that player (picked in the page's player list) and live; each page's
    errors go to ``errors``. Every page's load starts before any is waited for, so that they overlap."""
    from playwright.sync_api import expect  # noqa: PLC0415 (the test extra may be missing)

    contexts, pages = [], []
    for _ in players:
        contexts.append(browser.new_context(viewport=viewport))
        contexts[-1].add_init_script(MEASURE_SCRIPT)
        pages.append(contexts[-1].new_page())
        pages[-1].on("pageerror", lambda error: errors.append(f"{error}: {error.stack}"))
        pages[-1].goto(address, wait_until="commit")
    for page, player in zip(pages, players, strict=True):
        page.select_option("#player", player)  # once the page has listed the keys
    for page in pages:
        expect(page.locator("#connection")).to_have_attribute("data-live", "true")
    return contexts, pages


def chromium_executable() -> str:
    """The system Chromium: ``$XO_CHROMIUM``, else ``chromium`` on the PATH."""
    found = os.environ.get(CHROMIUM_ENV) or shutil.which("chromium") or shutil.which("chromium-browser")
    if not found or not Path(found).exists():
        unavailable("no Chromium to run the browser tests: install Debian's chromium (apt-get install chromium) "
                    f"or set {CHROMIUM_ENV}")
    return str(found)


# Which characters of the page's text the browser has no glyph for: each is drawn on a canvas in the page's
# font and compared, pixel for pixel, with a private-use character, which no font draws (the "tofu" box).
TOFU_SCRIPT: Final = """
() => {
  const canvas = document.createElement("canvas");
  canvas.width = canvas.height = 64;
  const context = canvas.getContext("2d", { willReadFrequently: true });
  context.font = `32px ${getComputedStyle(document.body).fontFamily}`;
  const pixels = (text) => {
    context.clearRect(0, 0, 64, 64);
    context.fillText(text, 8, 44);
    return context.getImageData(0, 0, 64, 64).data.join(",");
  };
  const box = pixels("\\uE000");
  const characters = new Set(document.body.innerText.replace(/\\s/g, ""));
  return [...characters].filter((character) => pixels(character) === box);
}
"""

# Every SVG icon under a selector: [its data-throw, width, height, how many of its shapes have an area].
ICONS_SCRIPT: Final = """
(icons) => icons.map((icon) => {
  const box = icon.getBoundingClientRect();
  const drawn = [...icon.children].filter((shape) => shape.getBBox().width > 0 && shape.getBBox().height > 0);
  return [icon.dataset.throw, box.width, box.height, drawn.length];
})
"""


def tofu(page: Page) -> list[str]:
    """The characters of ``page``'s text drawn as the missing-glyph box (none, on a page that renders everywhere)."""
    return page.evaluate(TOFU_SCRIPT)


def drawn_icons(page: Page, selector: str) -> list[tuple[str, float, float, int]]:
    """Each SVG icon matching ``selector``: (its throw, rendered width, rendered height, shapes with an area)."""
    return [tuple(icon) for icon in page.locator(selector).evaluate_all(ICONS_SCRIPT)]

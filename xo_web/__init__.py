"""``xo web``: XO and rock-paper-scissors in a browser, live, served by a small local server on the player's machine.

The server (aiohttp, already a dependency) serves a page of plain HTML, CSS and
JavaScript modules (``static/``: no build step, nothing fetched at run time) and is
the page's only way to the chain: it follows the REST API's ``/subscriptions`` once
and fans every block out to the open pages over server-sent events, and it signs
moves with the player's key files, so private keys never reach the browser. Since
it can sign with those keys, nothing but its own page may use it (:mod:`xo_web.security`).

Modules, one job each: :mod:`~xo_web.command` (the ``xo web`` command: binding,
serving, stopping), :mod:`~xo_web.app` (routes and wiring), :mod:`~xo_web.security`
(the token, ``Host``/``Origin`` checks, security headers), :mod:`~xo_web.page` (the
page and its static files), :mod:`~xo_web.lobby` (every game of a family as of the last block),
:mod:`~xo_web.live` (the one follower of the chain), :mod:`~xo_web.fanout` and
:mod:`~xo_web.events` (blocks to many pages, slow ones dropped), :mod:`~xo_web.views`
(the JSON the page reads), :mod:`~xo_web.sender` (the key, one batch sent and waited for),
:mod:`~xo_web.moves` and :mod:`~xo_web.rps_moves` (checking, signing and submitting a
move or an rps op for the page; the reveals of the page's throws),
:mod:`~xo_web.computer` (the computer as the page's opponent: ``xo bot``'s seat core),
:mod:`~xo_web.history` (a game's past), :mod:`~xo_web.errors` (Sawtooth-style error bodies).
"""

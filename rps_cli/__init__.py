"""The ``rps`` command: rock-paper-scissors on a Sawtooth network, for players.

Shaped like ``xo_cli``: only rps's verbs and rendering live here; the REST client,
flags, keys, batch submission, waiting, following the chain, error lines and exit
codes come from :mod:`client_core`, and every rule from :mod:`rps_tp`. The one thing
no other command has is the vault (:mod:`rps_cli.vault`), where a throw's salt waits
between its commit and its reveal.
"""

"""The ``rps`` command: rock-paper-scissors on a Sawtooth network, for players.

Shaped like ``xo_cli``: only rps's argument parsing and rendering live here. What an
rps game looks like to a client (games read and followed, changes, checks, turns, the
vault where a throw's salt waits between its commit and its reveal, transaction
builders) is :mod:`rps_client`'s; the REST client, flags, keys, batch submission,
waiting, error lines and exit codes come from :mod:`client_core`, and every rule from
:mod:`rps_tp`.
"""

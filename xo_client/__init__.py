"""What an XO game looks like to a client, shared by the ``xo`` command and the web page.

Reading games from the chain and following them, their changes, the game book,
notation, the computer player and its seat, a name's history, Aries conversions and
signed transaction builders. Rules come from :mod:`xo_tp`, plumbing from
:mod:`client_core`; argument parsing and rendering stay in :mod:`xo_cli`.
"""

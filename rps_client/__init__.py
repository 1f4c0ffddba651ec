"""What an rps game looks like to a client, shared by the ``rps`` command and the web page.

Reading games from the chain and following one, their changes, the game book, whose
turn it is, the checks made before an op is signed, the vault where a throw's salt
waits between commit and reveal, and signed transaction builders. Rules come from
:mod:`rps_tp`, plumbing from :mod:`client_core`; argument parsing and rendering stay
in :mod:`rps_cli`.
"""

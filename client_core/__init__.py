"""What every client command of this project shares (``xo``, ``rps``): the plumbing, no game.

The REST API client, flags and their environment variables, keys, batch submission
and waiting, error lines and exit codes. A game's command adds only its verbs and
its rendering.
"""

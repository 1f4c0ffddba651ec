"""A misbehaving agent for the tests: sends any ``move`` or ``outcome`` it is told to, legal or not.

Loaded only into the tests' second agent (``--plugin xo_aries_cheat``), never shipped: the
real plugin refuses to send an illegal move, so the tests need this to see how the other
agent answers one.
"""

"""The ``chips`` command: accounts, channels, and matches played off chain for stakes (docs/chips-client.md)."""

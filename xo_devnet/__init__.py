"""xo-devnet: a one-process, Sawtooth-compatible ledger for playing and testing XO on one machine."""

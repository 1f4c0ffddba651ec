"""The Sawtooth REST API in front of the devnet ledger: same paths, JSON envelopes and error codes."""

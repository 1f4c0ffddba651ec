"""What the chips family looks like to a client: signed transactions, and off-chain states signed for a channel."""

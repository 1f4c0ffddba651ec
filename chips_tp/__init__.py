"""The chips transaction family: accounts of chips, and two-player state channels the chain referees."""

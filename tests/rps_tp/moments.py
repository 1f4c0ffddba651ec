"""Moments of a game, as tests name the ones their ops are signed for."""

from rps_tp.game import COMMIT_PHASE, JOIN_PHASE, OVER_PHASE, REVEAL_PHASE, SETUP_PHASE, Moment

#: Before play: a game without a host, and one being set up (joined, set up, readied).
JOINING = Moment(0, JOIN_PHASE)
SETTING_UP = Moment(0, SETUP_PHASE)


def committing(round_number: int) -> Moment:
    """Round ``round_number`` while a player has not committed."""
    return Moment(round_number, COMMIT_PHASE)


def revealing(round_number: int) -> Moment:
    """Round ``round_number`` once both players have committed."""
    return Moment(round_number, REVEAL_PHASE)


def over(round_number: int) -> Moment:
    """A game that ended in round ``round_number``."""
    return Moment(round_number, OVER_PHASE)

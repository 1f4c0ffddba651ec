"""Players' ratings from the results of their games, in chain order: the table ``xo ratings`` prints. Pure, no I/O.

The arithmetic is openskill's (``openskill.models.PlackettLuce`` with the library's own
defaults), not ours: every result is one update of both players' ratings, in the order
:func:`order_key` gives (block number, then family, game and place), so the same results
give the same table on any machine (with the same openskill release). There is no rating
period and no decay with time: the table depends on the chain alone, never on when it is
read. Numbers are rounded to :data:`JSON_PLACES` places (two in a table for people), and
ties are broken by the key, so the table is the same byte for byte. docs/ratings.md says what counts as a game.

Knows no game: each family's client library turns its state into :class:`Outcome` values.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, Final, NamedTuple

import openskill
from openskill.models import PlackettLuce

FAMILIES: Final = ("xo", "rps", "chips")
"""The families whose games are rated, in the order their results in one block are taken."""
WIN: Final = "win"
LOSS: Final = "loss"
DRAW: Final = "draw"
OUTCOMES: Final = (WIN, LOSS, DRAW)
"""How a game ended for its first player."""
JSON_PLACES: Final = 6
TABLE_PLACES: Final = 2
MODEL: Final = PlackettLuce()
"""openskill's Weng-Lin Plackett-Luce model with its defaults: mu 25, sigma 25/3, beta 25/6, tau 25/300."""
_RANKS: Final = {WIN: [0, 1], LOSS: [1, 0], DRAW: [0, 0]}
PROVISIONAL_GAMES: Final = 5
"""Below this many games a rating is provisional, marked ``?`` as lichess marks one: a few results still move it far."""
ORDER_WORDS: Final = "ranked by SCORE = RATING - 3 * DEVIATION, a rating the player is very likely above"
"""How the table is sorted, said wherever it is shown."""
PROVISIONAL_WORDS: Final = f"? marks a provisional rating: fewer than {PROVISIONAL_GAMES} games"


class Outcome(NamedTuple):
    """One game's result as a family reads it: two different keys and how it ended for the first."""

    first: str
    second: str
    outcome: str


class Finished(NamedTuple):
    """A finished game a family finds in state: ``ident`` tells it from any other game at the same address.

    ``outcomes`` are the games it counts as (one for a game; a staked match may count as several, or none).
    """

    ident: str
    game: str
    outcomes: tuple[Outcome, ...]


class Result(NamedTuple):
    """One rated game, placed on the chain: the block it finished in, its family and game, its place there."""

    block_num: int
    family: str
    game: str
    place: int
    first: str
    second: str
    outcome: str

    def as_list(self) -> list[object]:
        return list(self)


def order_key(result: Result) -> tuple[int, int, str, int]:
    """Chain order: by block, then family (xo, rps, chips), then the game's name (or channel id), then place."""
    return result.block_num, FAMILIES.index(result.family), result.game, result.place


def placed(block_num: int, family: str, finished: Finished) -> list[Result]:
    """The results ``finished`` counts as, once it finished in block ``block_num``."""
    return [
        Result(block_num, family, finished.game, place, outcome.first, outcome.second, outcome.outcome)
        for place, outcome in enumerate(finished.outcomes)
    ]


class Standing(NamedTuple):
    """One row of the table: a player's rating (openskill's mu) and deviation (sigma), and their games."""

    key: str
    rating: float
    deviation: float
    games: int
    wins: int
    losses: int
    draws: int

    @property
    def ordinal(self) -> float:
        """The rating less three deviations: a rating the player is very likely above; what the table is ranked by."""
        return self.rating - 3 * self.deviation

    @property
    def provisional(self) -> bool:
        """Whether the rating rests on too few games to mean much yet (:data:`PROVISIONAL_GAMES`)."""
        return self.games < PROVISIONAL_GAMES

    def words(self) -> str:
        """``rated 27.31 ± 4.02 (6 games)``; a provisional rating marked ``27.31?``."""
        mark = "?" if self.provisional else ""
        return f"rated {self.rating:.{TABLE_PLACES}f}{mark} ± {self.deviation:.{TABLE_PLACES}f} ({games(self.games)})"

    def as_json(self, rank: int) -> dict[str, object]:
        """The row for ``--json``: the full key, the numbers rounded to :data:`JSON_PLACES` places."""
        return {
            "rank": rank,
            "key": self.key,
            "rating": round(self.rating, JSON_PLACES),
            "deviation": round(self.deviation, JSON_PLACES),
            "ordinal": round(self.ordinal, JSON_PLACES),
            "games": self.games,
            "wins": self.wins,
            "losses": self.losses,
            "draws": self.draws,
            "provisional": self.provisional,
        }


def games(count: int) -> str:
    """``1 game``, ``6 games``: a staked match's games and rounds each count as one."""
    return f"{count} game" if count == 1 else f"{count} games"


class Ratings:
    """Every player's rating as results are added, in chain order (:func:`order_key`); unrated players start equal.

    :meth:`state` is what a pool is after the first ``upto`` results of a list, as JSON, and
    :meth:`resumed` takes it up again: the numbers travel as JSON's shortest round-trip
    spelling of each float, so a pool resumed and fed the rest is, bit for bit, the pool fed
    everything, and a long chain is not rated again from its first game at every read.
    """

    def __init__(self, family: str | None = None) -> None:
        self.family = family
        """Only this family's results count (None: every family's)."""
        self._ratings: dict[str, object] = {}
        self._counts: dict[str, list[int]] = {}
        self.count = 0

    @classmethod
    def resumed(cls, family: str | None, results: Sequence[Result], saved: object) -> Ratings:
        """The pool of ``results`` (in chain order), taken up from ``saved`` where that holds their first part."""
        ratings = cls(family)
        upto = ratings._restore(saved, len(results))
        ratings.add(results[upto:])
        return ratings

    def state(self, upto: int) -> dict[str, Any]:
        """This pool as JSON, once it holds the first ``upto`` results of its list."""
        players = {
            key: [rating.mu, rating.sigma, *self._counts[key]]  # type: ignore[attr-defined]
            for key, rating in self._ratings.items()
        }
        return {"family": self.family, "upto": upto, "games": self.count, "players": players}

    def _restore(self, saved: object, length: int) -> int:
        """Take up ``saved`` if it is this pool's state over at most ``length`` results; how many it holds (0: none)."""
        if not isinstance(saved, dict) or saved.get("family") != self.family:
            return 0
        upto, games, players = saved.get("upto"), saved.get("games"), saved.get("players")
        if type(upto) is not int or not 0 <= upto <= length or type(games) is not int or not isinstance(players, dict):
            return 0
        ratings, counts = {}, {}
        for key, row in players.items():
            if not (isinstance(row, list) and len(row) == 5 and all(type(x) is float for x in row[:2])):
                return 0
            if not all(type(x) is int and x >= 0 for x in row[2:]) or not row[1] > 0:
                return 0
            ratings[key], counts[key] = MODEL.rating(mu=row[0], sigma=row[1]), list(row[2:])
        self._ratings, self._counts, self.count = ratings, counts, games
        return upto

    def add(self, results: Iterable[Result]) -> None:
        """Update both players of each result, one result after another, in the order given."""
        for result in results:
            if self.family is not None and result.family != self.family:
                continue
            first, second = self._rating(result.first), self._rating(result.second)
            [[first], [second]] = MODEL.rate([[first], [second]], ranks=_RANKS[result.outcome])
            self._ratings[result.first], self._ratings[result.second] = first, second
            self._count(result.first, OUTCOMES.index(result.outcome))
            self._count(result.second, OUTCOMES.index(flipped(result.outcome)))
            self.count += 1

    def _rating(self, key: str) -> object:
        rating = self._ratings.get(key)
        return MODEL.rating() if rating is None else rating

    def _count(self, key: str, column: int) -> None:
        counts = self._counts.setdefault(key, [0, 0, 0])
        counts[column] += 1

    def standings(self) -> list[Standing]:
        """The table: best first by the rounded ordinal, then the rounded rating, then the key."""
        rows = []
        for key, rating in self._ratings.items():
            wins, losses, draws = self._counts[key]
            mu, sigma = rating.mu, rating.sigma  # type: ignore[attr-defined]
            rows.append(Standing(key, mu, sigma, wins + losses + draws, wins, losses, draws))
        return sorted(rows, key=rank_key)


def rank_key(row: Standing) -> tuple[float, float, str]:
    """Best first: the higher ordinal, then the higher rating (both rounded, so no last bit decides), then the key."""
    return -round(row.ordinal, JSON_PLACES), -round(row.rating, JSON_PLACES), row.key


def flipped(outcome: str) -> str:
    """How a game ended for the second player."""
    return {WIN: LOSS, LOSS: WIN, DRAW: DRAW}[outcome]


def rated(results: Iterable[Result], family: str | None = None) -> list[Standing]:
    """The table of ``results`` (sorted into chain order here), of one family's games or of all."""
    ratings = Ratings(family)
    ratings.add(sorted(results, key=order_key))
    return ratings.standings()


def system() -> dict[str, object]:
    """The rating system and its parameters, as ``--json`` states them (docs/ratings.md)."""
    return {
        "library": "openskill",
        "version": openskill.__version__,
        "model": "PlackettLuce",
        "mu": MODEL.mu,
        "sigma": MODEL.sigma,
        "beta": MODEL.beta,
        "tau": MODEL.tau,
        "ranked_by": "rating - 3 * deviation",
    }

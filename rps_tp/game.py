"""What an rps game is: its lifecycle states, throws, settings, players and results, and when one is consistent.

Games are immutable values (the rules return new ones). Everything here is pure. The
field names are the ones the state codec writes (see ``docs/rps-family.md``), so a
reader of the specification finds each of them here under the same name.
"""

import re
from typing import Final, NamedTuple

from xo_core.text import duration, quoted

# Lifecycle states, in the order a game goes through them.
AWAITING_HOST: Final = "AWAITING_HOST"
AWAITING_GAME: Final = "AWAITING_GAME"
PLAYING_GAME: Final = "PLAYING_GAME"
CONCLUDED: Final = "CONCLUDED"
STATES: Final = (AWAITING_HOST, AWAITING_GAME, PLAYING_GAME, CONCLUDED)

# Phases: what a game waits for. A round and a phase name a moment of the game, and every
# op on an existing game names the moment it was signed for: it counts then and never
# at another moment, so an op refused once cannot be sent again to take effect later.
JOIN_PHASE: Final = "join"  # AWAITING_HOST: the first player to join hosts the game
SETUP_PHASE: Final = "setup"  # AWAITING_GAME: a second player joins, the host sets up, both get ready
COMMIT_PHASE: Final = "commit"  # PLAYING_GAME, while a player has not committed in the round
REVEAL_PHASE: Final = "reveal"  # PLAYING_GAME, once both players have committed in the round
OVER_PHASE: Final = "over"  # CONCLUDED
PHASES: Final = (JOIN_PHASE, SETUP_PHASE, COMMIT_PHASE, REVEAL_PHASE, OVER_PHASE)
#: The phases before play, always in round 0; the others are in rounds 1 to MAX_ROUNDS.
PHASES_BEFORE_PLAY: Final = (JOIN_PHASE, SETUP_PHASE)

ROCK: Final = "rock"
PAPER: Final = "paper"
SCISSORS: Final = "scissors"
THROWS: Final = (ROCK, PAPER, SCISSORS)
#: Each throw and the one it beats: rock blunts scissors, scissors cut paper, paper wraps rock.
BEATS: Final = {ROCK: SCISSORS, SCISSORS: PAPER, PAPER: ROCK}

# How a game ended.
NORMAL: Final = "normal"
BY_RESIGNATION: Final = "by-resignation"
BY_TIMEOUT: Final = "by-timeout"
CONCLUSION_TYPES: Final = (NORMAL, BY_RESIGNATION, BY_TIMEOUT)

# How it ended for one player.
WON: Final = "won"
LOST: Final = "lost"
DREW: Final = "drew"
RESIGNED: Final = "resigned"
TIMED_OUT: Final = "timed-out"
OUTCOMES: Final = (WON, LOST, DREW, RESIGNED, TIMED_OUT)

#: A game has exactly two seats.
SEATS: Final = 2
#: The points objectives a host may choose: first to 1, 2 or 3 points.
POINTS_OBJECTIVES: Final = (1, 2, 3)
#: Time-outs in whole seconds: at least one second, at most a week.
MIN_TIMEOUT: Final = 1
MAX_TIMEOUT: Final = 7 * 24 * 60 * 60
#: Rounds a game may last. Ties score nothing, so without a bound two players could
#: tie forever and grow the game's state without limit; after this round the higher
#: score wins and equal scores draw.
MAX_ROUNDS: Final = 100
#: Longest game name, in bytes of UTF-8.
MAX_NAME_BYTES: Final = 128
#: Bytes in a commitment (a SHA-256 digest) and in a salt.
COMMITMENT_BYTES: Final = 32
SALT_BYTES: Final = 32

#: Characters no name may hold: C0 and C1 controls, and lone surrogates (which no UTF-8 text can carry).
_NOT_IN_NAMES: Final = re.compile("[\x00-\x1f\x7f-\x9f\ud800-\udfff]")


class Settings(NamedTuple):
    """What the host sets up and both players agree to: first to ``points``, ``timeout`` seconds to act."""

    points: int
    timeout: int


DEFAULT_SETTINGS: Final = Settings(points=1, timeout=300)


class Moment(NamedTuple):
    """A moment of a game, as an op names the one it was signed for: a round and a phase of it."""

    round: int
    phase: str


class Player(NamedTuple):
    """One seat. ``commitment`` and ``throw`` belong to the current round only."""

    key: str
    ready: bool = False
    score: int = 0
    commitment: bytes | None = None
    throw: str | None = None


class Result(NamedTuple):
    """How the game ended for one player."""

    outcome: str
    final_score: int


class Game(NamedTuple):
    """One game, field for field as the state codec stores it.

    ``players`` are in joining order (the host first); ``results`` is parallel to them.
    ``round`` is 0 before play and then the number of the round being played (or, once
    concluded, the last one played). ``history`` holds the throws of every completed
    round, in seat order. ``waiting_since`` is the BlockInfo timestamp at which the
    current phase (a round's commits, or its reveals) began, when both players' turn to
    act started: the clock a claim is judged by (see :func:`laggard`); ``None`` outside
    play, or when the network kept no BlockInfo as the phase began.
    """

    name: str
    state: str
    host: str | None
    settings: Settings
    players: tuple[Player, ...]
    round: int
    history: tuple[tuple[str, str], ...]
    waiting_since: int | None
    conclusion_type: str | None
    results: tuple[Result, ...] | None


def new_game(name: str, settings: Settings = DEFAULT_SETTINGS) -> Game:
    """A game nobody has joined yet: no host, no players."""
    return Game(name, AWAITING_HOST, None, settings, (), 0, (), None, None, None)


def moment_of(game: Game) -> Moment:
    """The moment ``game`` is at: the one an op must name to count now."""
    if game.state == AWAITING_HOST:
        return Moment(0, JOIN_PHASE)
    if game.state == AWAITING_GAME:
        return Moment(0, SETUP_PHASE)
    if game.state == CONCLUDED:
        return Moment(game.round, OVER_PHASE)
    committed = all(player.commitment is not None for player in game.players)
    return Moment(game.round, REVEAL_PHASE if committed else COMMIT_PHASE)


def describe_moment(moment: Moment) -> str:
    """A moment as messages name it, e.g. ``round 2, reveal phase``."""
    return f"round {moment.round}, {moment.phase} phase"


def moment_problem(moment: Moment) -> str | None:
    """Why ``moment`` can be no game's, or ``None``: play is in rounds 1 and up, the phases before it in round 0."""
    if moment.phase in PHASES_BEFORE_PLAY:
        return None if moment.round == 0 else f"'round' must be 0 in the {moment.phase} phase, not {moment.round}"
    if moment.round == 0:
        return f"'round' must be from 1 to {MAX_ROUNDS} in the {moment.phase} phase, not 0"
    return None


def round_winner(throws: tuple[str, str]) -> int | None:
    """The seat (0 or 1) whose throw wins, or ``None`` for a tie."""
    first, second = throws
    if first == second:
        return None
    return 0 if BEATS[first] == second else 1


def scores_from(history: tuple[tuple[str, str], ...]) -> tuple[int, int]:
    """Each seat's points after ``history``: one per round won, none for a tie."""
    won = [round_winner(throws) for throws in history]
    return won.count(0), won.count(1)


def seat_of(game: Game, key: str) -> int | None:
    """The seat of the player whose public key is ``key``, or ``None``."""
    for seat, player in enumerate(game.players):
        if player.key == key:
            return seat
    return None


def laggard(game: Game) -> int | None:
    """The seat the game is waiting for alone, or ``None``.

    In play, a round has two steps, each taken by both players: commit, then reveal.
    When exactly one player has taken the current step, the game waits for the other
    alone, who may then be timed out. When neither has, both are to act and nobody is
    holding the game up.
    """
    if game.state != PLAYING_GAME:
        return None
    first, second = game.players
    if first.commitment is None or second.commitment is None:
        done = (first.commitment is not None, second.commitment is not None)
    else:
        done = (first.throw is not None, second.throw is not None)
    if done == (True, False):
        return 1
    if done == (False, True):
        return 0
    return None


def describe_settings(settings: Settings) -> str:
    """Settings in a player's words, e.g. ``first to 3 points, 2 min 0 s to act``: time as every command says it."""
    points = "1 point" if settings.points == 1 else f"{settings.points} points"
    return f"first to {points}, {duration(settings.timeout)} to act"


def name_problem(name: str) -> str | None:
    """Why ``name`` cannot name a game, or ``None`` if it can.

    A name is 1 to :data:`MAX_NAME_BYTES` bytes of UTF-8 without C0 or C1 control
    characters (U+0000-U+001F, U+007F-U+009F): names are shown to other players, and
    a control character in one is never what its creator meant.
    """
    if not name:
        return "the game name is empty"
    size = len(name.encode("utf-8", "surrogatepass"))
    if size > MAX_NAME_BYTES:
        return f"the game name is {size} bytes long; at most {MAX_NAME_BYTES} bytes (UTF-8) are allowed"
    found = _NOT_IN_NAMES.search(name)
    if found is None:
        return None
    code, position = ord(found.group()), found.start() + 1
    if code >= 0xD800:
        return f"the game name must be Unicode text (a lone surrogate U+{code:04X} at position {position})"
    return f"the game name must not contain control characters (U+{code:04X} at position {position})"


def settings_problem(settings: Settings) -> str | None:
    """Why ``settings`` are out of range, or ``None``."""
    if settings.points not in POINTS_OBJECTIVES:
        return f"the points objective must be 1, 2 or 3, not {settings.points}"
    if not MIN_TIMEOUT <= settings.timeout <= MAX_TIMEOUT:
        return f"the time-out must be from {MIN_TIMEOUT} to {MAX_TIMEOUT} seconds, not {settings.timeout}"
    return None


def consistency_problem(game: Game) -> str | None:
    """Why ``game`` is not a state the rules can produce, or ``None`` if it is one.

    The state codec refuses inconsistent games (corrupt state), and the property tests
    check every game the rules produce against it.
    """
    problem = name_problem(game.name) or settings_problem(game.settings)
    if problem:
        return problem
    if game.state not in STATES:
        return f"unknown state {quoted(game.state)}"
    keys = [player.key for player in game.players]
    if len(set(keys)) != len(keys):
        return "a player holds both seats"
    for player in game.players:
        if player.commitment is not None and len(player.commitment) != COMMITMENT_BYTES:
            return f"a commitment of {len(player.commitment)} bytes"
        if player.throw is not None and (player.throw not in THROWS or player.commitment is None):
            return "a throw without a commitment"
    if any(throw not in THROWS for throws in game.history for throw in throws):
        return "an unknown throw in the history"
    if game.state == AWAITING_HOST:
        return _pre_game_problem(game, seated=range(1))
    if game.state == AWAITING_GAME:
        return _pre_game_problem(game, seated=range(1, SEATS + 1))
    return _played_problem(game)


def _pre_game_problem(game: Game, seated: range) -> str | None:
    if len(game.players) not in seated:
        return f"{len(game.players)} players in state {game.state}"
    host = game.players[0].key if game.players else None
    if game.host != host:
        return "the host is not the first player"
    if any(player.score or player.commitment is not None for player in game.players):
        return "a score or commitment before play"
    if len(game.players) == SEATS and all(player.ready for player in game.players):
        return "both players ready but the game not started"
    if (game.round, game.history, game.waiting_since, game.conclusion_type, game.results) != (0, (), None, None, None):
        return "round, history, time-out or results before play"
    return None


def _played_problem(game: Game) -> str | None:
    if len(game.players) != SEATS or game.host != game.players[0].key:
        return f"state {game.state} needs two players, the host first"
    if not all(player.ready for player in game.players):
        return "a game in play with a player not ready"
    if not 1 <= game.round <= MAX_ROUNDS:
        return f"round {game.round}"
    scores = scores_from(game.history)
    if tuple(player.score for player in game.players) != scores:
        return "scores that do not match the history"
    if game.state == PLAYING_GAME:
        return _playing_problem(game, scores)
    return _concluded_problem(game, scores)


def _playing_problem(game: Game, scores: tuple[int, int]) -> str | None:
    if len(game.history) != game.round - 1:
        return f"{len(game.history)} completed rounds in round {game.round}"
    if max(scores) >= game.settings.points:
        return "a game still in play that someone has won"
    first, second = game.players
    if first.throw is not None and second.throw is not None:
        return "a round with both throws revealed but not scored"
    revealed = first.throw is not None or second.throw is not None
    if revealed and (first.commitment is None or second.commitment is None):
        return "a throw revealed before both players committed"
    if game.conclusion_type is not None or game.results is not None:
        return "results for a game still in play"
    return None


def _concluded_problem(game: Game, scores: tuple[int, int]) -> str | None:
    if any(player.commitment is not None for player in game.players) or game.waiting_since is not None:
        return "a concluded game with a round in progress"
    if game.conclusion_type not in CONCLUSION_TYPES or game.results is None or len(game.results) != SEATS:
        return "a concluded game without a conclusion type and two results"
    if tuple(result.final_score for result in game.results) != scores:
        return "final scores that do not match the history"
    outcomes = tuple(result.outcome for result in game.results)
    if game.conclusion_type == NORMAL:
        if len(game.history) != game.round:
            return f"{len(game.history)} completed rounds in a game that ended normally in round {game.round}"
        if outcomes != normal_outcomes(scores):
            return "outcomes that do not match the scores"
        if max(scores) < game.settings.points and game.round != MAX_ROUNDS:
            return "a game that ended normally before anyone won or the last round"
        return None
    if len(game.history) != game.round - 1:
        return f"{len(game.history)} completed rounds in a game that ended during round {game.round}"
    if max(scores) >= game.settings.points:
        return "a game won on points that ended otherwise"
    loser = RESIGNED if game.conclusion_type == BY_RESIGNATION else TIMED_OUT
    if outcomes not in ((WON, loser), (loser, WON)):
        return f"outcomes {outcomes} for a game that ended {game.conclusion_type}"
    return None


def normal_outcomes(scores: tuple[int, int]) -> tuple[str, str]:
    """The outcomes of a game that ended on points: the higher score wins, equal scores draw."""
    first, second = scores
    if first == second:
        return DREW, DREW
    return (WON, LOST) if first > second else (LOST, WON)

"""A key that plays a seat of XO games with the computer player: when to move, which space, and the move itself.

The one core behind every computer player on the ledger -- ``xo play --vs ai``,
``xo bot`` and the web page. It has no terminal I/O and no follower: the caller
follows the chain its own way and asks, whenever a game changed, whether this key
should move; then :meth:`SeatPlayer.play` reads the game afresh, chooses with
:mod:`xo_client.ai`, checks the move with the processor's own rules
(:func:`xo_client.checks.refuse_take`), signs it, submits it and waits for its commit.

Deciding (pure, :func:`turn_of`):

- the seat to move is this key's: move;
- it is open, and the key holds no seat: move, taking it -- unless the caller said
  the key does not *open* games (``opens=False``) and nobody has joined yet, so that
  a person plays X first and the computer answers as O;
- it is open, and the key holds the other seat: wait. Never both seats: a key that
  took player 2's seat too would lock the game to itself for good;
- the other player's seat: wait; both seats held by other keys: the key cannot play.

Choosing is deterministic with a seed: the space is picked with
``random.Random(f"{seed}:{board}")``, so a seeded player makes the same move in the
same position every time -- across games, restarts and processes. Without a seed,
each choice draws from the operating system's randomness.

The computer's own key is ``xo-ai`` in the key directory (:func:`ai_signer`), made on
first use, so its games read on the ledger as games between two players, and
``xo show`` names it ``xo-ai``.

Threads: a :class:`SeatPlayer` serialises its calls (its REST client is not
thread-safe), so an asyncio server can run :meth:`SeatPlayer.play` in a worker
thread, or await :meth:`SeatPlayer.aplay`, which does exactly that.
"""

from __future__ import annotations

import asyncio
import random
import threading
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Final, NamedTuple

from client_core.errors import InvalidInput, TimedOut
from client_core.keys import NO_NAMES, KeyNames, key_label, load_signer
from client_core.rest import RestClient
from client_core.submission import submit_and_wait
from xo_client.ai import DEFAULT_LEVEL, Level, choose_move
from xo_client.checks import refuse_take
from xo_client.games import Game, decode_games, find_game
from xo_client.outcome import outcome_text
from xo_client.transactions import make_xo_transaction
from xo_core.keyfiles import KeyFileError, key_paths, write_key_pair
from xo_core.signing import Signer
from xo_core.text import game_label
from xo_tp import rules
from xo_tp.family import game_address

AI_KEY_NAME: Final = "xo-ai"
"""The computer player's key, in the key directory like any player's."""
WAIT_SECONDS: Final = 60.0
"""How long a move is waited for before :class:`~client_core.errors.TimedOut` (it may still commit)."""
MARKS: Final = {1: rules.PLAYER_1_MARK, 2: rules.PLAYER_2_MARK}


class Action(StrEnum):
    """What a key should do in a game as it stands."""

    MOVE = "move"
    """Its turn: its own seat, or an open seat it may take."""
    WAIT = "wait"
    """The other player's turn, or an open seat it must not take (yet)."""
    OVER = "over"
    """The game is won or tied."""
    GONE = "gone"
    """There is no such game (not created yet, or deleted)."""
    NO_SEAT = "no-seat"
    """Both seats are held by other keys: it can only watch."""


class Turn(NamedTuple):
    """A decision: the action, the mark the key plays (or would take) in the game if any, and why, for people."""

    action: Action
    mark: str | None
    reason: str


def turn_of(game: Game | None, key: str, *, opens: bool = True, names: KeyNames = NO_NAMES) -> Turn:
    """What ``key`` should do in ``game`` (None: no such game); see the module's docstring. Pure.

    ``names`` only words the reason (``alice``, not ``02fc25...``).
    """
    if game is None:
        return Turn(Action.GONE, None, "there is no such game")
    held = [number for number in (1, 2) if game.player_key(number) == key]
    own_mark = MARKS[held[0]] if held else None
    if game.next_player is None:
        return Turn(Action.OVER, own_mark, f"{game_label(game.name)} is over: {outcome_text(game, names)}")
    if not held and game.player1 and game.player2:
        players = f"{key_label(game.player1, names)} and {key_label(game.player2, names)}"
        return Turn(Action.NO_SEAT, None, f"both seats of {game_label(game.name)} are taken, by {players}")
    number = game.next_player
    mark, seat, other = MARKS[number], game.player_key(number), game.player_key(3 - number)
    if seat == key:
        return Turn(Action.MOVE, mark, f"{mark} to play: your turn")
    if seat:
        return Turn(Action.WAIT, own_mark or MARKS[3 - number], f"{mark} to play: {key_label(seat, names)}")
    if held:
        return Turn(Action.WAIT, own_mark, f"{mark} to play: waiting for an opponent to join as {mark}")
    if not opens and not other:
        return Turn(Action.WAIT, None, f"{mark} to play: waiting for someone to open the game")
    return Turn(Action.MOVE, mark, f"{mark} to play: the seat is open, your move takes it")


def choose(board: str, mark: str, level: Level = DEFAULT_LEVEL, seed: int | None = None) -> int:
    """The space the computer plays as ``mark`` on ``board``: the same one every time for the same seed and board."""
    rng = random.SystemRandom() if seed is None else random.Random(f"{seed}:{board}")
    return choose_move(board, mark, rng, level)


@dataclass(frozen=True)
class Outcome:
    """What :meth:`SeatPlayer.play` did.

    ``turn`` is the decision on the game as read. When the key moved, ``space`` and
    ``batch_id`` say how, and ``game`` is the game after the committed move; when the
    move was refused (by the check before submitting, or by the validator),
    ``refusal`` says why and ``game`` is the game as read. When it was not its turn,
    only ``turn`` and ``game`` are set.
    """

    turn: Turn
    game: Game | None
    space: int | None = None
    batch_id: str | None = None
    refusal: str | None = None

    @property
    def played(self) -> bool:
        """Whether a move of this key committed."""
        return self.batch_id is not None and self.refusal is None

    def as_json(self) -> dict[str, object]:
        """``{"action", "mark", "reason", "space", "batch_id", "refusal", "played", "game"}``, for a web page."""
        return {
            "action": str(self.turn.action),
            "mark": self.turn.mark,
            "reason": self.turn.reason,
            "space": self.space,
            "batch_id": self.batch_id,
            "refusal": self.refusal,
            "played": self.played,
            "game": self.game.as_json() if self.game is not None else None,
        }


class SeatPlayer:
    """``signer``'s seat in any game, played by the computer at ``level`` (seeded by ``seed``) through ``client``.

    ``opens=False``: never take the first seat of a game nobody has joined (answer
    a first move instead). ``names`` words the reasons.
    """

    def __init__(
        self,
        client: RestClient,
        signer: Signer,
        *,
        level: Level = DEFAULT_LEVEL,
        seed: int | None = None,
        opens: bool = True,
        names: KeyNames = NO_NAMES,
        wait_seconds: float = WAIT_SECONDS,
    ) -> None:
        self.client = client
        self.signer = signer
        self.level = Level(level)
        self.seed = seed
        self.opens = opens
        self.names = names
        self.wait_seconds = wait_seconds
        self._lock = threading.Lock()

    @property
    def key(self) -> str:
        """The public key that plays the seat."""
        return self.signer.public_key

    def turn(self, game: Game | None) -> Turn:
        """What this key should do in ``game``: :func:`turn_of` with this player's ``opens``."""
        return turn_of(game, self.key, opens=self.opens, names=self.names)

    def read(self, name: str) -> Game | None:
        """The game called ``name`` as the REST API has it now (None if there is none)."""
        return read_game(self.client, name)

    def play(self, name: str, game: Game | None = None) -> Outcome:
        """Move in game ``name`` if it is this key's turn; return what happened.

        ``game`` is the game as the caller knows it; without it, it is read now,
        which is what a caller following the chain with some delay should do. The
        move is checked with the processor's rules before it is signed, then
        submitted and waited for until it commits or is refused. Raises the
        client's errors: :class:`~client_core.errors.Unavailable` (exit 3),
        :class:`~client_core.errors.TimedOut` (still not decided after
        ``wait_seconds``: it may yet commit), ``Interrupted``/``Terminated`` (Ctrl-C
        or SIGTERM after the batch was sent; the message names the batch).
        """
        with self._lock:
            if game is None:
                game = self.read(name)
            turn = self.turn(game)
            if turn.action is not Action.MOVE:
                return Outcome(turn, game)
            assert game is not None and turn.mark is not None
            space = choose(game.board, turn.mark, self.level, self.seed)
            refusal = refuse_take(name, game, self.key, space, names=self.names)
            if refusal is not None:
                return Outcome(turn, game, space, refusal=refusal)
            transaction = make_xo_transaction(self.signer, name, "take", space)
            batch_id, status = submit_and_wait(self.client, self.signer, [transaction], self.wait_seconds)
            if status.status == "INVALID":
                reason = "; ".join(reason for reason in status.reasons if reason) or "no reason given"
                return Outcome(turn, game, space, batch_id, refusal=f"the validator refused it: {reason}")
            if status.status != "COMMITTED":
                raise TimedOut(
                    f"{game_label(name)}: the move on {space} is still {status.status} after "
                    f"{self.wait_seconds:g} s (batch {batch_id}); it may still commit"
                )
            after = rules.take(rules.Game(*game[:5]), space, self.key)
            return Outcome(turn, Game(*after, game.address), space, batch_id)

    async def aplay(self, name: str, game: Game | None = None) -> Outcome:
        """:meth:`play` for an asyncio program: run in a worker thread, so the event loop goes on meanwhile."""
        return await asyncio.to_thread(self.play, name, game)


def read_game(client: RestClient, name: str, head: str | None = None) -> Game | None:
    """The game called ``name`` as of block ``head`` (else now), None if there is none.

    Data at its address that does not decode stops play there: the processor
    decodes the whole address too, and would fail on every move.
    """
    address = game_address(name)
    data = client.get_state(address, head=head)
    found, problems = decode_games(address, data) if data is not None else ([], [])
    if problems:
        raise InvalidInput(f"{'; '.join(problems)} (not XO data, so no move can be made in {game_label(name)})")
    return find_game(found, name)


class AiKey(NamedTuple):
    """The computer player's signer, and whether this call made its key files."""

    signer: Signer
    created: bool


def ai_signer(key_dir: Path) -> AiKey:
    """The ``xo-ai`` key of ``key_dir``, made (0600) on first use and reused afterwards.

    An existing key is read as every player's key is, so a key file others may read
    is refused the same way. Two programs making it at once both end up with the
    one that was written first.
    """
    created = False
    if not key_paths(key_dir, AI_KEY_NAME)[0].exists():
        try:
            write_key_pair(key_dir, AI_KEY_NAME, Signer.generate())
            created = True
        except KeyFileError:
            pass  # made meanwhile by another program: read it below
        except OSError as error:
            raise InvalidInput(
                f"cannot write the computer player's key {AI_KEY_NAME!r} in {key_dir}: {error.strerror or error}"
            ) from None
    return AiKey(load_signer(key_dir, AI_KEY_NAME, "xo"), created)

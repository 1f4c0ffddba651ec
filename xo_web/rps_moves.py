"""rps ops the page asks for: checked, signed with the player's key file, submitted and waited for; throws in the vault.

The steps are the ``rps`` command's, with its own pieces: the processor's checks
(:func:`rps_client.checks.refusal`, a claim judged at :func:`rps_client.clock.claim_time`),
the op's words (:func:`rps_client.transactions.describe`), the game the op left read from its
receipt (:func:`rps_client.games.resulting_game`), and the vault
(:class:`rps_client.vault.Vault`, ``KEY_DIR/rps-vault/``, the very file ``rps`` uses).

A throw is ``rps throw``'s first half: 32 fresh bytes of salt, the commitment, the
vault written *before* the commit is sent, the commit. The page never sees the salt,
and the throw is never sent anywhere before the reveal. The second half, the
reveal, waits until both commitments are in committed state: :class:`Reveals` makes
it for the throws made from the page as soon as the follower shows the opponent's
commitment; ``reveal`` makes it on request (a throw made by ``rps`` or before the
server restarted). A reveal is always checked against the game as committed state
holds it, so it is never sent before the opponent is bound to a throw.

Every op on a game is signed for a moment of it (round and phase; docs/rps-family.md,
"Moments"): the one the page showed when the player acted, when the request names it
(``round`` and ``phase``), else the one the server reads. So a click on a page that
has fallen behind is refused, naming both moments, never signed for a moment of the
game the player did not see.

Blocking (``http.client``): the server runs :class:`RpsMover` in worker threads.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from typing import Final, NamedTuple

from client_core.errors import CommandError, InvalidInput
from client_core.rest import RestClient
from rps_client.changes import Change
from rps_client.checks import refusal
from rps_client.clock import claim_time
from rps_client.games import impossible_name, read_game, resulting_game
from rps_client.transactions import commit_moment, describe, make_rps_transaction, reveal_moment, signed_for
from rps_client.vault import Vault, VaultEntry, VaultProblem, spent_in
from rps_tp.commitment import new_salt
from rps_tp.game import (
    CONCLUDED,
    DEFAULT_SETTINGS,
    MAX_ROUNDS,
    PHASES,
    PLAYING_GAME,
    THROWS,
    Game,
    Moment,
    Settings,
    moment_problem,
    seat_of,
)
from rps_tp.ops import Claim, Commit, Create, Delete, Join, Op, Ready, Resign, Reveal, Setup
from xo_core.protobuf.transaction_pb2 import Transaction
from xo_core.signing import Signer
from xo_core.text import game_label, printable
from xo_web import views
from xo_web.errors import ApiError, bad_request
from xo_web.lobby import RpsLobby
from xo_web.moves import MAX_NAME_CHARACTERS
from xo_web.sender import Json, Sender, refused, unavailable

OPS: Final = ("create", "join", "setup", "ready", "throw", "reveal", "resign", "claim", "delete")


class RpsRequest(NamedTuple):
    """What the page asked for: who (a key's name), which op, in which game; settings and throw where they apply.

    ``at`` is the moment of the game the page showed, if it said (``None``: the one read when the op is made).
    """

    player: str
    op: str
    name: str
    points: int | None = None
    timeout: int | None = None
    throw: str | None = None
    at: Moment | None = None


def parse_rps(body: object) -> RpsRequest:
    """``{"player", "op", "name", "points", "timeout", "throw", "round", "phase"}`` as a request, or a 400."""
    if not isinstance(body, dict):
        raise bad_request('an rps op is a JSON object: {"player", "op", "name", ...}')
    player, op, name = body.get("player"), body.get("op"), body.get("name")
    if not isinstance(player, str) or not player:
        raise bad_request('"player" must name one of your keys')
    if op not in OPS:
        raise bad_request(f'"op" must be one of {", ".join(OPS)}')
    if not isinstance(name, str) or len(name) > MAX_NAME_CHARACTERS:
        raise bad_request(f'"name" must be a game name of at most {MAX_NAME_CHARACTERS} characters')
    points, timeout, throw = body.get("points"), body.get("timeout"), body.get("throw")
    for field, value in (("points", points), ("timeout", timeout)):
        if value is not None and (not isinstance(value, int) or isinstance(value, bool)):
            raise bad_request(f'"{field}" must be a whole number')
    if op == "throw" and throw not in THROWS:
        raise bad_request(f'"throw" must be one of {", ".join(THROWS)}')
    return RpsRequest(player, op, name, points, timeout, throw if op == "throw" else None, _moment(body))


def _moment(body: dict[str, object]) -> Moment | None:
    """The moment the page showed, from ``"round"`` and ``"phase"`` (both or neither), or a 400."""
    round_number, phase = body.get("round"), body.get("phase")
    if round_number is None and phase is None:
        return None
    if not isinstance(round_number, int) or isinstance(round_number, bool) or not 0 <= round_number <= MAX_ROUNDS:
        raise bad_request(f'"round" must be the round of the game shown, a whole number from 0 to {MAX_ROUNDS}')
    if phase not in PHASES:
        raise bad_request(f'"phase" must be the phase of the game shown: one of {", ".join(PHASES)}')
    moment = Moment(round_number, phase)
    problem = moment_problem(moment)  # a moment no game is ever at, as the processor says it
    if problem:
        raise bad_request(problem)
    return moment


class RpsMover(Sender):
    """Plays rps ops for the page against the REST API, signing with keys from the key directory.

    :meth:`on_commit` is told of every throw committed, so that its reveal can follow
    (the server points it at :meth:`Reveals.committed`).
    """

    def on_commit(self, name: str, round_number: int, player: str) -> None:
        """A throw of ``player`` committed in ``round_number`` of ``name``; nothing follows unless replaced."""

    def play(self, request: RpsRequest) -> tuple[int, Json]:
        """Check, sign, submit and wait for ``request``: ``(HTTP status, answer)``, or an :class:`ApiError`."""
        try:
            signer = self.signer(request.player)
            if problem := impossible_name(request.name):
                raise refused(problem)
            with self.client() as client:
                game = read_game(client, request.name)
                if request.op == "throw":
                    return self._throw(client, signer, game, request)
                if request.op == "reveal":
                    return self.reveal(client, signer, request.name, game)
                return self._op(client, signer, game, self._make(request, game))
        except InvalidInput as error:  # a key, a vault or data that is not rps: nothing was sent
            raise refused(error.message) from None
        except CommandError as error:
            raise unavailable(error) from None

    def reveal_for(self, player: str, name: str) -> tuple[int, Json]:
        """The reveal of ``player``'s commitment in ``name``, as :class:`Reveals` asks for it."""
        return self.play(RpsRequest(player, "reveal", name))

    @staticmethod
    def _make(request: RpsRequest, game: Game | None) -> Op:
        """The op asked for, signed for the moment the page showed, else that of ``game`` as read just now."""
        at = request.at or signed_for(game)
        base = game.settings if game is not None else DEFAULT_SETTINGS
        given = None
        if request.points is not None or request.timeout is not None:
            given = Settings(
                base.points if request.points is None else request.points,
                base.timeout if request.timeout is None else request.timeout,
            )
        match request.op:
            case "create":
                return Create(request.name, settings=given)
            case "join":
                return Join(request.name, at)
            case "setup":
                return Setup(request.name, at, given or base)
            case "ready":
                return Ready(request.name, at, base)
            case "resign":
                return Resign(request.name, at)
            case "claim":
                return Claim(request.name, at)
        return Delete(request.name, at)

    def _op(self, client: RestClient, signer: Signer, game: Game | None, op: Op) -> tuple[int, Json]:
        now = claim_time(client) if isinstance(op, Claim) else None
        if problem := refusal(game, op, signer.public_key, now):
            raise refused(f"{problem}; nothing was submitted")
        transaction = make_rps_transaction(signer, op)
        what = describe(op)
        waited = self._submitted(client, signer, transaction, what)
        if waited is not None:
            return waited
        found, after = resulting_game(client, transaction.header_signature, op.name)
        if found and (after is None or after.state == CONCLUDED):
            with contextlib.suppress(VaultProblem):  # a game over or gone has nothing left to reveal
                Vault.of(self.key_dir, signer.public_key).forget(spent_in(op.name, after))
        return self._committed(f"Committed {what}", after)

    def _throw(self, client: RestClient, signer: Signer, game: Game | None, request: RpsRequest) -> tuple[int, Json]:
        """``rps throw``'s first half: the vault first, then the commit; the reveal follows (:class:`Reveals`)."""
        assert request.throw is not None
        you = signer.public_key
        round_number = game.round if game is not None and game.round else 1
        if request.at is not None:  # the round the page showed (another is refused below, as the processor would)
            round_number = request.at.round
        entry = VaultEntry(request.name, round_number, request.throw, new_salt())
        op = Commit(request.name, commit_moment(round_number), entry.commitment(you))
        if problem := refusal(game, op, you):
            raise refused(f"{problem}; nothing was submitted")
        Vault.of(self.key_dir, you).add(entry, forget=spent_in(request.name, game))
        transaction = make_rps_transaction(signer, op)
        what = f"commit in round {round_number} of {game_label(request.name)}"
        waited = self._submitted(client, signer, transaction, what)
        if waited is not None:
            return waited
        self.on_commit(request.name, round_number, request.player)
        return self._committed(
            f"Committed your throw in round {round_number} of {game_label(request.name)}: it stays secret, in the "
            "vault, until both players have committed; then it is revealed",
            None,
        )

    def reveal(self, client: RestClient, signer: Signer, name: str, game: Game | None) -> tuple[int, Json]:
        """Reveal ``signer``'s commitment in the current round from the vault, if committed state allows it now."""
        you = signer.public_key
        seat = None if game is None else seat_of(game, you)
        if game is None or game.state != PLAYING_GAME or seat is None:
            raise refused(f"{game_label(name)} has no round of yours to reveal; nothing was submitted")
        mine = game.players[seat].commitment
        if mine is None:
            raise refused(f"you have not committed in round {game.round} of {game_label(name)}; nothing was submitted")
        entry = Vault.of(self.key_dir, you).find(mine)
        if entry is None:
            raise refused(
                f"the vault has no throw for your commitment in round {game.round} of {game_label(name)}: it was "
                "made elsewhere, or the vault was lost; nothing was submitted"
            )
        op = Reveal(name, reveal_moment(entry.round), entry.throw, entry.salt)
        if problem := refusal(game, op, you):  # whatever the caller: never a reveal before both are bound
            raise refused(f"{problem}; nothing was submitted")
        waited = self._submitted(
            client, signer, make_rps_transaction(signer, op), f"reveal in round {entry.round} of {game_label(name)}"
        )
        if waited is not None:
            return waited
        Vault.of(self.key_dir, you).forget(lambda spent: spent == entry)  # the salt is public now
        return self._committed(f"Revealed {entry.throw} in round {entry.round} of {game_label(name)}", None)

    def _submitted(
        self, client: RestClient, signer: Signer, transaction: Transaction, what: str
    ) -> tuple[int, Json] | None:
        """Submit and wait: ``None`` once committed; the 202 answer while pending (:meth:`Sender.send`)."""
        _, pending = self.send(client, signer, transaction, what, "Op Rejected")
        return pending

    def _committed(self, message: str, game: Game | None) -> tuple[int, Json]:
        view = views.rps_game_view(game, self.names()) if game is not None else None
        return 200, {"status": "COMMITTED", "message": message, "game": view}


class Reveals:
    """The reveals of throws committed from the page, each made as soon as committed state allows it.

    ``mover.reveal_for`` runs in a worker thread, one game at a time; a change while
    it runs makes it look again right after. Every outcome is told to the pages with
    an ``rps_note`` event: ``{"name", "shown", "player", "message"}``, for the pages
    playing as ``player`` (the key's name) to show.
    """

    def __init__(self, mover: RpsMover, lobby: RpsLobby, publish: Callable[[str, Json], None]) -> None:
        self.mover = mover
        self.lobby = lobby
        self.publish = publish
        self.pending: dict[str, dict[str, int]] = {}
        """Game name -> {key name -> round}: throws committed from the page and not revealed yet."""
        self._running: dict[str, asyncio.Task[None]] = {}
        self._again: set[str] = set()
        self._loop: asyncio.AbstractEventLoop | None = None

    def bind(self, loop: asyncio.AbstractEventLoop) -> None:
        """The event loop the server runs on, where :meth:`committed` hands its news over."""
        self._loop = loop

    def committed(self, name: str, round_number: int, player: str) -> None:
        """A throw of ``player`` committed in ``round_number`` of ``name``; called from the mover's worker thread.

        Its reveal is considered at once too: the follower may already have delivered
        the block with the commit (and the opponent's) before this news arrived.
        """
        assert self._loop is not None, "bind() first"
        self._loop.call_soon_threadsafe(self._add, name, round_number, player)

    def _add(self, name: str, round_number: int, player: str) -> None:
        self.pending.setdefault(name, {})[player] = round_number
        self.consider(name)

    def on_changes(self, changes: list[Change]) -> None:
        """The follower's listener: a game with a throw to reveal that a block changed may allow its reveal now."""
        for name in {change.name for change in changes} & self.pending.keys():
            self.consider(name)

    def consider(self, name: str) -> None:
        if name in self._running:
            self._again.add(name)
        else:
            self._running[name] = asyncio.create_task(self._reveal_due(name), name=f"xo web: reveals in {name!r}")

    async def close(self) -> None:
        for task in list(self._running.values()):
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task

    async def _reveal_due(self, name: str) -> None:
        try:
            while True:
                self._again.discard(name)
                game = self.lobby.game(name)
                for player, round_number in list(self.pending.get(name, {}).items()):
                    if game is None or game.state != PLAYING_GAME or game.round != round_number:
                        self._drop(name, player)  # over, gone or past the round: nothing left to reveal
                    elif all(seat.commitment is not None for seat in game.players):
                        self._drop(name, player)
                        await self._reveal(name, player)
                if name not in self._again:
                    return
        finally:
            self._running.pop(name, None)

    async def _reveal(self, name: str, player: str) -> None:
        try:
            _, answer = await asyncio.to_thread(self.mover.reveal_for, player, name)
            message = answer["message"]
        except ApiError as error:
            message = f"{player}'s throw in {game_label(name)} was not revealed: {error.message}"
        note = {
            "name": name,
            "shown": printable(name),
            "player": player,
            "message": printable(message, escape_backslashes=False),
        }
        self.publish("rps_note", note)

    def _drop(self, name: str, player: str) -> None:
        waiting = self.pending.get(name, {})
        waiting.pop(player, None)
        if not waiting:
            self.pending.pop(name, None)

"""Moves the page asks for: checked, signed with the player's own key file, submitted, and followed to the end.

The page names a key (``player``), never holds one (:mod:`xo_web.sender`). The
steps are ``xo create/take/delete --wait``'s: refuse what cannot succeed with the
processor's own checks (:mod:`xo_client.games`; nothing is signed then), sign one
transaction in one batch, send it and wait for the outcome, and read the game the
move left from its receipt (:func:`xo_client.games.resulting_game`). Every outcome is
a sentence for the page: the refusal, the validator's reason, or ``Committed take 5
(B2) in game 'g1', X won (player 1: alice (0208fb...))``.

This module's work is blocking (``http.client``); the server runs it in a worker
thread, a few moves at a time (:data:`MAX_MOVES_IN_FLIGHT`).
"""

from __future__ import annotations

from typing import Final, NamedTuple

from client_core.errors import CommandError, InvalidInput
from client_core.rest import RestClient
from xo_client import checks, games
from xo_client.checks import check_name
from xo_client.games import resulting_game
from xo_client.notation import BadSpace, parse_space
from xo_client.outcome import mover_text, outcome_text
from xo_client.transactions import describe, make_xo_transaction
from xo_core.text import game_label
from xo_tp.family import game_address
from xo_tp.payload import CREATE, DELETE, TAKE
from xo_web import views
from xo_web.errors import bad_request
from xo_web.sender import Json, Sender, refused, unavailable

ACTIONS: Final = (CREATE, TAKE, DELETE)
MAX_MOVES_IN_FLIGHT: Final = 4
MAX_NAME_CHARACTERS: Final = 10_000
"""Longer names are refused before anything else: no game needs one, and the REST API would carry it to everyone."""


class MoveRequest(NamedTuple):
    """What the page asked for: who plays (a key's name), what, in which game, where (take only)."""

    player: str
    action: str
    name: str
    space: int | None


def parse_move(body: object) -> MoveRequest:
    """``{"player", "action", "name", "space"}`` as a move, or a 400 saying what is wrong with it."""
    if not isinstance(body, dict):
        raise bad_request('a move is a JSON object: {"player", "action", "name", "space"}')
    player, action, name, space = (body.get(field) for field in ("player", "action", "name", "space"))
    if not isinstance(player, str) or not player:
        raise bad_request('"player" must name one of your keys')
    if action not in ACTIONS:
        raise bad_request(f'"action" must be one of {", ".join(ACTIONS)}')
    if not isinstance(name, str) or len(name) > MAX_NAME_CHARACTERS:
        raise bad_request(f'"name" must be a game name of at most {MAX_NAME_CHARACTERS} characters')
    if action != TAKE:
        if space is not None:
            raise bad_request(f'a {action} takes no "space"')
        return MoveRequest(player, action, name, None)
    return MoveRequest(player, action, name, parse_move_space(space))


def parse_move_space(space: object) -> int:
    """A space as the page sends it: 1-9, or the text ``"1"``-``"9"``/``"A1"``-``"C3"`` (:mod:`xo_client.notation`)."""
    if isinstance(space, int) and not isinstance(space, bool) and 1 <= space <= 9:
        return space
    if isinstance(space, str):
        try:
            return parse_space(space)
        except BadSpace as error:
            raise bad_request(str(error)) from None
    raise bad_request('"space" must be 1-9 or A1-C3')


class Mover(Sender):
    """Plays XO moves for the page against the REST API, signing with keys from the key directory."""

    def play(self, move: MoveRequest) -> tuple[int, Json]:
        """Check, sign, submit and wait for ``move``: ``(HTTP status, answer)``, or an :class:`ApiError`."""
        try:
            signer = self.signer(move.player)
            check_name(move.name, validate=True)
        except InvalidInput as error:
            raise refused(error.message) from None
        what = describe(move.action, move.name, move.space)
        transaction = make_xo_transaction(signer, move.name, move.action, move.space)
        try:
            with self.client() as client:
                if refusal := self.refusal(client, move, signer.public_key):
                    raise refused(f"{refusal}; nothing was submitted")
                batch_id, pending = self.send(client, signer, transaction, what, "Move Rejected")
                if pending is not None:
                    return pending
                found, game = resulting_game(client, transaction.header_signature, move.name)
        except CommandError as error:
            raise unavailable(error) from None
        names = self.names()
        ending = None
        if found and game is not None:
            mark = mover_text(game, signer.public_key) if move.action == "take" else None
            ending = outcome_text(game, names) or mark
        return 200, {
            "status": "COMMITTED",
            "batch_id": batch_id,
            "message": f"Committed {what}" + (f", {ending}" if ending else ""),
            "game": views.game_view(game, names) if game is not None else None,
        }

    def refusal(self, client: RestClient, move: MoveRequest, player_key: str) -> str | None:
        """Why the processor would reject ``move`` as the game stands now, if it would (``xo``'s own checks)."""
        address = game_address(move.name)
        data = client.get_state(address)
        found, problems = games.decode_games(address, data) if data is not None else ([], [])
        if problems:
            return f"{'; '.join(problems)} (not XO data, so the processor cannot apply any move to this game)"
        game = games.find_game(found, move.name)
        if move.action == CREATE:
            return checks.refuse_create(move.name, game, self.names())
        if move.action == DELETE:
            return checks.refuse_delete(move.name, game)
        assert move.space is not None
        names = self.names()
        by_the_rules = checks.refuse_take(move.name, game, player_key, move.space, names=names, both_seats=True)
        if by_the_rules is not None:
            return by_the_rules
        if checks.refuse_take(move.name, game, player_key, move.space, names=names) is not None:
            return (
                f"{game_label(move.name)}: your key already holds player 1's seat (X), and this move would give it "
                "player 2's seat (O) too, so that nobody else could ever join; play O with another key"
            )
        return None

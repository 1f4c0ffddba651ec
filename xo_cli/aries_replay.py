"""``xo aries replay FILE NAME [--opponent O_PLAYER]``: a game played between agents, recorded on the ledger.

The thread is checked first (:func:`xo_client.aries.moves_of`), both keys are loaded, and
NAME must not exist yet (the check ``xo create`` makes); any refusal comes before
anything is signed or sent. Then the create and every move go to the ledger in **one
batch**, in play order: the create and X's moves signed by X_PLAYER's key, O's moves
by O_PLAYER's, and the batch itself by X_PLAYER's key, which each transaction names as
its batcher. Why one batch (``docs/aries.md`` has the whole argument):

- a batch is atomic: the ledger records the whole game or nothing of it, so a replay
  that fails (NAME taken by someone else meanwhile, a validator that disagrees) never
  leaves half a game behind;
- transactions in a batch run in their order, each seeing what the earlier ones wrote,
  so ordering needs neither a wait per move nor ``dependencies``. Batches chained by
  dependencies are ordered too, but a real validator drops a batch whose dependency it
  has not seen from the block it builds, and never runs one whose dependency failed:
  over gossip the later moves can stall or wait forever, and a failed create leaves
  them pending;
- one batch commits in one block: the replay costs one wait, however long the game.

A thread abandoned before its end (outcome ``winner`` null) replays its moves and
leaves the game unfinished. The lines printed name each transaction and its signer;
``--wait`` and ``--json`` mean what they mean for a move.
"""

from __future__ import annotations

import argparse
import json
from typing import NamedTuple

from client_core.caller import Caller, Who, key_name
from client_core.errors import InvalidInput, Rejected
from client_core.keys import KeyNames, load_signer
from client_core.runner import sigterm_interrupts
from client_core.submission import await_outcome, require_committed, submit
from xo_cli import render
from xo_cli.moves import Move, check_move
from xo_cli.thread_files import described, read_thread
from xo_client import aries, games
from xo_client.checks import check_name
from xo_client.games import resulting_game
from xo_client.notation import grid_name
from xo_client.outcome import outcome_text
from xo_client.seat import AI_KEY_NAME, ai_signer
from xo_client.transactions import make_xo_transaction
from xo_core.protobuf.transaction_pb2 import Transaction
from xo_core.signing import Signer
from xo_core.text import counted, game_label
from xo_tp import rules
from xo_tp.payload import CREATE, TAKE


class Step(NamedTuple):
    """One transaction of the replay: the create (``move`` None) or the take of ``move``, signed by ``signer``."""

    move: aries.Placement | None
    signer: Signer
    transaction: Transaction

    def line(self, number: int, name: str, names: KeyNames) -> str:
        """``move 1: X takes 5 (B2), signed by alice``; ``create game 'g7', ...`` for the create."""
        signed = f"signed by {render.key_label(self.signer.public_key, names)}"
        if self.move is None:
            return f"create {game_label(name)}, {signed}"
        space = self.move.space
        return f"move {number}: {self.move.mark} takes {space} ({grid_name(space)}), {signed}"

    def as_json(self) -> dict[str, object]:
        """One entry of ``--json``'s ``transactions``."""
        return {
            "action": CREATE if self.move is None else TAKE,
            "mark": None if self.move is None else self.move.mark,
            "space": None if self.move is None else self.move.space,
            "signer": self.signer.public_key,
            "transaction_id": self.transaction.header_signature,
        }


def replay(args: argparse.Namespace) -> int:
    """Check, sign, submit as one batch, and with ``--wait`` report the game the ledger now holds."""
    caller = Caller.of(args)
    name: str = args.name
    check_name(name, validate=not args.no_validate)
    thread = read_thread(args.file)
    try:
        moves = aries.moves_of(thread)
    except aries.InvalidThread as invalid:
        raise InvalidInput(refusal(args.file, invalid.problem)) from None
    x_player, o_player = signers(caller.who, args.opponent, args.both_seats, moves)
    steps = plan(name, moves, x_player, o_player)
    abandoned = isinstance(thread, list) and aries.abandoned(thread)
    what = f"the replay of {game_label(name)} ({summary(moves)})"
    with sigterm_interrupts(), caller.where.rest_client() as client:
        if not args.no_validate:
            create = Move(CREATE, name, None, True, args.both_seats, args.wait, args.format)
            check_move(client, caller.who, create, x_player.public_key)
        batch_id = submit(client, x_player, [step.transaction for step in steps])
        found, game = False, None
        if args.wait is not None:
            outcome = await_outcome(client, batch_id, args.wait)
            try:
                require_committed(outcome, what, batch_id, args.wait)
            except Rejected as error:
                raise Rejected(f"{error.message}; the batch is all or nothing, so none of it was committed") from None
            found, game = resulting_game(client, steps[-1].transaction.header_signature, name)
    if args.format == "json":
        left = game.as_json() if game else None
        waited = args.wait is not None
        print(replay_json(name, args.file, steps, batch_id, waited=waited, abandoned=abandoned, game=left))
        return 0
    names = caller.who.key_names()
    if args.wait is None:
        last = f"Submitted {what}: batch {batch_id}"
    else:
        ending = standing(game, names, abandoned) if found and game is not None else None
        last = f"Committed {what}{', ' + ending if ending else ''}: batch {batch_id}"
    print("\n".join([*(step.line(number, name, names) for number, step in enumerate(steps)), last]))
    return 0


def refusal(source: str, problem: aries.Problem) -> str:
    """Why the thread is not replayed: the problem as ``xo aries check`` prints it, and that nothing was sent."""
    where = "" if problem.index is None else f"message [{problem.index}]: "
    return (
        f"the thread in {described(source)} is not a valid XO game: {where}{problem.code}: {problem.explanation}; "
        "nothing was submitted"
    )


def signers(who: Who, opponent: str | None, both_seats: bool, moves: list[aries.Placement]) -> tuple[Signer, Signer]:
    """X's signer (``--username``) and O's (``--opponent``), both loaded before anything is sent.

    Without ``--opponent``, O's moves are signed with the computer player's key ``xo-ai`` (made on first use, as
    ``xo play --vs ai`` makes it): the other agent has no key on this ledger, and a replay as the README prints it
    (``xo aries replay FILE NAME``) should just work. One key for both seats is what the ledger allows but seldom
    what is meant (a mistyped name), so it needs ``--both-seats``, as for ``xo take``.
    """
    key_dir = who.key_dir
    x_name = who.name()
    x_player = load_signer(key_dir, x_name, "xo")
    if opponent is None:
        o_name, o_player = AI_KEY_NAME, ai_signer(key_dir).signer
    else:
        o_name = key_name(opponent)
        o_player = load_signer(key_dir, o_name, "xo")
    o_moves = any(move.mark == rules.PLAYER_2_MARK for move in moves)
    if o_moves and x_player.public_key == o_player.public_key and not both_seats:
        raise InvalidInput(
            f"--username ({x_name!r}) and --opponent ({o_name!r}) are the same key, which would hold both seats; "
            "to replay both sides with one key on purpose, add --both-seats; nothing was submitted"
        )
    return x_player, o_player


def plan(name: str, moves: list[aries.Placement], x_player: Signer, o_player: Signer) -> list[Step]:
    """The create, then one take per move, each signed by its player and naming X's key as the batcher."""
    batcher = x_player.public_key
    steps = [Step(None, x_player, make_xo_transaction(x_player, name, CREATE, batcher_public_key=batcher))]
    for move in moves:
        signer = x_player if move.mark == rules.PLAYER_1_MARK else o_player
        transaction = make_xo_transaction(signer, name, TAKE, move.space, batcher_public_key=batcher)
        steps.append(Step(move, signer, transaction))
    return steps


def summary(moves: list[aries.Placement]) -> str:
    """What the batch holds: ``create and 5 moves in one batch``."""
    return f"create and {counted(len(moves), 'move')} in one batch" if moves else "create only: the thread has no move"


def standing(game: games.Game, names: KeyNames, abandoned: bool) -> str:
    """How the replayed game stands: its result, or that it is unfinished (and why)."""
    ended = outcome_text(game, names)
    if ended is not None:
        return ended
    unfinished = "left unfinished as the thread abandoned it" if abandoned else "unfinished"
    return f"{unfinished} ({render.turn_text(game, None, names)})"


def replay_json(
    name: str,
    source: str,
    steps: list[Step],
    batch_id: str,
    *,
    waited: bool,
    abandoned: bool,
    game: dict[str, str] | None = None,
) -> str:
    """``--json``: the batch, its transactions in order, and once committed (``--wait``) the game it left."""
    document: dict[str, object] = {
        "name": name,
        "source": source,
        "batch_id": batch_id,
        "status": "COMMITTED" if waited else "SUBMITTED",
        "transactions": [step.as_json() for step in steps],
        "abandoned": abandoned,
    }
    if waited:
        document["game"] = game
    return json.dumps(document, indent=2)

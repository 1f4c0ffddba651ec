"""``rps throw NAME THROW`` and ``rps reveal NAME``: a round played to its end, the commit/reveal way.

``throw`` makes a fresh salt, writes throw and salt to the vault (before anything is
sent: a crash after submitting never loses them), commits, waits until the
opponent's commitment is in a committed block, reveals, and waits for the opponent's
reveal to print the round's result. ``reveal`` takes it up from the vault, in a later
process or after a restart of the machine. A commit for a round the player has
committed in is refused before anything is sent (a commitment is final), unless
``--no-validate`` asks for the validator's own refusal. Never, whatever the flags:

- a reveal before both commitments are in committed state: a reveal travels the
  network before any processor checks it, so sent early it would show the throw to an
  opponent who can still choose theirs;
- a salt used twice: each commit gets 32 fresh bytes from the OS.

All waits together last at most ``--wait SECONDS`` (no limit without it, as with a
bare ``--wait``); a wait cut short (by the limit, Ctrl-C or SIGTERM) leaves what was
committed on the chain and the salt in the vault, and says what to run next.
"""

from __future__ import annotations

import argparse
import json
import math
from collections.abc import Callable
from dataclasses import dataclass

from client_core.caller import Caller
from client_core.errors import CommandError, InvalidInput, Rejected, TimedOut, stopped
from client_core.keys import KeyNames
from client_core.rest import BatchStatus, RestClient
from client_core.runner import sigterm_interrupts
from client_core.submission import await_outcome, require_committed, submit
from rps_cli import render
from rps_cli.render import say
from rps_client import turns
from rps_client.checks import refusal
from rps_client.following import Budget, FollowedGame, OutOfTime
from rps_client.games import game_json, impossible_name, read_game
from rps_client.outcome import outcome_text, player_name
from rps_client.transactions import commit_moment, make_rps_transaction, reveal_moment, signed_for
from rps_client.vault import Vault, VaultEntry, spent_in
from rps_tp.commitment import new_salt
from rps_tp.game import CONCLUDED, PLAYING_GAME, SALT_BYTES, THROWS, Game, round_winner, seat_of
from rps_tp.ops import Commit, Reveal
from xo_core.signing import Signer
from xo_core.text import game_label, shell_word

SUBMITTED = "SUBMITTED"
COMMITTED = "COMMITTED"
ROUND_COMPLETE = "ROUND_COMPLETE"
GAME_OVER = "GAME_OVER"


@dataclass(frozen=True)
class Asked:
    """What ``rps throw`` or ``rps reveal`` asks beyond who and where: the game, local checks, the wait, the output."""

    name: str
    validate: bool
    """Check the name and refuse locally what the processor would (not ``--no-validate``)."""
    commit_only: bool
    wait: float | None
    json: bool

    @classmethod
    def of(cls, args: argparse.Namespace) -> Asked:
        """From ``NAME``, ``--no-validate``, ``--commit-only`` (throw only), ``--wait`` and ``--json``."""
        commit_only = getattr(args, "commit_only", False)
        return cls(args.name, not args.no_validate, commit_only, args.wait, args.format == "json")


class Round:
    """One player's round in one game: the key, the vault, the output, and what has been sent so far."""

    def __init__(self, asked: Asked, signer: Signer, vault: Vault, names: KeyNames) -> None:
        self.asked = asked
        self.name = asked.name
        self.label = game_label(self.name)
        self.signer = signer
        self.you = signer.public_key
        self.vault = vault
        self.names = names
        self.budget = Budget(math.inf if asked.wait is None else asked.wait)
        self.json = asked.json
        self.commit_batch: str | None = None
        self.reveal_batch: str | None = None

    # --- output ---

    def say(self, line: str) -> None:
        if not self.json:
            print(say(line), flush=True)

    def who(self, key: str) -> str:
        return player_name(key, self.you, self.names)

    def finish(self, status: str, game: Game | None, round_number: int) -> int:
        """The last lines (or the one JSON object): the round's result, the scores, the outcome."""
        throws = game.history[round_number - 1] if game is not None and len(game.history) >= round_number else None
        if self.json:
            winner = None if throws is None else round_winner(throws)
            print(
                json.dumps(
                    {
                        "name": self.name,
                        "round": round_number,
                        "status": status,
                        "commit_batch_id": self.commit_batch,
                        "reveal_batch_id": self.reveal_batch,
                        "throws": None if throws is None else list(throws),
                        "round_winner": None if game is None or winner is None else game.players[winner].key,
                        "game": None if game is None else game_json(game),
                    },
                    indent=2,
                )
            )
            return 0
        if game is None:
            return 0
        if throws is not None:
            self.say(f"Round {round_number} of {self.label}: {self.round_result(game, round_number)}")
        if game.state == CONCLUDED:
            self.say(f"{self.label} is over: {outcome_text(game, self.you, self.names)}")
        elif status == ROUND_COMPLETE:
            self.say(f"{self.label}: {render.next_text(game, self.you, self.names)}")
        return 0

    def round_result(self, game: Game, number: int) -> str:
        """``you threw rock, bob threw scissors: you won the round; score: you 1, bob 0``."""
        throws = game.history[number - 1]
        players = [self.who(player.key) for player in game.players]
        winner = round_winner(throws)
        result = "a tie" if winner is None else f"{players[winner]} won the round"
        shown = f"{players[0]} threw {throws[0]}, {players[1]} threw {throws[1]}: {result}"
        return f"{shown}; score: {render.score_text(game, self.you, self.names, number)}"

    # --- the two halves of a round ---

    def commit(self, client: RestClient, game: Game | None, throw: str) -> VaultEntry:
        """Check, keep throw and salt in the vault, submit the commitment; wait for it unless asked not to."""
        round_number = game.round if game is not None and game.round else 1
        entry = VaultEntry(self.name, round_number, throw, new_salt())
        op = Commit(self.name, commit_moment(round_number), entry.commitment(self.you))
        if self.asked.validate:
            refused = refusal(game, op, self.you)
            if refused:
                raise InvalidInput(f"{refused}{self.committed_hint(game)}; nothing was submitted")
        self.vault.add(entry, forget=spent_in(self.name, game))
        transaction = make_rps_transaction(self.signer, op)
        kept = f"your throw is in the vault: once committed, {self.command('reveal')} reveals it"
        try:
            self.commit_batch = submit(client, self.signer, [transaction])
        except CommandError as error:
            raise type(error)(f"{error.message}; {kept}") from error
        what = f"commit in round {round_number} of {self.label}"
        if self.asked.commit_only and self.asked.wait is None:
            self.say(f"Submitted your {what}: batch {self.commit_batch}")
            return entry
        try:
            outcome = await_outcome(client, self.commit_batch, self.budget.remaining())
        except CommandError as error:
            raise type(error)(f"{error.message}; {kept}") from error
        if outcome.status == "INVALID":
            self.explain_refused_commit(client, outcome)
        require_committed(outcome, what, self.commit_batch, self.budget.seconds)
        self.say(f"Committed your throw in round {round_number} of {self.label}: batch {self.commit_batch}")
        return entry

    def play_out(self, client: RestClient, entry: VaultEntry) -> int:
        """From a committed commitment to the round's result: wait for the opponent's, reveal, wait for theirs."""
        mine = entry.commitment(self.you)
        with FollowedGame(client, self.name) as followed:
            game = self.wait(
                followed,
                lambda game: not self.holds(game, entry, mine) or self.both_committed(game),
                lambda game: f"waiting for {self.opponent_of(game)} to commit in round {entry.round}",
                f"your throw stays committed and in the vault; {self.command('reveal')} reveals it later",
            )
            if not self.holds(game, entry, mine):
                return self.gone(game, entry)
            assert game is not None
            seat = seat_of(game, self.you)
            assert seat is not None
            if game.players[seat].throw is None:
                self.reveal(client, game, entry)
            game = self.wait(
                followed,
                lambda game: game is None or game.state != PLAYING_GAME or len(game.history) >= entry.round,
                lambda game: f"waiting for {self.opponent_of(game)} to reveal in round {entry.round}",
                f"your reveal is committed; {self.command('show')} shows the round's result once it is complete",
            )
        self.vault.forget(spent_in(self.name, game))
        complete = game is not None and len(game.history) >= entry.round
        return self.finish(ROUND_COMPLETE if complete else GAME_OVER, game, entry.round)

    def reveal(self, client: RestClient, game: Game, entry: VaultEntry) -> None:
        """Reveal ``entry``, which the rules must accept on ``game`` as committed: both commitments are there."""
        op = Reveal(self.name, reveal_moment(entry.round), entry.throw, entry.salt)
        refused = refusal(game, op, self.you)
        if refused:  # checked whatever the flags: a reveal refused may still have shown the throw
            raise InvalidInput(f"{refused}; nothing was submitted")
        self.reveal_batch = submit(client, self.signer, [make_rps_transaction(self.signer, op)])
        what = f"reveal in round {entry.round} of {self.label}"
        try:
            outcome = await_outcome(client, self.reveal_batch, self.budget.remaining())
        except CommandError as error:
            raise type(error)(f"{error.message}; {self.command('show')} tells whether it did") from error
        require_committed(outcome, what, self.reveal_batch, self.budget.seconds)
        self.vault.forget(lambda spent: spent == entry)  # the salt is public now
        self.say(f"Revealed {entry.throw} in round {entry.round} of {self.label}: batch {self.reveal_batch}")

    def wait(
        self,
        followed: FollowedGame,
        reached: Callable[[Game | None], bool],
        waiting: Callable[[Game | None], str],
        left: str,
    ) -> Game | None:
        """``followed`` until ``reached``; running out of time, Ctrl-C and SIGTERM say what ``left`` behind."""

        def announce(game: Game | None) -> str:
            return f"{waiting(game)} of {self.label} (Ctrl-C stops waiting: {left})"

        try:
            return followed.until(reached, self.budget, announce)
        except OutOfTime:
            claim = self.claim_hint(followed.game)
            raise TimedOut(
                f"stopped waiting after {self.budget.seconds:g} s: still {waiting(followed.game)} of {self.label}; "
                f"{left}{claim}"
            ) from None
        except KeyboardInterrupt as interrupt:
            raise stopped(interrupt, f"{waiting(followed.game)} of {self.label}: {left}") from None

    # --- what the game says ---

    def holds(self, game: Game | None, entry: VaultEntry, mine: bytes) -> bool:
        """Whether ``game`` is still in ``entry``'s round with ``entry``'s commitment as ours."""
        if game is None or game.state != PLAYING_GAME or game.round != entry.round:
            return False
        seat = seat_of(game, self.you)
        return seat is not None and game.players[seat].commitment == mine

    def both_committed(self, game: Game | None) -> bool:
        return game is not None and all(player.commitment is not None for player in game.players)

    def opponent_of(self, game: Game | None) -> str:
        if game is None:
            return "your opponent"
        return next((self.who(player.key) for player in game.players if player.key != self.you), "your opponent")

    def gone(self, game: Game | None, entry: VaultEntry) -> int:
        """The game moved on without this round: over (a resignation, a claim), deleted, or another game."""
        if game is not None and game.state == CONCLUDED:
            self.vault.forget(spent_in(self.name, game))
            return self.finish(GAME_OVER, game, entry.round)
        if game is None:
            raise InvalidInput(f"{self.label} was deleted before round {entry.round} was revealed")
        raise InvalidInput(
            f"{self.label} no longer holds your commitment of round {entry.round}: it is in round {game.round} "
            f"({render.state_text(game)}); nothing more was submitted"
        )

    def claim_hint(self, game: Game | None) -> str:
        if game is None:
            return ""
        claim = turns.claim(game)
        if claim is None or claim.claimant != self.you or claim.at is None:
            return ""
        return f"; you may claim the game from {render.moment(claim.at)} ({self.command('claim')})"

    def committed_hint(self, game: Game | None) -> str:
        """For a throw refused because the player has committed already: how that commitment is revealed, if it is."""
        seat = seat_of(game, self.you) if game is not None else None
        if game is None or seat is None or game.state != PLAYING_GAME:
            return ""
        commitment = game.players[seat].commitment
        if commitment is None:
            return ""
        if self.vault.find(commitment) is not None:
            return f" ({self.command('reveal')} reveals it)"
        return f" ({self.command('reveal')} tells why it cannot be revealed)"

    def explain_refused_commit(self, client: RestClient, outcome: BatchStatus) -> None:
        """A commit refused because an earlier one of ours was committed first (it was pending): say which throw."""
        game = read_game(client, self.name, lenient=True)
        seat = seat_of(game, self.you) if game is not None else None
        if game is None or seat is None:
            return
        on_chain = game.players[seat].commitment
        earlier = self.vault.find(on_chain) if on_chain is not None else None
        if earlier is None:
            return
        reason = "; ".join(reason for reason in outcome.reasons if reason) or "no reason given"
        raise Rejected(
            f"the validator rejected this commit: {reason}; the commitment on the chain is an earlier throw of yours "
            f"({earlier.throw}), which {self.command('reveal')} reveals"
        )

    def command(self, verb: str) -> str:
        return f"'rps {verb} {shell_word(self.name)}'"


def throw(args: argparse.Namespace) -> int:
    """``rps throw NAME THROW [--commit-only]``: commit to a throw, then (unless ``--commit-only``) play the round."""
    caller, asked = Caller.of(args), Asked.of(args)
    name = asked.name
    if asked.validate and (problem := impossible_name(name)):
        raise InvalidInput(problem)
    signer = caller.who.signer("rps")
    played = Round(asked, signer, Vault.of(caller.who.key_dir, signer.public_key), caller.who.key_names())
    with sigterm_interrupts(), caller.where.rest_client() as client:
        game = read_game(client, name, lenient=not asked.validate)
        entry = played.commit(client, game, args.throw)
        if asked.commit_only:
            played.say(f"Reveal it with {played.command('reveal')} (which first waits for your opponent's commitment)")
            return played.finish(SUBMITTED if asked.wait is None else COMMITTED, None, entry.round)
        return played.play_out(client, entry)


def reveal(args: argparse.Namespace) -> int:
    """``rps reveal NAME``: reveal the commitment the chain holds for you, from the vault, and play the round out."""
    caller, asked = Caller.of(args), Asked.of(args)
    name = asked.name
    if problem := impossible_name(name):
        raise InvalidInput(problem)
    signer = caller.who.signer("rps")
    vault = Vault.of(caller.who.key_dir, signer.public_key)
    played = Round(asked, signer, vault, caller.who.key_names())
    you = signer.public_key
    with sigterm_interrupts(), caller.where.rest_client() as client:
        game = read_game(client, name)
        seat = seat_of(game, you) if game is not None else None
        if game is None or seat is None or game.state != PLAYING_GAME:
            refused = refusal(game, Reveal(name, signed_for(game), THROWS[0], bytes(SALT_BYTES)), you)
            raise InvalidInput(f"{refused or played.label + ' is not being played'}; nothing was submitted")
        player = game.players[seat]
        if player.commitment is None:
            raise InvalidInput(
                f"you have not committed in round {game.round} of {played.label}, so there is nothing to reveal "
                f"(throw with 'rps throw {shell_word(name)} rock|paper|scissors'); nothing was submitted"
            )
        if player.throw is not None:
            raise InvalidInput(
                f"you have already revealed your throw in round {game.round} of {played.label} ({player.throw}); "
                f"{played.command('watch')} follows the round to its end; nothing was submitted"
            )
        entry = vault.find(player.commitment)
        if entry is None:
            raise InvalidInput(lost_salt(game, seat, vault, played))
        return played.play_out(client, entry)


def lost_salt(game: Game, seat: int, vault: Vault, played: Round) -> str:
    """Why the commitment on the chain cannot be revealed, and what happens to the game now."""
    opponent = game.players[1 - seat]
    mine = game.players[seat].commitment
    if mine is not None and mine == opponent.commitment:
        cause = (
            "it is the same as your opponent's commitment, a copy, and no throw and salt of yours can match a "
            "commitment made with another key"
        )
    else:
        cause = (
            f"the vault {vault.path} has no throw and salt for it (the vault was lost or replaced, or the commitment "
            "was made with this key on another machine)"
        )
    who = played.who(opponent.key)
    return (
        f"your commitment in round {game.round} of {played.label} cannot be revealed: {cause}. Nobody can reveal it "
        f"now: once {who} has revealed, {who} may claim the game when the reveal phase has lasted its time-out "
        f"({game.settings.timeout} s); {played.command('resign')} ends it at once"
    )

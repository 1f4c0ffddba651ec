"""``chips open``, ``join``, ``list``, ``show``, ``conclude``, ``challenge`` and ``finalize``: channels on the chain.

The states come from the player's store (:mod:`chips_client.store`), which a running
``chips play`` or ``chips bot`` of the same key shares, so these work while it runs.
"""

from __future__ import annotations

import argparse
import json
import sys
import time

from chips_cli import context
from chips_client import checks, moves
from chips_client import transactions as tx
from chips_client.challenges import challenge_proof, held_engine
from chips_client.channels import address_of, name_problem, name_taken, nonce_of, rounds_of, short_challenge_note
from chips_client.faucet import cannot_cover
from chips_client.narration import Story, deadline_text, grid
from chips_client.next_steps import commands, next_step
from chips_client.store import ChannelTerms, Store
from chips_tp import xo_app
from chips_tp.apps import APPS
from chips_tp.channel import Fixed, channel_id
from chips_tp.channel_state import State, decode_state
from chips_tp.state import CLOSED, FUNDING, Channel
from chips_tp.tournament import is_tournament_channel
from client_core.caller import Caller
from client_core.errors import InvalidInput
from client_core.keys import KeyNames, key_label
from xo_core.text import printable, quoted, shell_word


def open_channel(args: argparse.Namespace) -> int:
    """``chips open CHANNEL --with NAME --game G --stake N --deposit N``: one transaction opens and pays in."""
    if problem := name_problem(args.channel):
        raise InvalidInput(problem)
    caller = Caller.of(args)
    signer = context.signer(caller.who)
    opponent = context.player(caller.who, args.opponent)
    fixed = Fixed((signer.public_key, opponent), args.game, args.stake, (args.deposit, args.deposit), args.challenge,
                  nonce_of(args.channel, args.rounds))  # fmt: skip
    terms = ChannelTerms(args.channel, fixed, args.rounds)
    with context.chain(caller.where, signer, args.wait) as chain:
        if not args.no_validate:
            existing, account = chain.channel(address_of(fixed)), chain.account(signer.public_key)
            if existing is not None:
                raise InvalidInput(f"{name_taken(args.channel, existing)}; nothing was submitted")
            if (free := 0 if account is None else account.balance) < args.deposit:
                raise InvalidInput(f"{cannot_cover(free, args.deposit)}; nothing was submitted")
            if problem := checks.open_refusal(existing, account, fixed, chain.challenge_floor()):
                raise InvalidInput(f"{problem}; nothing was submitted")
        with context.store(caller.who, signer.public_key) as stored:
            stored.remember_channel(channel_id(fixed), terms)
        batch = chain.submit_all([tx.open_channel(signer, fixed)], "the open")
    names = caller.who.key_names()
    identity = channel_id(fixed).hex()
    if args.format == "json":
        print(json.dumps({"channel": identity, "name": args.channel, "batch": batch, **terms_json(fixed, names)}))
    else:
        print(f"opened channel {args.channel!r} ({identity[:8]}) with {key_label(opponent, names)}: {args.game}, "
              f"{args.stake} chips a {'game' if args.game == 'xo' else 'round'}, {args.deposit} each; your deposit is "
              f"paid in; they join with: chips join {args.channel}")  # fmt: skip
    return 0


def join(args: argparse.Namespace) -> int:
    """``chips join CHANNEL``: pay the deposit into a channel opened with you."""
    caller = Caller.of(args)
    signer = context.signer(caller.who)
    chained = context.chain(caller.where, signer, args.wait)
    with chained as chain, context.store(caller.who, signer.public_key) as stored:
        found, terms = context.locate(chain.channels(), args.channel, signer.public_key, stored)
        me_key = signer.public_key
        me = found.fixed.participants.index(me_key)
        account = chain.account(me_key)
        free, deposit = (0 if account is None else account.balance), found.fixed.deposits[me]
        if not args.no_validate and found.status == FUNDING and not found.funded[me] and free < deposit:
            raise InvalidInput(f"{cannot_cover(free, deposit)}; nothing was submitted")
        problem = None if args.no_validate else checks.join_refusal(found, account, me_key)
        if problem:
            raise InvalidInput(f"{problem}; nothing was submitted")
        duration, note = found.fixed.duration, short_challenge_note(found.fixed.duration)
        if note:
            print(f"chips: warning: {note}", file=sys.stderr, flush=True)
        stored.remember_channel(found.id, terms)
        batch = chain.submit_all([tx.join(signer, found.fixed, found.held)], "the join")
    if args.format == "json":
        print(json.dumps({"channel": found.id.hex(), "batch": batch, "deposit": found.fixed.deposits[me],
                          "challenge_seconds": duration, "short_challenge": note is not None}))  # fmt: skip
    else:
        print(f"joined channel {args.channel!r}: your deposit of {found.fixed.deposits[me]} chips is paid in; a "
              f"challenge must be answered within {duration} s; play with: chips play {args.channel}  (or chips bot "
              f"{args.channel})")  # fmt: skip
    return 0


def list_channels(args: argparse.Namespace) -> int:
    """``chips list``: your channels on the chain, those waiting for your deposit first, each with where its match
    stands (from your store) and what happens next."""
    caller = Caller.of(args)
    me = caller.who.own_public_key() or context.signer(caller.who).public_key
    with context.chain(caller.where, None, None) as chain:
        mine = [c for c in chain.channels() if me in c.fixed.participants]
    mine.sort(key=lambda c: (not open_to(c, me), c.status == CLOSED, c.id))
    names = caller.who.key_names()
    now = time.time()
    flags = context.player_flags(caller.who)
    with context.store(caller.who, me) as stored:
        known = stored.channels()
        listed = [(c, known.get(c.id), *followed(c, me, names, stored)) for c in mine]
    if args.format == "json":
        shown = [channel_json(c, names, t, me, now, story=story, latest=latest) for c, t, story, latest in listed]
        print(json.dumps(shown, indent=2))
        return 0
    if not mine:
        print("you take part in no channel")
    for c, terms, story, latest in listed:
        other = c.fixed.participants[1 - c.fixed.participants.index(me)]
        name = None if terms is None else terms.name
        said = commands(shell_word(name) if name is not None else c.id.hex()[:8], flags)
        played_for = ("a tournament's match, for points, no chips" if is_tournament_channel(c.fixed)
                      else f"stake {c.fixed.stake}  deposits {c.fixed.deposits[0]}/{c.fixed.deposits[1]}")  # fmt: skip
        print(f"{c.id.hex()[:8]}  {printable(name or '-'):<16} {c.fixed.app:<3} with {key_label(other, names)}  "
              f"{played_for}  rounds {rounds_of(c.fixed) or 'any'}")  # fmt: skip
        print(f"          {story.status(c, now, latest)}")
        if c.status != CLOSED:
            mark = " (open to you)" if open_to(c, me) else ""
            print(f"          next{mark}: {next_step(story, c, latest, said, now)}")
    return 0


def followed(channel: Channel, me: str, names: KeyNames, stored: Store) -> tuple[Story, State | None]:
    """The story of ``channel`` told from every state ``me``'s store holds, and the newest state known (the chain's
    when it is newer: before the first move, or after a challenge); None when neither holds one."""
    decode = APPS[channel.fixed.app].decode
    story = Story(channel.fixed, rounds_of(channel.fixed), me, names)
    if channel.status == CLOSED:  # said by its payout alone: a house's thousand closed matches are not read back
        return story, None
    history = [decode_state(data, decode) for data in stored.all_states(channel.id)]
    if channel.state is not None and (on_chain := decode_state(channel.state, decode)).turn > (
        history[-1].turn if history else -1
    ):
        history.append(on_chain)
    story.follow(history)
    return story, history[-1] if history else None


def show(args: argparse.Namespace) -> int:
    """``chips show CHANNEL``: the chain's record and transactions, the latest state held, and each game played."""
    caller = Caller.of(args)
    me = caller.who.own_public_key() or context.signer(caller.who).public_key
    with context.chain(caller.where, None, None) as chain, context.store(caller.who, me) as stored:
        found, terms = context.locate(chain.channels(), args.channel, me, stored)
        history = [decode_state(data, APPS[found.fixed.app].decode) for data in stored.all_states(found.id)]
        done = chain.transactions(context.address(found))
    names = caller.who.key_names()
    story = Story(found.fixed, terms.rounds, me, names)
    story.follow(history)
    latest = history[-1] if history else None
    played = games_played(story)
    closed = story.closing(done) if found.status == CLOSED else None
    now = time.time()
    if args.format == "json":
        shown = channel_json(found, names, terms, me, now)
        shown["latest"] = None if latest is None else state_json(latest)
        shown["played"] = played
        shown["transactions"] = [
            {"block": t.block, "op": t.op, "signer": t.signer, "name": names.name(t.signer),
             "transaction_id": t.transaction_id, "text": story.transaction(t)}
            for t in done
        ]  # fmt: skip
        shown["closed_how"] = closed
        shown["position_text"] = None if latest is None else story.position(latest)
        shown["score_text"] = story.score() or None
        print(json.dumps(shown, indent=2))
        return 0
    other = found.fixed.participants[1 - found.fixed.participants.index(me)]
    noun = "game" if found.fixed.app == "xo" else "round"
    print(f"channel {quoted(terms.name, None)} ({found.id.hex()})")
    print(f"  {found.fixed.app} with {key_label(other, names)}: {found.fixed.stake} chips a {noun}, deposits "
          f"{found.fixed.deposits[0]} and {found.fixed.deposits[1]}, {terms.rounds or 'any number of'} {noun}s, "
          f"{found.fixed.duration} s to answer a challenge")  # fmt: skip
    how = f", {closed}" if closed else ""
    print(f"  on chain: {story.status(found, now)}{how}; holding {found.held} chips")
    if latest is not None:
        print(f"  your store holds turn {latest.turn}: {story.position(latest)}")
        if isinstance(latest.app, xo_app.XoData) and latest.app.position in (xo_app.X_PLAYING, xo_app.O_PLAYING):
            print(indented(grid(moves.xo_board(latest.app)), 4))
    for game in played:
        print(f"  {game['label']}")
        if game.get("board"):
            print(indented(grid(str(game["board"])), 4))
    if done:
        print("  transactions on chain:")
        for t in done:
            print(f"    {story.transaction(t)}")
    return 0


def indented(text: str, spaces: int) -> str:
    """Every line of ``text`` moved right by ``spaces``."""
    return "\n".join(" " * spaces + line for line in text.splitlines())


def games_played(story: Story) -> list[dict[str, object]]:
    """Each finished xo game (its board and who won) or rps round (both throws and who won), as ``--json`` has them:
    the keys of before (``label`` now in words, rps's ``opener`` and ``joiner``) and who won, by key and name."""
    played: list[dict[str, object]] = []
    participants = story.fixed.participants
    for game in story.games:
        winner = None if game.winner is None else participants[game.winner]
        entry: dict[str, object] = {
            "balances": list(game.balances), "label": game.text, "winner": winner,
            "winner_name": None if winner is None else story.names.name(winner),
        }  # fmt: skip
        if game.board is not None:
            entry.update({"game": game.number, "board": game.board})
        if game.throws is not None:
            entry.update({"round": game.number, "opener": game.throws[0], "joiner": game.throws[1],
                          "throws": list(game.throws)})  # fmt: skip
        played.append(entry)
    return played


def conclude(args: argparse.Namespace) -> int:
    """``chips conclude CHANNEL``: close on the final state both signed."""
    return _on_chain(Caller.of(args), "conclude", args.channel, args.wait)


def challenge(args: argparse.Namespace) -> int:
    """``chips challenge CHANNEL``: hold the opponent to the latest state held."""
    return _on_chain(Caller.of(args), "challenge", args.channel, args.wait)


def finalize(args: argparse.Namespace) -> int:
    """``chips finalize CHANNEL``: pay out an unanswered challenge after its deadline."""
    return _on_chain(Caller.of(args), "finalize", args.channel, args.wait)


def _on_chain(caller: Caller, op: str, channel: str, wait: float | None) -> int:
    signer = context.signer(caller.who)
    shown = quoted(channel, None)
    with context.chain(caller.where, signer, wait) as chain, context.store(caller.who, signer.public_key) as stored:
        found, terms = context.locate(chain.channels(), channel, signer.public_key, stored)
        story = Story(found.fixed, terms.rounds, signer.public_key, caller.who.key_names())
        if found.status == CLOSED:
            print(f"channel {shown} is closed already ({story.status(found, time.time())}): nothing to {op}")
            return 0
        if op == "finalize":
            chain.submit(tx.finalize(signer, found.fixed), "the finalize")
            after = chain.channel(context.address(found))
            paid = after.payout if after is not None and after.payout else (0, 0)
            print(f"finalized channel {shown}: paid {story.balances(paid)}")
            return 0
        engine = held_engine(stored, found, signer.public_key)
        if op == "conclude":
            if not engine.concluded:
                raise InvalidInput(f"you hold no final state of {shown} signed by both: the match is not over "
                                   "('chips challenge' holds a silent opponent to the latest state)")  # fmt: skip
            chain.submit(tx.conclude(signer, found.fixed, engine.latest.signed), "the conclude")
            print(f"concluded channel {shown}: paid {story.balances(engine.latest.state.balances)}")
            return 0
        proof = challenge_proof(engine, channel)
        chain.submit(tx.challenge(signer, found.fixed, proof), "the challenge")
        after = chain.channel(context.address(found))
        opponent = story.who(1 - found.fixed.participants.index(signer.public_key))
        if after is None or after.challenge is None:
            print(f"challenged {opponent} in channel {shown}; 'chips show' says until when they may answer")
            return 0
        print(f"challenged {opponent} at turn {after.turn}: they must answer before "
              f"{deadline_text(after.challenge.deadline, time.time())}; after that: chips finalize "
              f"{shell_word(channel)}")  # fmt: skip
    return 0


def open_to(channel: Channel, me: str) -> bool:
    """Whether ``me`` may still join ``channel``: it is funding and their deposit is not in yet."""
    return channel.status == FUNDING and not channel.funded[channel.fixed.participants.index(me)]


def terms_json(fixed: Fixed, names: KeyNames) -> dict[str, object]:
    """A channel's fixed terms for ``--json``, with each participant's key and local name."""
    return {
        "game": fixed.app, "stake": fixed.stake, "deposits": list(fixed.deposits), "challenge_seconds": fixed.duration,
        "rounds": rounds_of(fixed), "participants": [{"key": k, "name": names.name(k)} for k in fixed.participants],
    }  # fmt: skip


def channel_json(
    channel: Channel, names: KeyNames, terms: ChannelTerms | None, me: str, now: float, *, story: Story | None = None,
    latest: State | None = None,
) -> dict[str, object]:  # fmt: skip
    """One channel as ``chips list --json`` prints it: its record on the chain, its local name and its terms, and
    (``status_text``) the record in words, as ``chips list`` says it (``story`` told from the store's states, the
    newest of which is ``latest``)."""
    told = story or Story(channel.fixed, rounds_of(channel.fixed), me, names)
    return {
        "channel": channel.id.hex(), "name": None if terms is None else terms.name, "status": channel.status,
        "turn": channel.turn, "held": channel.held, "funded": list(channel.funded), "open_to_you": open_to(channel, me),
        "challenge": None if channel.challenge is None else channel.challenge._asdict(),
        "payout": None if channel.payout is None else list(channel.payout), **terms_json(channel.fixed, names),
        "status_text": told.status(channel, now, latest),
    }  # fmt: skip


def state_json(state: State) -> dict[str, object]:
    """A channel state for ``--json``: bytes in the game's app part shown as hex so the object stays JSON."""
    app = {k: (v.hex() if isinstance(v, bytes) else v) for k, v in state.app._asdict().items()}
    return {"turn": state.turn, "final": state.final, "balances": list(state.balances), "app": app}

"""``chips open``, ``join``, ``list``, ``show``, ``conclude``, ``challenge`` and ``finalize``: channels on the chain.

The states come from the player's store (:mod:`chips_client.store`), which a running
``chips play`` or ``chips bot`` of the same key shares, so these work while it runs.
"""

from __future__ import annotations

import argparse
import json

from chips_cli import context
from chips_client import moves
from chips_client import transactions as tx
from chips_client.challenges import challenge_proof, held_engine
from chips_client.channels import name_problem, nonce_of, rounds_of
from chips_client.match import describe
from chips_client.store import ChannelTerms
from chips_tp import rps_app, xo_app
from chips_tp.apps import APPS
from chips_tp.channel import Fixed, channel_id, fixed_problem, mover
from chips_tp.channel_state import State, decode_state
from chips_tp.state import CLOSED, FUNDING, Channel
from client_core import session
from client_core.errors import InvalidInput
from client_core.keys import KeyNames, key_label


def open_channel(args: argparse.Namespace) -> int:
    """``chips open CHANNEL --with NAME --game G --stake N --deposit N``: one transaction opens and pays in."""
    if problem := name_problem(args.channel):
        raise InvalidInput(problem)
    signer = context.signer(args)
    opponent = context.player(args, args.opponent)
    fixed = Fixed((signer.public_key, opponent), args.game, args.stake, (args.deposit, args.deposit), args.challenge,
                  nonce_of(args.channel, args.rounds))  # fmt: skip
    if problem := fixed_problem(fixed):
        raise InvalidInput(problem)
    terms = ChannelTerms(args.channel, fixed, args.rounds)
    with context.store(args, signer.public_key) as stored:
        stored.remember_channel(channel_id(fixed), terms)
    with context.chain(args, signer) as chain:
        batch = chain.submit_all([tx.open_channel(signer, fixed)], "the open")
    names = session.key_names(args)
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
    signer = context.signer(args)
    with context.chain(args, signer) as chain, context.store(args, signer.public_key) as stored:
        found, terms = context.locate(chain.channels(), args.channel, signer.public_key, stored)
        me = found.fixed.participants.index(signer.public_key)
        if found.status != FUNDING or found.funded[me]:
            raise InvalidInput(
                f"channel {args.channel!r} is {found.status} and your deposit is in already"
                if found.funded[me]
                else f"channel {args.channel!r} is {found.status}: too late to join"
            )
        stored.remember_channel(found.id, terms)
        batch = chain.submit_all([tx.join(signer, found.fixed, found.held)], "the join")
    if args.format == "json":
        print(json.dumps({"channel": found.id.hex(), "batch": batch, "deposit": found.fixed.deposits[me]}))
    else:
        print(f"joined channel {args.channel!r}: your deposit of {found.fixed.deposits[me]} chips is paid in; "
              f"play with: chips play {args.channel}  (or chips bot {args.channel})")  # fmt: skip
    return 0


def list_channels(args: argparse.Namespace) -> int:
    """``chips list``: your channels on the chain, those waiting for your deposit first."""
    me = session.own_public_key(args) or context.signer(args).public_key
    with context.chain(args, None) as chain:
        mine = [c for c in chain.channels() if me in c.fixed.participants]
    with context.store(args, me) as stored:
        known = stored.channels()
    mine.sort(key=lambda c: (not open_to(c, me), c.status == CLOSED, c.id))
    names = session.key_names(args)
    if args.format == "json":
        print(json.dumps([channel_json(c, names, known.get(c.id), me) for c in mine], indent=2))
        return 0
    if not mine:
        print("you take part in no channel")
    for c in mine:
        other = c.fixed.participants[1 - c.fixed.participants.index(me)]
        name = known[c.id].name if c.id in known else "-"
        note = "  open to you: chips join " + c.id.hex()[:8] if open_to(c, me) else ""
        print(f"{c.id.hex()[:8]}  {name:<16} {c.fixed.app:<3} with {key_label(other, names)}  stake {c.fixed.stake}  "
              f"deposits {c.fixed.deposits[0]}/{c.fixed.deposits[1]}  rounds {rounds_of(c.fixed) or 'any'}  "
              f"{status_of(c)}{note}")  # fmt: skip
    return 0


def show(args: argparse.Namespace) -> int:
    """``chips show CHANNEL``: the chain's record and the latest state held."""
    me = session.own_public_key(args) or context.signer(args).public_key
    with context.chain(args, None) as chain, context.store(args, me) as stored:
        found, terms = context.locate(chain.channels(), args.channel, me, stored)
        history = [decode_state(data, APPS[found.fixed.app].decode) for data in stored.all_states(found.id)]
    names = session.key_names(args)
    latest = history[-1] if history else None
    played = games_played(history)
    if args.format == "json":
        shown = channel_json(found, names, terms, me)
        shown["latest"] = None if latest is None else state_json(latest)
        shown["played"] = played
        print(json.dumps(shown, indent=2))
        return 0
    other = found.fixed.participants[1 - found.fixed.participants.index(me)]
    print(f"channel {terms.name!r} ({found.id.hex()})")
    print(f"  {found.fixed.app} with {key_label(other, names)}; stake {found.fixed.stake}; deposits "
          f"{found.fixed.deposits[0]}/{found.fixed.deposits[1]}; rounds {terms.rounds or 'any'}; "
          f"challenge duration {found.fixed.duration} s")  # fmt: skip
    print(f"  on chain: {status_of(found)}, turn {found.turn}, holding {found.held} chips")
    if latest is not None:
        print(f"  you hold: {describe(latest, found.fixed.participants, found.fixed.participants.index(me))}")
    for game in played:
        print(f"  {game['label']}")
    return 0


def games_played(history: list[State]) -> list[dict[str, object]]:
    """Each finished xo game (its board and how it ended) or rps round (both throws), from the states held."""
    played: list[dict[str, object]] = []
    for state in history:
        data = state.app
        if state.final:
            continue
        if isinstance(data, xo_app.XoData) and data.position in (xo_app.VICTORY, xo_app.DRAW):
            board = moves.xo_board(data)
            ending = "a draw" if data.position == xo_app.DRAW else f"won by participant {mover(state.turn)}"
            played.append({"game": len(played) + 1, "board": board, "balances": list(state.balances),
                           "label": f"game {len(played) + 1}: {board}, {ending}"})  # fmt: skip
        elif isinstance(data, rps_app.RpsData) and data.position == rps_app.REVEAL:
            label = f"round {data.round}: the opener threw {data.throw}, the joiner {data.answer}"
            played.append({"round": data.round, "opener": data.throw, "joiner": data.answer,
                           "balances": list(state.balances), "label": label})  # fmt: skip
    return played


def conclude(args: argparse.Namespace) -> int:
    """``chips conclude CHANNEL``: close on the final state both signed."""
    return _on_chain(args, "conclude")


def challenge(args: argparse.Namespace) -> int:
    """``chips challenge CHANNEL``: hold the opponent to the latest state held."""
    return _on_chain(args, "challenge")


def finalize(args: argparse.Namespace) -> int:
    """``chips finalize CHANNEL``: pay out an unanswered challenge after its deadline."""
    return _on_chain(args, "finalize")


def _on_chain(args: argparse.Namespace, op: str) -> int:
    signer = context.signer(args)
    with context.chain(args, signer) as chain, context.store(args, signer.public_key) as stored:
        found, _terms = context.locate(chain.channels(), args.channel, signer.public_key, stored)
        if found.status == CLOSED:
            paid = found.payout or (0, 0)
            print(f"channel {args.channel!r} is closed already (paid {paid[0]} and {paid[1]}): nothing to {op}")
            return 0
        if op == "finalize":
            chain.submit(tx.finalize(signer, found.fixed), "the finalize")
            after = chain.channel(context.address(found))
            paid = after.payout if after is not None and after.payout else (0, 0)
            print(f"finalized channel {args.channel!r}: paid {paid[0]} and {paid[1]}")
            return 0
        engine = held_engine(stored, found, signer.public_key)
        if op == "conclude":
            if not engine.concluded:
                raise InvalidInput(f"you hold no final state of {args.channel!r} signed by both: the match is not over "
                                   "('chips challenge' holds a silent opponent to the latest state)")  # fmt: skip
            chain.submit(tx.conclude(signer, found.fixed, engine.latest.signed), "the conclude")
            print(f"concluded channel {args.channel!r}: paid {engine.latest.state.balances[0]} and "
                  f"{engine.latest.state.balances[1]}")  # fmt: skip
            return 0
        proof = challenge_proof(engine, args.channel)
        chain.submit(tx.challenge(signer, found.fixed, proof), "the challenge")
        after = chain.channel(context.address(found))
        deadline = after.challenge.deadline if after is not None and after.challenge else "?"
        turn = after.turn if after is not None else "?"
        print(f"challenged at turn {turn}: the opponent must answer before {deadline} (Unix time); "
              f"then: chips finalize {args.channel}")  # fmt: skip
    return 0


def open_to(channel: Channel, me: str) -> bool:
    """Whether ``me`` may still join ``channel``: it is funding and their deposit is not in yet."""
    return channel.status == FUNDING and not channel.funded[channel.fixed.participants.index(me)]


def status_of(channel: Channel) -> str:
    """The channel's status in words, with the payout once closed and the deadline while challenged."""
    if channel.status == CLOSED:
        paid = channel.payout or (0, 0)
        return f"closed (paid {paid[0]}/{paid[1]})"
    if channel.challenge is not None:
        return f"challenged until {channel.challenge.deadline}"
    return channel.status


def terms_json(fixed: Fixed, names: KeyNames) -> dict[str, object]:
    """A channel's fixed terms for ``--json``, with each participant's key and local name."""
    return {
        "game": fixed.app, "stake": fixed.stake, "deposits": list(fixed.deposits), "challenge_seconds": fixed.duration,
        "rounds": rounds_of(fixed), "participants": [{"key": k, "name": names.name(k)} for k in fixed.participants],
    }  # fmt: skip


def channel_json(channel: Channel, names: KeyNames, terms: ChannelTerms | None, me: str) -> dict[str, object]:
    """One channel as ``chips list --json`` prints it: its record on the chain, its local name and its terms."""
    return {
        "channel": channel.id.hex(), "name": None if terms is None else terms.name, "status": channel.status,
        "turn": channel.turn, "held": channel.held, "funded": list(channel.funded), "open_to_you": open_to(channel, me),
        "challenge": None if channel.challenge is None else channel.challenge._asdict(),
        "payout": None if channel.payout is None else list(channel.payout), **terms_json(channel.fixed, names),
    }  # fmt: skip


def state_json(state: State) -> dict[str, object]:
    """A channel state for ``--json``: bytes in the game's app part shown as hex so the object stays JSON."""
    app = {k: (v.hex() if isinstance(v, bytes) else v) for k, v in state.app._asdict().items()}
    return {"turn": state.turn, "final": state.final, "balances": list(state.balances), "app": app}

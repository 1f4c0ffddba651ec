"""``chips offer``, ``chips offers`` and ``chips accept``: finding an opponent through open offers on the broker.

An offerer publishes signed terms and stays running; whoever accepts opens the channel on
exactly those terms, and the offerer's ``chips offer`` joins it by itself and plays it
(with ``--bot``, many at once from one process: a house). Nothing here trusts the broker:
offers are verified (:mod:`chips_client.offers`), and a channel is joined only when it is
the accept of an offer this process published (:mod:`chips_client.offer_desk`).
"""

from __future__ import annotations

import argparse
import json
import secrets
import threading
import time
from collections.abc import Callable
from typing import NamedTuple

from chips_cli import context, play
from chips_cli.house import House
from chips_client import checks
from chips_client import offers as offer_terms
from chips_client import results as chips_results
from chips_client import transactions as tx
from chips_client.chain import RestChain
from chips_client.channels import address_of
from chips_client.faucet import cannot_cover
from chips_client.match import CHAIN_RETRY_SECONDS
from chips_client.narration import clock_time, duration, player, seconds_left
from chips_client.offer_board import Board, Post, find, heard_by, read_board
from chips_client.offer_desk import Published, decide
from chips_client.offers import SignedOffer, Terms, accept_number, channel_fixed, channel_name, make_offer
from chips_client.store import ChannelTerms
from chips_tp.channel import MIN_DURATION, Fixed, channel_id
from chips_tp.state import CLOSED, FUNDING, Channel
from client_core import session
from client_core.broker import BrokerError, BrokerSession, private_client_id
from client_core.errors import (
    INTERRUPTED,
    TERMINATED,
    InvalidInput,
    Rejected,
    TerminateRequest,
    TimedOut,
    Unavailable,
)
from client_core.keys import KeyNames
from client_core.ratings import PROVISIONAL_WORDS, Standing, rated
from client_core.results_reader import cache_path, load_book, read_to_head, save_book
from client_core.runner import sigterm_interrupts, warn
from xo_core.signing import Signer
from xo_core.text import counted, printable, quoted, shell_word

#: How often a running offer reads the chain for accepts.
POLL_SECONDS = 0.5
#: How many accepts of one offer a player may try (a channel name each) before giving up.
MAX_TRIES = 64


def offers(args: argparse.Namespace) -> int:
    """``chips offers [--game G]``: the open offers on the broker, verified, with who offers them and their rating."""
    board = _board(args, args.game, chain_floor(args))
    names = session.key_names(args)
    me = session.own_public_key(args)
    now = time.time()
    standings = staked_ratings(args) if board.offers else {}
    if args.format == "json":
        print(json.dumps([offer_json(signed, names, now, standings) for signed in board.offers], indent=2))
        return 0
    if not board.offers:
        print("no open offers" + (f" of {args.game}" if args.game else "") + "; make one with: chips offer --game "
              f"{args.game or 'xo'} --stake 10 --deposit 50")  # fmt: skip
    for signed in board.offers:
        print(offer_line(signed, names, now, me, standings.get(signed.offer.offerer)))
    shown = [standings[s.offer.offerer] for s in board.offers if s.offer.offerer in standings]
    if shown:
        marked = f"; {PROVISIONAL_WORDS}" if any(standing.provisional for standing in shown) else ""
        print(f"(ratings at staked games, from the chain, as 'xo ratings --game chips' shows them{marked})")
    if board.refused:
        print(f"({board.refused} message{'s' if board.refused != 1 else ''} on the board did not verify or "
              "offered terms this chain would not open, and are not shown)")  # fmt: skip
    return 0


def offer_line(signed: SignedOffer, names: KeyNames, now: float, me: str | None = None,
               standing: Standing | None = None) -> str:  # fmt: skip
    """One open offer for a person: its id, who offers it and their rating, the terms, and until when it stays."""
    offer = signed.offer
    stays = f"open until {clock_time(offer.expires, now)} ({duration(seconds_left(offer.expires, now))} left)"
    who, rating = player(offer.offerer, me, names), rating_text(standing)
    return f"{offer.id[: offer_terms.ID_SHOWN]}  {who:<16} {rating:<22} {terms_text(offer.terms)}; {stays}"


def rating_text(standing: Standing | None) -> str:
    """``rated 27.31 ± 4.02 (6 games)`` (a provisional one ``27.31?``), or ``no staked games yet``: at staked matches,
    where every game of a match (every round at rps) counts as one."""
    if standing is None:
        return "no staked games yet"
    return standing.words()


def staked_ratings(args: argparse.Namespace) -> dict[str, Standing]:
    """Every player's rating at staked matches, read from the chain (cached, as ``xo ratings`` reads it); none when
    the REST API cannot be reached (the offers are on the broker: they are listed all the same)."""
    try:
        with session.rest_client(args) as client:
            path = cache_path(client.base_url, chips_results.FAMILY.name)
            book, _problems = read_to_head(client, load_book(path, (chips_results.FAMILY,)))
    except Unavailable as error:
        warn("chips", f"{error.message}: the offers are shown without ratings")
        return {}
    save_book(path, book)
    return {standing.key: standing for standing in rated(book.results, chips_results.FAMILY.name)}


def terms_text(terms: Terms) -> str:
    """``xo, 10 chips a game, 50 each, 3 games, 600 s to answer a challenge``."""
    unit = "game" if terms.game == "xo" else "round"
    length = counted(terms.rounds, unit, f"{unit}s") if terms.rounds else f"{unit}s until one cannot cover the stake"
    return (f"{terms.game}, {terms.stake} chips a {unit}, {terms.deposit} each, {length}, "
            f"{duration(terms.challenge)} to answer a challenge")  # fmt: skip


def offer_json(signed: SignedOffer, names: KeyNames, now: float, standings: dict[str, Standing]) -> dict[str, object]:
    """One open offer for ``--json``, with the offerer's rating at staked matches (null: none yet)."""
    offer = signed.offer
    standing = standings.get(offer.offerer)
    return {
        "rating": None if standing is None else {"rating": round(standing.rating, 2),
                                                 "deviation": round(standing.deviation, 2), "games": standing.games,
                                                 "provisional": standing.provisional},
        "id": offer.id, "offerer": offer.offerer, "offerer_name": names.name(offer.offerer), "game": offer.terms.game,
        "stake": offer.terms.stake, "deposit": offer.terms.deposit, "rounds": offer.terms.rounds,
        "challenge_seconds": offer.terms.challenge, "expires": offer.expires,
        "seconds_left": seconds_left(offer.expires, now),
    }  # fmt: skip


def chain_floor(args: argparse.Namespace) -> int:
    """The chain's challenge floor (``chips.min_challenge_seconds``), so the board lists only offers an accept could
    open here; without a REST API, the family's least (the offers are listed all the same)."""
    try:
        with session.rest_client(args) as client:
            return RestChain(client, None).challenge_floor()
    except Unavailable:
        return MIN_DURATION


def _board(args: argparse.Namespace, game: str | None, floor: int = MIN_DURATION) -> Board:
    def open_session(receive: Callable[[str, bytes], None]) -> BrokerSession:
        return BrokerSession(args.broker, f"xo-offers-{secrets.token_hex(8)}", receive, persistent=False)

    return read_board(open_session, game, floor=floor)


def offer(args: argparse.Namespace) -> int:
    """``chips offer --game G --stake N --deposit N ...``: publish an offer, join its accepts, play them."""
    signer = context.signer(args)
    terms = Terms(args.game, args.stake, args.deposit, args.rounds, args.challenge)
    expires = int(time.time() + args.offer_seconds)
    try:
        published = Published(make_offer(signer, terms, expires), args.count)
    except ValueError as error:
        raise InvalidInput(str(error)) from None
    shown = published.signed.offer.id[: offer_terms.ID_SHOWN]
    with context.chain(args, signer) as chain, context.store(args, signer.public_key) as stored:
        free, floor = chain.balance(signer.public_key), chain.challenge_floor()
        if free < terms.deposit:
            raise InvalidInput(f"{cannot_cover(free, terms.deposit)}: nothing was offered")
        if terms.challenge < floor:
            raise InvalidInput(f"a challenge of {duration(terms.challenge)} is below this network's floor of "
                               f"{duration(floor)} (chips.min_challenge_seconds): nothing was offered")  # fmt: skip
        reconnected = threading.Event()
        posts: list[Post] = []  # the offer follows its own topic, and is put back when someone else takes it down
        client_id = private_client_id(signer, "chips-offer", published.signed.offer.id)  # the offer's id is public
        broker = BrokerSession(args.broker, client_id, heard_by(posts), on_reconnect=reconnected.set, persistent=False,
                               say=play.say)  # fmt: skip
        broker.connect(10.0)
        post = Post(broker, published.signed, play.say)
        posts.append(post)
        post.follow()
        house = House(args, signer, play.say, stored) if args.bot else None
        try:
            with sigterm_interrupts():
                post.publish()
                play.say(f"offered {terms_text(terms)}; id {shown}, open until {clock_time(expires, time.time())}; "
                         f"a player accepts it with: chips accept {shown}")  # fmt: skip
                _serve(Offering(args, signer, chain, post, published, reconnected, house))
        except Left as left:
            return left.code
        except KeyboardInterrupt as interrupt:
            return _stopped(args, interrupt, published, house)
        finally:
            post.withdraw()
            broker.close()
            if house is not None:
                house.close()
    return 0


def _stopped(args: argparse.Namespace, interrupt: KeyboardInterrupt, published: Published, house: House | None) -> int:
    """An offer (a house) stopped by Ctrl-C or SIGTERM says so plainly, with how many of its accepts were joined and,
    for a house, each match left unfinished and the command that takes it up again; the exit code names the signal."""
    terminated = isinstance(interrupt, TerminateRequest)
    how = "SIGTERM" if terminated else "Ctrl-C"
    joined = len(published.joined)
    play.say(f"stopped ({how}): the offer {published.signed.offer.id[: offer_terms.ID_SHOWN]} is withdrawn, "
             f"{counted(joined, 'accept', 'accepts')} of {published.count} joined")  # fmt: skip
    unfinished = [] if house is None else house.unfinished
    if unfinished:
        flags = context.player_flags(args)
        play.say(f"{counted(len(unfinished), 'match was', 'matches were')} still being played, every state kept in "
                 "your store: each goes on with the command below (chips watch --defend answers challenges "
                 "meanwhile)")  # fmt: skip
        for name in unfinished:
            play.say(f"  chips bot {shell_word(name)} {flags}".rstrip())
    return TERMINATED if terminated else INTERRUPTED


class Left(Exception):
    """The player left the match an offer led to (Ctrl-C, SIGTERM), and was told where it stands: the offer ends too,
    with ``code``."""

    def __init__(self, code: int) -> None:
        super().__init__(code)
        self.code = code


class Offering(NamedTuple):
    """A running ``chips offer``: its flags and key, the chain, the offer as posted, and the house if it is one."""

    args: argparse.Namespace
    signer: Signer
    chain: RestChain
    post: Post
    published: Published
    reconnected: threading.Event
    house: House | None


def _serve(offering: Offering) -> None:
    """Join the offer's accepts as they come, until its count is reached or it expires; then let the matches end.

    A person's offer plays each match as it is joined, one at a time; a house's matches run beside this loop. A
    REST API out of reach is said once and waited for (a backoff doubling to 5 s): the offer stays up meanwhile."""
    told: set[bytes] = set()
    pending: set[bytes] = set()
    retry, lost = 0.0, False
    published = offering.published
    while not published.full and time.time() < published.signed.offer.expires:
        if offering.reconnected.is_set():  # the broker may have forgotten the retained offer
            offering.reconnected.clear()
            offering.post.publish()
        try:
            _one_pass(offering, told, pending)
        except BrokerError:
            raise
        except (Unavailable, TimedOut) as error:
            retry = min(max(2 * retry, CHAIN_RETRY_SECONDS[0]), CHAIN_RETRY_SECONDS[1])
            if not lost:
                play.say(f"{error.message}; retrying (the offer stays open)")
            lost = True
            time.sleep(retry)
            continue
        if lost:
            play.say("the REST API answers again")
        retry, lost = 0.0, False
        time.sleep(POLL_SECONDS)
    offering.post.withdraw()
    play.say("the offer is withdrawn: " + ("all its accepts were joined" if published.full else "it expired"))
    if offering.house is not None:
        offering.house.wait()


def _one_pass(offering: Offering, told: set[bytes], pending: set[bytes]) -> None:
    """Read the chain once and join what accepts the offer, one join after another (a house's crowd is let in at the
    pace of the chain's commits, which keeps its moves fast); a person joins one per pass. A join sent whose commit was
    not seen (``pending``) is played once the chain shows the deposit in, and offered again while it does not; one
    refused (the accepter cancelled first) is said, and the offer goes on."""
    args, signer, chain, published = offering.args, offering.signer, offering.chain, offering.published
    names = session.key_names(args)
    channels = chain.channels()
    for channel in channels:
        if channel.id in pending and channel.funded[1]:
            pending.discard(channel.id)
            _play_joined(offering, channel, player(channel.fixed.participants[0], signer.public_key, names))
    for decision in decide([published], channels, chain.balance(signer.public_key), time.time()):
        channel = decision.channel
        who = player(channel.fixed.participants[0], signer.public_key, names)
        if not decision.join:
            if channel.id not in told:
                told.add(channel.id)
                play.say(f"not joining {who}'s accept ({channel.id.hex()[:8]}): {decision.reason}")
            continue
        pending.add(channel.id)
        try:
            chain.submit_all([tx.join(signer, channel.fixed, channel.held)], "the join")
        except Rejected as refused:
            pending.discard(channel.id)
            play.say(f"could not join {who}'s accept ({channel.id.hex()[:8]}): {refused.message}")
            continue
        pending.discard(channel.id)
        _play_joined(offering, channel, who)
        if published.full or offering.house is None:  # a person's match was played: the next pass reads afresh
            return


def _play_joined(offering: Offering, channel: Channel, who: str) -> None:
    """An accept joined: counted, said, and played (by the house beside this loop, or here, the offer off the board
    meanwhile: one match at a time)."""
    args, post, published, house = offering.args, offering.post, offering.published, offering.house
    published.joined.add(channel.id)
    name = channel_name(published.signed.offer.id, accept_number(published.signed.offer, channel.fixed,
                                                                 published.count) or 0)  # fmt: skip
    play.say(f"{who} accepted: joined channel {quoted(name, None)} ({channel.id.hex()[:8]}), accept "
             f"{len(published.joined)} of {published.count}")  # fmt: skip
    if published.full:
        post.withdraw()
    if house is not None:
        house.start(channel, name)
        return
    post.withdraw()
    args.channel = name  # the name the accepter knows it by, not its id: both players say the same
    left = play.play(args)
    if left:
        raise Left(left)
    if not published.full:
        post.publish()


def accept(args: argparse.Namespace) -> int:
    """``chips accept OFFER``: open the channel the offer names, wait for the offerer's join, play the match."""
    signer = context.signer(args)
    try:
        signed = find(_board(args, None), args.offer)
    except ValueError as error:
        raise InvalidInput(str(error)) from None
    offer = signed.offer
    who = player(offer.offerer, signer.public_key, session.key_names(args))
    if offer.offerer == signer.public_key:
        raise InvalidInput("this offer is your own: another player accepts it")
    with context.chain(args, signer) as chain, context.store(args, signer.public_key) as stored:
        theirs = chain.balance(offer.offerer)
        if theirs < offer.terms.deposit:
            raise InvalidInput(f"{who} has {theirs} free chips, too few to cover the deposit of {offer.terms.deposit} "
                               "now: nothing was opened")  # fmt: skip
        name, fixed = _unused_channel(chain, signed, signer.public_key)
        if (mine := chain.balance(signer.public_key)) < offer.terms.deposit:
            raise InvalidInput(f"{cannot_cover(mine, offer.terms.deposit)}: nothing was opened")
        refused = checks.open_refusal(None, chain.account(signer.public_key), fixed, chain.challenge_floor())
        if refused:
            raise InvalidInput(f"{refused}; nothing was submitted")
        stored.remember_channel(channel_id(fixed), ChannelTerms(name, fixed, offer.terms.rounds))
        chain.submit_all([tx.open_channel(signer, fixed)], "the open")
        waiting = duration(int(args.join_timeout))
        play.say(f"accepted {who}'s offer ({terms_text(offer.terms)}): opened channel {printable(name)} and paid your "
                 f"deposit in; waiting up to {waiting} for {who} to join")  # fmt: skip
        try:
            with sigterm_interrupts():
                joined = _joined(chain, fixed, args.join_timeout)
        except KeyboardInterrupt as interrupt:
            return _left_waiting(args, chain, signer, (name, fixed), interrupt)
        if not joined and not _cancelled_or_joined(chain, signer, fixed):
            raise InvalidInput(f"{who} did not join within {waiting} (the offer may be taken, or {who} cannot cover "
                               f"it now): the channel is cancelled and your deposit of {offer.terms.deposit} is "
                               "back")  # fmt: skip
    play.say(f"{who} joined: the match begins")
    args.channel, args.level = name, args.bot
    return play.bot(args) if args.bot else play.play(args)


def _left_waiting(args: argparse.Namespace, chain: RestChain, signer: Signer, channel: tuple[str, Fixed],
                  interrupt: KeyboardInterrupt) -> int:  # fmt: skip
    """Ctrl-C (or SIGTERM) while waiting for the offerer to join: the channel is cancelled and the deposit comes back;
    if the offerer joined first, the match stays to be played, and the player is told how to go on with it."""
    name, fixed = channel
    how = "SIGTERM" if isinstance(interrupt, TerminateRequest) else "Ctrl-C"
    with sigterm_interrupts():
        joined = _cancelled_or_joined(chain, signer, fixed)
    if joined:
        play.say(f"you left ({how}) as the offerer joined: channel {quoted(name, None)} is open with your deposit of "
                 f"{fixed.deposits[0]} chips in it; to play it: chips play {shell_word(name)} "
                 f"{context.player_flags(args)}".rstrip())  # fmt: skip
    else:
        play.say(f"you left ({how}) before the offerer joined: channel {quoted(name, None)} is cancelled and your "
                 f"deposit of {fixed.deposits[0]} chips is back")  # fmt: skip
    return TERMINATED if how == "SIGTERM" else INTERRUPTED


def _unused_channel(chain: RestChain, signed: SignedOffer, me: str) -> tuple[str, Fixed]:
    """The name and terms of this player's next accept of the offer: the first of its numbers not on the chain."""
    for k in range(1, MAX_TRIES + 1):
        fixed = channel_fixed(signed.offer, me, k)
        if chain.channel(address_of(fixed)) is None:
            return channel_name(signed.offer.id, k), fixed
    raise InvalidInput(f"you accepted this offer {MAX_TRIES} times already: ask for a new one")


def _cancelled_or_joined(chain: RestChain, signer: Signer, fixed: Fixed) -> bool:
    """Cancel the channel nobody joined (False); True when the cancel lost the race to the offerer's join."""
    try:
        chain.submit_all([tx.cancel(signer, fixed)], "the cancel")
    except Rejected:
        record = play.patiently(lambda: chain.channel(address_of(fixed)))
        if record is None or record.status == FUNDING:
            raise
        return record.status != CLOSED
    return False


def _joined(chain: RestChain, fixed: Fixed, timeout: float) -> bool:
    """Whether the offerer joined the channel within ``timeout`` seconds (read from the chain twice a second; a REST
    API out of reach is waited for)."""
    ends = time.monotonic() + timeout
    while time.monotonic() < ends:
        record = play.patiently(lambda: chain.channel(address_of(fixed)))
        if record is not None and record.status != FUNDING:
            return record.status != CLOSED
        time.sleep(0.5)
    return False

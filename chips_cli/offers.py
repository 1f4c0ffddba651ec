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
from dataclasses import dataclass, field
from typing import NamedTuple

from chips_cli import context, play
from chips_cli.house import House
from chips_client import checks
from chips_client import offers as offer_terms
from chips_client import results as chips_results
from chips_client import transactions as tx
from chips_client.chain import RestChain
from chips_client.channel_feed import ChannelBook, ChannelFeed
from chips_client.channels import address_of
from chips_client.declines import decline_topic, make_decline, read_decline
from chips_client.faucet import cannot_cover
from chips_client.match import CHAIN_RETRY_SECONDS
from chips_client.narration import clock_time, duration, player, seconds_left
from chips_client.offer_board import Board, Post, find, heard_by, read_board
from chips_client.offer_desk import Published, decide
from chips_client.offers import SignedOffer, Terms, accept_number, channel_fixed, channel_name, make_offer
from chips_client.store import ChannelTerms
from chips_tp.channel import MIN_DURATION, Fixed, channel_id
from chips_tp.state import CLOSED, FUNDING, Channel
from client_core.broker import BrokerAddress, BrokerError, BrokerSession, private_client_id
from client_core.caller import Caller, Where, Who
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
from xo_core.canonical import Malformed
from xo_core.signing import Signer
from xo_core.text import counted, printable, quoted, shell_word

#: A running offer looks at the channels on every block that changes one, and at least this often (seconds).
POLL_SECONDS = 0.5
#: A join not seen on the chain this long after it was sent is asked after (seconds).
JOIN_CHECK_SECONDS = 10.0
#: An accept a busy house has kept waiting this long is declined, so the accepter is not left waiting in vain.
BUSY_DECLINE_SECONDS = 20.0
#: Joins sent in one POST at most (a batch each): a crowd's accepts are joined a hundred at a time.
JOINS_PER_POST = 100
#: How many accepts of one offer a player may try (a channel name each) before giving up.
MAX_TRIES = 64


def offers(args: argparse.Namespace) -> int:
    """``chips offers [--game G]``: the open offers on the broker, verified, with who offers them and their rating."""
    caller = Caller.of(args)
    board = _board(args.broker, args.game, chain_floor(caller.where))
    names = caller.who.key_names()
    me = caller.who.own_public_key()
    now = time.time()
    standings = staked_ratings(caller.where) if board.offers else {}
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


def staked_ratings(where: Where) -> dict[str, Standing]:
    """Every player's rating at staked matches, read from the chain (cached, as ``xo ratings`` reads it); none when
    the REST API cannot be reached (the offers are on the broker: they are listed all the same)."""
    try:
        with where.rest_client() as client:
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


def chain_floor(where: Where) -> int:
    """The chain's challenge floor (``chips.min_challenge_seconds``), so the board lists only offers an accept could
    open here; without a REST API, the family's least (the offers are listed all the same)."""
    try:
        with where.rest_client() as client:
            return RestChain(client, None).challenge_floor()
    except Unavailable:
        return MIN_DURATION


def _board(broker: BrokerAddress, game: str | None, floor: int = MIN_DURATION) -> Board:
    def open_session(receive: Callable[[str, bytes], None]) -> BrokerSession:
        return BrokerSession(broker, f"xo-offers-{secrets.token_hex(8)}", receive, persistent=False)

    return read_board(open_session, game, floor=floor)


def offer(args: argparse.Namespace) -> int:
    """``chips offer --game G --stake N --deposit N ...``: publish an offer, join its accepts, play them."""
    caller, playing = Caller.of(args), context.Playing.of(args, args.bot)
    signer = context.signer(caller.who)
    terms = Terms(args.game, args.stake, args.deposit, args.rounds, args.challenge)
    expires = int(time.time() + args.offer_seconds)
    try:
        published = Published(make_offer(signer, terms, expires), args.count)
    except ValueError as error:
        raise InvalidInput(str(error)) from None
    shown = published.signed.offer.id[: offer_terms.ID_SHOWN]
    with context.chain(caller.where, signer, None) as chain, context.store(caller.who, signer.public_key) as stored:
        free, floor = chain.balance(signer.public_key), chain.challenge_floor()
        if free < terms.deposit:
            raise InvalidInput(f"{cannot_cover(free, terms.deposit)}: nothing was offered")
        if terms.challenge < floor:
            raise InvalidInput(f"a challenge of {duration(terms.challenge)} is below this network's floor of "
                               f"{duration(floor)} (chips.min_challenge_seconds): nothing was offered")  # fmt: skip
        reconnected = threading.Event()
        posts: list[Post] = []  # the offer follows its own topic, and is put back when someone else takes it down
        client_id = private_client_id(signer, "chips-offer", published.signed.offer.id)  # the offer's id is public
        broker = BrokerSession(playing.broker, client_id, heard_by(posts), on_reconnect=reconnected.set,
                               persistent=False, say=play.say)  # fmt: skip
        broker.connect(10.0)
        post = Post(broker, published.signed, play.say)
        posts.append(post)
        post.follow()
        reader = caller.where.rest_client()
        feed = ChannelFeed(reader, say=play.say)
        house = None
        try:
            feed.start()  # before the offer is up: no accept can fall between the reading and the events
            house = House(caller, playing, signer, say=play.say, stored=stored, feed=feed) if playing.level else None
            with sigterm_interrupts():
                post.publish()
                play.say(f"offered {terms_text(terms)}; id {shown}, open until {clock_time(expires, time.time())}; "
                         f"a player accepts it with: chips accept {shown}")  # fmt: skip
                _serve(Offering(caller, playing, signer, chain, post, published, reconnected, house, feed,
                                lambda channel, reason: _decline(broker, signer, channel, reason)))
        except Left as left:
            return left.code
        except KeyboardInterrupt as interrupt:
            return _stopped(caller.who, interrupt, published, house)
        finally:
            post.withdraw()
            broker.close()
            if house is not None:
                house.close()
            feed.stop()
            reader.close()
    return 0


def _decline(broker: BrokerSession, signer: Signer, channel: Channel, reason: str) -> None:
    """Tell the accepter of ``channel`` that it will not be joined; a broker away loses the word (they time out)."""
    accepter = channel.fixed.participants[0]
    try:
        broker.publish(decline_topic(channel.id, accepter), make_decline(signer, channel.id, reason), 10.0)
    except BrokerError as error:
        play.say(f"could not tell {accepter[:6]}... why: {error.message}")


def _stopped(who: Who, interrupt: KeyboardInterrupt, published: Published, house: House | None) -> int:
    """An offer (a house) stopped by Ctrl-C or SIGTERM says so plainly, with how many of its accepts were joined and,
    for a house, each match left unfinished and the command that takes it up again; the exit code names the signal."""
    terminated = isinstance(interrupt, TerminateRequest)
    how = "SIGTERM" if terminated else "Ctrl-C"
    joined = len(published.joined)
    play.say(f"stopped ({how}): the offer {published.signed.offer.id[: offer_terms.ID_SHOWN]} is withdrawn, "
             f"{counted(joined, 'accept', 'accepts')} of {published.count} joined")  # fmt: skip
    unfinished = [] if house is None else house.unfinished
    if unfinished:
        flags = context.player_flags(who)
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
    """A running ``chips offer``: who runs it and how it plays, its key, the chain, the offer as posted, and the house
    if it is one."""

    caller: Caller
    playing: context.Playing
    signer: Signer
    chain: RestChain
    post: Post
    published: Published
    reconnected: threading.Event
    house: House | None
    feed: ChannelBook
    """The channels, kept current by the ledger's events: where accepts and joins are seen."""
    decline: Callable[[Channel, str], None]
    """Tell an accepter at once that their accept will not be joined, and why (:mod:`chips_client.declines`)."""


@dataclass
class Desk:
    """What a running offer remembers from one look at the channels to the next."""

    pending: dict[bytes, Pending] = field(default_factory=dict)
    """The joins sent and not yet seen on the chain, by channel."""
    declined: set[bytes] = field(default_factory=set)
    """The accepts declined (said once)."""
    waiting: dict[bytes, float] = field(default_factory=dict)
    """When each joinable accept a busy house has not joined yet was first seen (monotonic)."""


class Pending(NamedTuple):
    """A join sent and not yet seen on the chain: its batch, when it was sent, the deposit it pays in."""

    batch_id: str
    sent: float
    deposit: int


def _serve(offering: Offering) -> None:
    """Join the offer's accepts as they come, until its count is reached or it expires; then let the matches end.

    Each block that changes a channel wakes the loop (:class:`chips_client.channel_feed.ChannelFeed`), so an accept is
    joined as soon as its open commits. A person's offer plays each match as it is joined, one at a time; a house's
    matches run beside this loop. A REST API out of reach is said once and waited for (a backoff doubling to 5 s):
    the offer stays up meanwhile."""
    desk = Desk()
    changed = threading.Event()
    offering.feed.listen(lambda _channels: changed.set())
    retry, lost = 0.0, False
    published = offering.published
    while not published.full and time.time() < published.signed.offer.expires:
        if offering.reconnected.is_set():  # the broker may have forgotten the retained offer
            offering.reconnected.clear()
            offering.post.publish()
        changed.clear()
        try:
            _one_pass(offering, desk)
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
        changed.wait(POLL_SECONDS)
    offering.post.withdraw()
    play.say("the offer is withdrawn: " + ("all its accepts were joined" if published.full else "it expired"))
    if offering.house is not None:
        offering.house.wait()


def _one_pass(offering: Offering, desk: Desk) -> None:
    """Look at the channels once: play the joins the chain now shows, and join what accepts the offer, a house every
    accept at once (a batch each, in one POST: one block commits them all), a person one. A join whose commit is
    not seen within JOIN_CHECK_SECONDS is asked after: one refused (the accepter cancelled first) is said, and the
    offer goes on.

    An accept that will not be joined is declined to the accepter at once, with the reason (the offerer cannot
    fund it, the accepts are all taken), so they cancel and have their deposit back. A house that runs behind starts
    no more matches until it catches up (:meth:`House.admits`); an accept it keeps waiting BUSY_DECLINE_SECONDS is
    declined as busy."""
    signer, chain, published = offering.signer, offering.chain, offering.published
    pending = desk.pending
    names = offering.caller.who.key_names()
    channels = offering.feed.channels()
    for channel in channels:
        if channel.id not in pending:
            continue
        who = player(channel.fixed.participants[0], signer.public_key, names)
        if channel.funded[1]:
            del pending[channel.id]
            _play_joined(offering, channel, who)
            if offering.house is None:
                return  # a person's match was played: the next pass looks afresh
        elif channel.status != FUNDING:
            del pending[channel.id]
            play.say(f"could not join {who}'s accept ({channel.id.hex()[:8]}): it was cancelled first")
    _overdue(offering, pending)
    room = published.count - len(published.joined) - len(pending)
    if offering.house is None:
        admitted = 0 if pending else min(room, 1)
    else:
        admitted = min(room, offering.house.admits(len(pending)))
    balance = chain.balance(signer.public_key) - sum(sent.deposit for sent in pending.values())
    joining: list[Channel] = []
    now = time.monotonic()
    for decision in decide([published], [c for c in channels if c.id not in pending], balance, time.time()):
        channel = decision.channel
        if channel.id in desk.declined:
            continue  # the accepter was told no, and is cancelling it
        if decision.join and len(joining) < admitted:
            joining.append(channel)
            continue
        reason = _to_accepter(decision.reason, channel.fixed.deposits[1])
        if reason.startswith("the offerer cannot fund") and pending:
            continue  # the balance read may already hold joins still pending here: decided once they are seen
        if decision.join:  # joinable, but not now: a person plays one match at a time, a house may be busy
            waited = now - desk.waiting.setdefault(channel.id, now)
            if offering.house is None or waited < BUSY_DECLINE_SECONDS:
                continue
            reason = "the house is too busy to start your match now: try again in a minute"
        desk.declined.add(channel.id)
        who = player(channel.fixed.participants[0], signer.public_key, names)
        play.say(f"not joining {who}'s accept ({channel.id.hex()[:8]}): {decision.reason or reason}; told them so")
        offering.decline(channel, reason)
    for start in range(0, len(joining), JOINS_PER_POST):
        chunk = joining[start : start + JOINS_PER_POST]
        batch_ids = chain.post_each([tx.join(signer, channel.fixed, channel.held) for channel in chunk])
        for channel, batch_id in zip(chunk, batch_ids, strict=True):
            pending[channel.id] = Pending(batch_id, time.monotonic(), channel.fixed.deposits[1])


def _to_accepter(reason: str, deposit: int) -> str:
    """The reason an accept is not joined, as the accepter reads it (the offerer's chips are the offerer's)."""
    return f"the offerer cannot fund another deposit of {deposit} now" if reason.startswith("your ") else reason


def _overdue(offering: Offering, pending: dict[bytes, Pending]) -> None:
    """Ask after the joins sent long ago and still not seen: one refused is said and forgotten (the accept is looked at
    again), one the REST API does not know is forgotten too; one still pending is waited for."""
    names = offering.caller.who.key_names()
    for ident, sent in list(pending.items()):
        if time.monotonic() - sent.sent < JOIN_CHECK_SECONDS:
            continue
        status = offering.chain.client.batch_status(sent.batch_id)
        if status.status in ("PENDING", "COMMITTED"):
            pending[ident] = sent._replace(sent=time.monotonic())
            continue
        del pending[ident]
        found = next((c for c in offering.feed.channels() if c.id == ident), None)
        who = "an accepter" if found is None else player(found.fixed.participants[0], offering.signer.public_key, names)
        reason = "; ".join(status.reasons) or f"the REST API says its batch is {status.status}"
        play.say(f"could not join {who}'s accept ({ident.hex()[:8]}): {reason}")


def _play_joined(offering: Offering, channel: Channel, who: str) -> None:
    """An accept joined: counted, said, and played (by the house beside this loop, or here, the offer off the board
    meanwhile: one match at a time)."""
    post, published, house = offering.post, offering.published, offering.house
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
    # the name the accepter knows it by, not its id: both players say the same
    left = play.play_channel(offering.caller, offering.playing, name)
    if left:
        raise Left(left)
    if not published.full:
        post.publish()


def accept(args: argparse.Namespace) -> int:
    """``chips accept OFFER``: open the channel the offer names, wait for the offerer's join, play the match."""
    caller, playing = Caller.of(args), context.Playing.of(args, args.bot)
    signer = context.signer(caller.who)
    try:
        signed = find(_board(playing.broker, None), args.offer)
    except ValueError as error:
        raise InvalidInput(str(error)) from None
    offer = signed.offer
    who = player(offer.offerer, signer.public_key, caller.who.key_names())
    if offer.offerer == signer.public_key:
        raise InvalidInput("this offer is your own: another player accepts it")
    chained = context.chain(caller.where, signer, playing.wait)
    with chained as chain, context.store(caller.who, signer.public_key) as stored:
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
        declined = Declined(channel_id(fixed), offer.offerer)
        listener = BrokerSession(playing.broker, f"xo-accept-{secrets.token_hex(8)}", declined.receive,
                                 persistent=False)
        listener.connect(10.0)
        try:  # listening before the open: a decline cannot come before it is heard
            listener.subscribe(decline_topic(channel_id(fixed), signer.public_key), 10.0)
            chain.submit_all([tx.open_channel(signer, fixed)], "the open")
            waiting = duration(int(args.join_timeout))
            play.say(f"accepted {who}'s offer ({terms_text(offer.terms)}): opened channel {printable(name)} and paid "
                     f"your deposit in; waiting up to {waiting} for {who} to join")  # fmt: skip
            try:
                with sigterm_interrupts():
                    joined = _joined(chain, fixed, args.join_timeout, declined)
            except KeyboardInterrupt as interrupt:
                return _left_waiting(caller.who, chain, signer, (name, fixed), interrupt)
        finally:
            listener.close()
        if not joined and not _cancelled_or_joined(chain, signer, fixed):
            if declined.reason is not None:
                raise InvalidInput(f"{who} declined your accept: {declined.reason}; the channel is cancelled and your "
                                   f"deposit of {offer.terms.deposit} is back")  # fmt: skip
            raise InvalidInput(f"{who} did not join within {waiting} (the offer may be taken, or {who} cannot cover "
                               f"it now): the channel is cancelled and your deposit of {offer.terms.deposit} is "
                               "back")  # fmt: skip
    play.say(f"{who} joined: the match begins")
    return play.play_channel(caller, playing, channel_id(fixed).hex())  # the channel opened, not another of its name


def _left_waiting(who: Who, chain: RestChain, signer: Signer, channel: tuple[str, Fixed],
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
                 f"{context.player_flags(who)}".rstrip())  # fmt: skip
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


class Declined:
    """Whether the offerer declined the accept of one channel, heard on the broker (only a decline it signed)."""

    def __init__(self, channel: bytes, offerer: str) -> None:
        self.channel, self.offerer = channel, offerer
        self.reason: str | None = None
        self.heard: Callable[[], None] = lambda: None
        """Called once a decline is heard (on the broker's thread): the wait for the join looks again at once."""

    def receive(self, _topic: str, payload: bytes) -> None:
        try:
            self.reason = read_decline(payload, self.channel, self.offerer)
        except Malformed:  # anyone can publish there: only the offerer's word counts
            return
        self.heard()


def _joined(chain: RestChain, fixed: Fixed, timeout: float, declined: Declined) -> bool:
    """Whether the offerer joined the channel within ``timeout`` seconds: seen from the ledger's events the moment its
    join commits (a REST API out of reach at the start is waited for); False at once when the offerer declines."""
    feed = ChannelFeed(chain.client, address_of(fixed))
    play.patiently(feed.start)
    try:
        return _await_join(feed, address_of(fixed), timeout, declined)
    finally:
        feed.stop()


def _await_join(feed: ChannelBook, address: str, timeout: float, declined: Declined) -> bool:
    """Whether the channel at ``address`` is joined within ``timeout`` seconds, woken by each block and by a decline."""
    declined.heard = feed.wake
    feed.wait_for(lambda: declined.reason is not None or ((found := feed.channel(address)) is not None
                                                          and found.status != FUNDING), timeout)  # fmt: skip
    record = feed.channel(address)
    return record is not None and record.status not in (FUNDING, CLOSED)

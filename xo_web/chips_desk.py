"""Chips for the page: a player's balance and channels as the chain and their store hold them; open and join.

The reading is ``chips balance`` and ``chips list`` (the chain's records through
:class:`chips_client.chain.RestChain`, the states from the player's own store,
:mod:`chips_client.store`, the very file ``chips play`` keeps), and open and join are
``chips open`` and ``chips join`` (the same transactions, one batch each, waited for).
Blocking (``http.client``, SQLite): the server runs these in worker threads.
Every text a player chose (a channel's name, a key's name) leaves here through
:func:`xo_core.text.printable` as ``shown``; the page sets it as text only.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, Final, NamedTuple

from chips_client import checks
from chips_client import transactions as tx
from chips_client.chain import RestChain
from chips_client.challenges import challenge_proof, held_engine
from chips_client.channels import (
    MAX_NAME_LENGTH,
    MAX_ROUNDS,
    name_problem,
    name_taken,
    nonce_of,
    rounds_of,
    short_challenge_note,
)  # fmt: skip
from chips_client.narration import Story, player
from chips_client.store import ChannelTerms, Store, default_path
from chips_tp.apps import APPS
from chips_tp.channel import APPS as GAMES
from chips_tp.channel import MAX_DURATION, MIN_DURATION, Fixed, channel_id, mover
from chips_tp.channel_state import State, decode_state
from chips_tp.family import channel_address
from chips_tp.rps_app import REVEAL
from chips_tp.state import CLOSED, FUNDING, RUNNING
from chips_tp.state import Channel as Record
from client_core.errors import CommandError, InvalidInput, Rejected
from client_core.keys import KeyNames
from xo_core.keyfiles import key_paths
from xo_core.public_keys import is_compressed_public_key, key_problem
from xo_core.signing import Signer
from xo_core.text import duration, printable, quoted
from xo_web.errors import REJECTED, ApiError, bad_request
from xo_web.sender import Sender, refused, unavailable

Json = dict[str, Any]
MAX_AMOUNT: Final = 10**12
"""The most chips a page may stake or deposit in one request (the family allows more; no person needs it)."""
CHANNEL_ID_HEX: Final = 64
OFFER_ID_HEX: Final = 64
HEX_DIGITS: Final = frozenset("0123456789abcdef")


class OpenRequest(NamedTuple):
    """A page's request to open a channel, checked: who opens it, with whom, which game and what stakes."""

    player: str
    name: str
    opponent: str
    game: str
    stake: int
    deposit: int
    rounds: int
    challenge: int


def whole_field(body: dict, field: str, low: int, high: int) -> int:
    """``body[field]`` if it is a whole number from ``low`` to ``high`` (a boolean is not one); 400 otherwise."""
    value = body.get(field)
    if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
        raise bad_request(f'"{field}" must be a whole number from {low} to {high}')
    return value


def _text(body: dict, field: str, what: str) -> str:
    value = body.get(field)
    if not isinstance(value, str) or not value:
        raise bad_request(f'"{field}" must be {what}')
    return value


def parse_player(body: object) -> str:
    """The ``player`` of a chips request: a key's name (checked against the key directory later)."""
    if not isinstance(body, dict):
        raise bad_request('a chips request is a JSON object naming "player"')
    return _text(body, "player", "the name of one of your keys")


def parse_open(body: object) -> OpenRequest:
    """``{"player", "name", "opponent", "game", "stake", "deposit", "rounds", "challenge"}``, or a 400 saying why."""
    player = parse_player(body)
    assert isinstance(body, dict)
    name = _text(body, "name", f"the channel's name, 1 to {MAX_NAME_LENGTH} characters")
    if problem := name_problem(name):
        raise bad_request(printable(problem, escape_backslashes=False))
    game = body.get("game")
    if game not in GAMES:
        raise bad_request(f'"game" must be one of {", ".join(GAMES)}')
    return OpenRequest(
        player, name, _text(body, "opponent", "a key's name or a public key"), game,
        whole_field(body, "stake", 1, MAX_AMOUNT), whole_field(body, "deposit", 1, MAX_AMOUNT),
        whole_field(body, "rounds", 0, MAX_ROUNDS), whole_field(body, "challenge", MIN_DURATION, MAX_DURATION),
    )  # fmt: skip


def parse_channel(body: object) -> tuple[str, bytes]:
    """``{"player", "channel"}``: the key's name and the channel's id (64 hex digits), or a 400."""
    player = parse_player(body)
    assert isinstance(body, dict)
    given = body.get("channel")
    if not isinstance(given, str) or len(given) != CHANNEL_ID_HEX:
        raise bad_request('"channel" must be a channel\'s id: 64 hex digits')
    try:
        return player, bytes.fromhex(given)
    except ValueError:
        raise bad_request('"channel" must be a channel\'s id: 64 hex digits') from None


def parse_offer_id(body: object) -> tuple[str, str]:
    """``{"player", "offer"}``: the key's name and an offer's id (64 hex digits, as the offers list gives it), or a
    400."""
    player = parse_player(body)
    assert isinstance(body, dict)
    given = body.get("offer")
    if not isinstance(given, str) or len(given) != OFFER_ID_HEX or not all(c in HEX_DIGITS for c in given):
        raise bad_request('"offer" must be an offer\'s id: 64 lowercase hex digits')
    return player, given


def state_view(state: State, me: int, story: Story | None = None) -> Json:
    """A channel state for the page: turn, balances (the player's first), the position, and whose move is next;
    with the match's ``story`` (the states before it told), the position and score in words as well."""
    data = state.app
    view: Json = {
        "turn": state.turn, "final": state.final, "balances": [state.balances[me], state.balances[1 - me]],
        "position": data.position, "next_is_mine": not state.final and mover(state.turn + 1) == me,  # type: ignore[attr-defined]
    }  # fmt: skip
    if hasattr(data, "crosses"):
        view["board"] = "".join(
            "X" if data.crosses >> (9 - space) & 1 else "O" if data.noughts >> (9 - space) & 1 else "-"  # type: ignore[attr-defined]
            for space in range(1, 10)
        )
    else:
        view["round"] = data.round  # type: ignore[attr-defined]
        view["throws"] = None
        if data.position == REVEAL:  # type: ignore[attr-defined]
            proposer = mover(state.turn - 1 if state.final else state.turn)  # a final state repeats the reveal
            by = {proposer: data.throw, 1 - proposer: data.answer}  # type: ignore[attr-defined]
            view["throws"] = [by[me], by[1 - me]]  # the proposer revealed: its throw, and the answer it had
    if story is not None:
        view["words"] = story.position(state)
        view["score"] = story.score() or None
    return view


def latest_state(store: Store, record: Record) -> State | None:
    """The newest state the player holds of ``record``'s channel (the chain's when newer or the store has none)."""
    decode = APPS[record.fixed.app].decode
    held = store.states(record.id, 1)
    state = decode_state(held[0][1].state, decode) if held else None
    if record.state is not None and (state is None or record.turn > state.turn):
        state = decode_state(record.state, decode)
    return state


def told(store: Store, record: Record, me: str, names: KeyNames) -> Story:
    """The match in ``record``'s channel as the player's store holds it, told to them (the chain's newer state too)."""
    story = Story(record.fixed, rounds_of(record.fixed), me, names)
    decode = APPS[record.fixed.app].decode
    story.follow(decode_state(data, decode) for data in store.all_states(record.id))
    return story


def channel_view(
    record: Record, me: str, names: KeyNames, terms: ChannelTerms | None, state: State | None, *,
    story: Story | None = None,
) -> Json:  # fmt: skip
    """A channel as the page lists it: terms, the chain's status (a challenge's deadline), and the latest state;
    with the ``story`` of its match, the games or rounds played and the score in words."""
    fixed = record.fixed
    index = fixed.participants.index(me)
    opponent = fixed.participants[1 - index]
    opponent_name = names.name(opponent)
    name = terms.name if terms is not None else None
    challenge = record.challenge
    return {
        "id": record.id.hex(),
        "shown": printable(name) if name is not None else record.id.hex()[:8],
        "game": fixed.app,
        "stake": fixed.stake,
        "deposits": [fixed.deposits[index], fixed.deposits[1 - index]],
        "rounds": rounds_of(fixed),
        "challenge_seconds": fixed.duration,
        "challenge_note": short_challenge_note(fixed.duration),
        "me": index,
        "opponent": {"public_key": opponent, "name": None if opponent_name is None else printable(opponent_name)},
        "status": record.status,
        "open_to_me": record.status == FUNDING and not record.funded[index],
        "waiting_for_opponent": record.status == FUNDING and record.funded[index] and not record.funded[1 - index],
        "held": record.held,
        "chain_turn": record.turn,
        "challenge": None if challenge is None else {
            "deadline": challenge.deadline, "by_me": challenge.challenger == me,
            "by": player(challenge.challenger, me, names),
        },
        "payout": None if record.payout is None else [record.payout[index], record.payout[1 - index]],
        "state": None if state is None else state_view(state, index, story),
        "played": [] if story is None else [game.text for game in story.games],
        "score": None if story is None else story.score() or None,
    }  # fmt: skip


def sort_key(view: Json) -> tuple[int, str]:
    """Channels needing the player first: open to them, then running, funding, and closed last."""
    order = 0 if view["open_to_me"] else {"running": 1, FUNDING: 2, CLOSED: 3}.get(view["status"], 4)
    return order, view["shown"]


class ChipsDesk(Sender):
    """The chips requests that touch only the chain and the store: the player's view, open, join."""

    def __init__(self, *args: Any, store_path: Callable[[Path, str], Path] = default_path, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.store_path = store_path

    def store(self, public_key: str) -> Store:
        """The store of ``public_key``'s channel states and secrets."""
        return Store(self.store_path(self.key_dir, public_key))

    def chain(self, client: Any, signer: Any = None) -> RestChain:
        """The chain over ``client``, signing with ``signer`` (None: read only)."""
        return RestChain(client, signer, self.wait_seconds)

    def view(self, player: str) -> Json:
        """``{"player", "public_key", "balance", "channels", "now"}``: what the page shows of ``player``'s chips."""
        me = self.player_signer(player).public_key
        names = self.names()
        try:
            with self.client() as client:
                chain = self.chain(client)
                balance, records = chain.balance(me), [c for c in chain.channels() if me in c.fixed.participants]
        except CommandError as error:
            raise unavailable(error) from None
        with self.store(me) as store:
            views = [
                channel_view(r, me, names, store.channel(r.id), latest_state(store, r), story=told(store, r, me, names))
                for r in records
            ]
        return {
            "player": printable(player), "public_key": me, "balance": balance,
            "channels": sorted(views, key=sort_key), "now": time.time(),
        }  # fmt: skip

    def open(self, request: OpenRequest) -> Json:
        """``chips open``: the channel opened and the opener's deposit paid, in one batch."""
        signer = self.player_signer(request.player)
        opponent = self.public_key(request.opponent)
        fixed = Fixed(
            (signer.public_key, opponent), request.game, request.stake, (request.deposit, request.deposit),
            request.challenge, nonce_of(request.name, request.rounds),
        )  # fmt: skip
        self.open_fixed(signer, fixed, request.name, request.rounds)
        return {"channel": channel_id(fixed).hex(), "message": f"Opened channel {quoted(request.name, None)}; "
                f"your deposit of {request.deposit} chips is in."}  # fmt: skip

    def open_fixed(self, signer: Signer, fixed: Fixed, name: str, rounds: int) -> None:
        """Open the channel ``fixed`` named ``name`` with ``signer``'s deposit, once the chain's rules allow it (a 409
        saying why not); the store remembers its name first, so a match started later finds it."""
        if problem := self.open_refusal(fixed, name):
            raise refused(f"{problem}; nothing was submitted")
        with self.store(signer.public_key) as store:
            store.remember_channel(channel_id(fixed), ChannelTerms(name, fixed, rounds))
        self._submit(signer, [tx.open_channel(signer, fixed)], f"the open of channel {quoted(name, None)}")

    def submit(self, signer: Signer, transaction: Any, what: str) -> None:
        """Send ``transaction`` signed by ``signer`` in a batch of its own and wait for it: a 409 in the validator's
        words if it is rejected, a 502 if the REST API cannot answer."""
        self._submit(signer, [transaction], what)

    def join(self, player: str, ident: bytes) -> Json:
        """``chips join``: the joiner's deposit into a channel opened with them."""
        signer = self.player_signer(player)
        record = self.record(ident, signer.public_key)
        index = record.fixed.participants.index(signer.public_key)
        if record.status != FUNDING or record.funded[index]:
            raise refused(f"channel {ident.hex()[:8]} is not waiting for your deposit; nothing was submitted")
        with self.store(signer.public_key) as store:
            if store.channel(ident) is None:
                store.remember_channel(ident, ChannelTerms(ident.hex()[:8], record.fixed, rounds_of(record.fixed)))
        self._submit(signer, [tx.join(signer, record.fixed, record.held)], f"the deposit into {ident.hex()[:8]}")
        note = short_challenge_note(record.fixed.duration)
        return {"channel": ident.hex(), "message": f"Your deposit of {record.fixed.deposits[index]} chips is in: "
                f"the match can start. A challenge must be answered within {duration(record.fixed.duration)}."
                + (f" Note: {note}." if note else "")}  # fmt: skip

    def challenge(self, player: str, ident: bytes) -> Json:
        """``chips challenge``: hold the opponent to the newest state the player's store has; they must answer by the
        deadline. A match the server plays for the player goes on meanwhile and finalizes once the deadline passes."""
        signer = self.player_signer(player)
        record = self.record(ident, signer.public_key)
        if record.status != RUNNING:
            raise refused(f"channel {ident.hex()[:8]} is {record.status}: only a running match can be challenged")
        if record.challenge is not None:
            raise refused(f"channel {ident.hex()[:8]} is challenged already, until {record.challenge.deadline}")
        with self.store(signer.public_key) as store:
            try:
                engine = held_engine(store, record, signer.public_key)
                proof = challenge_proof(engine, ident.hex()[:8])
            except InvalidInput as error:
                raise refused(f"{error.message}; nothing was submitted") from None
        self._submit(signer, [tx.challenge(signer, record.fixed, proof)], "the challenge")
        return {"channel": ident.hex(), "message": f"You challenged your opponent at turn {engine.latest.state.turn}."}

    def finalize(self, player: str, ident: bytes) -> Json:
        """``chips finalize``: pay out a challenge whose deadline passed unanswered (the chain's clock decides)."""
        signer = self.player_signer(player)
        record = self.record(ident, signer.public_key)
        if record.challenge is None or record.status != RUNNING:
            raise refused(f"channel {ident.hex()[:8]} has no challenge to finalize; nothing was submitted")
        self._submit(signer, [tx.finalize(signer, record.fixed)], "the finalize")
        return {"channel": ident.hex(), "message": "Finalized: the channel paid out the challenged state."}

    def record(self, ident: bytes, me: str) -> Record:
        """The channel ``ident`` as ``me`` sees it on the chain; a 502 in words when the REST API cannot answer."""
        try:
            with self.client() as client:
                return self._record(self.chain(client), ident, me)
        except CommandError as error:
            raise unavailable(error) from None

    def _record(self, chain: RestChain, ident: bytes, me: str) -> Record:
        record = chain.channel(channel_address(ident))
        if record is None or me not in record.fixed.participants:
            raise refused(f"you take part in no channel {ident.hex()[:8]}")
        return record

    def public_key(self, given: str) -> str:
        """The opponent ``given`` names: a public key, or the name of a key in the key directory (``chips``'s rule);
        a name with no path in it, so a request cannot point at a file elsewhere."""
        key = ""
        if is_compressed_public_key(given):
            key = given
        elif "/" not in given and "\\" not in given and not given.startswith("."):
            try:
                key = key_paths(self.key_dir, given)[1].read_text(encoding="ascii").strip()
            except (OSError, UnicodeDecodeError):
                key = ""
        if is_compressed_public_key(key):
            if problem := key_problem(key):
                raise refused(f"the key {key[:8]}... {problem}; nothing was submitted")
            return key
        raise refused(f"{quoted(given, None)} is neither a public key nor the name of a key in {self.key_dir}; "
                      "nothing was submitted")  # fmt: skip

    def open_refusal(self, fixed: Fixed, name: str | None = None) -> str | None:
        """Why chips-tp would refuse the open of ``fixed`` (named ``name``) as the chain stands
        (:mod:`chips_client.checks`; a name taken said as a name), or None; a 409 if the chain's floor setting is
        unreadable, a 502 if the REST API cannot answer."""
        try:
            with self.client() as client:
                chain = self.chain(client)
                existing = chain.channel(channel_address(channel_id(fixed)))
                if existing is not None and name is not None:
                    return name_taken(name, existing)
                account = chain.account(fixed.participants[0])
                return checks.open_refusal(existing, account, fixed, chain.challenge_floor())
        except InvalidInput as error:
            raise refused(f"{error.message}; nothing was submitted") from None
        except CommandError as error:
            raise unavailable(error) from None

    def player_signer(self, player: str) -> Signer:
        """``player``'s key, or a 409 saying why it cannot sign (a 400 when there is no such key)."""
        try:
            return self.signer(player)
        except InvalidInput as error:
            raise refused(error.message) from None

    def _submit(self, signer: Signer, transactions: list, what: str) -> None:
        try:
            with self.client() as client:
                self.chain(client, signer).submit_all(transactions, what)
        except Rejected as rejection:
            raise ApiError(409, REJECTED, "Rejected", rejection.message) from None
        except CommandError as error:
            raise unavailable(error) from None

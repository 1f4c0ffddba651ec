"""The worked examples of ``docs/chips-family.md``, built from the family's own codecs and rules.

Keys: Alice holds private key 1, Bob 2, the issuer 3 (anyone can check them). Alice
opens an XO channel with Bob (stake 10, deposits 100 each, an hour to answer a
challenge, nonce 1), paying her deposit in; Bob joins, paying his; Alice plays X in the centre and, Bob being silent,
challenges with that state; Bob's O in the top-left corner answers. The signatures are
deterministic (RFC 6979), so every byte below is reproducible.
"""

from chips_tp import rps_app, rules, xo_app
from chips_tp.channel import DEFAULT_MIN_DURATION, Fixed, channel_id
from chips_tp.channel_state import State, encode_state
from chips_tp.hashes import challenge_message, digest_to_sign, sign, state_message
from chips_tp.ops import Challenge, Issue, Join, Open, Respond, SignedState, Transfer
from chips_tp.payload import encode_payload
from chips_tp.state import Account, encode_account, encode_channel
from chips_tp.tournament import MATCH_PURPOSE
from chips_tp.tournament_ops import Create
from rps_tp.commitment import commitment, preimage
from xo_core import canonical
from xo_core.signing import Signer

ALICE = Signer.from_hex("00" * 31 + "01")
BOB = Signer.from_hex("00" * 31 + "02")
ISSUER = Signer.from_hex("00" * 31 + "03")
FIXED = Fixed((ALICE.public_key, BOB.public_key), "xo", 10, (100, 100), 3600, 1)
CHANNEL_ID = channel_id(FIXED)
NOW = 1_700_000_000
OPEN = Open(BOB.public_key, "xo", 10, (100, 100), 3600, 1)
JOIN = Join(CHANNEL_ID, 100)
#: An rps channel between the same two, nonce 2; Alice's salt for round 1 is 00 01 ... 1f.
RPS_FIXED = Fixed((ALICE.public_key, BOB.public_key), "rps", 10, (100, 100), 3600, 2)
RPS_ID = channel_id(RPS_FIXED)
SALT = bytes(range(32))


def rps_proposal() -> bytes:
    """Alice proposes round 1 of the rps channel, committed to rock."""
    pledge = commitment(RPS_ID.hex(), 1, ALICE.public_key, "rock", SALT)
    data = rps_app.RpsData("RoundProposed", 1, pledge, None, None, None)
    return encode_state(State(RPS_ID, 1, False, data, (100, 100)), rps_app.encode)


def turn_0_challenge(funded_state: bytes) -> Challenge:
    """Bob's challenge of the chain's own turn 0, unsigned as the chain wrote it, should Alice never move."""
    return Challenge(CHANNEL_ID, (SignedState(funded_state, (None, None)),), sign(BOB, challenge_message(funded_state)))


def turn_1() -> bytes:
    """Alice's first move: X in the centre (bit 16); she takes the stake."""
    return encode_state(State(CHANNEL_ID, 1, False, xo_app.XoData("XPlaying", 16, 0), (110, 90)), xo_app.encode)


def turn_2() -> bytes:
    """Bob's answer: O in the top-left corner (bit 256); the stake swings to him."""
    return encode_state(State(CHANNEL_ID, 2, False, xo_app.XoData("OPlaying", 16, 256), (90, 110)), xo_app.encode)


def examples() -> dict[str, bytes]:
    """Every example the specification shows, by title."""
    channel, _ = rules.open_channel(None, Account(ALICE.public_key, 1000), OPEN, ALICE.public_key, DEFAULT_MIN_DURATION)
    channel, _ = rules.join(channel, Account(BOB.public_key, 1000), JOIN, BOB.public_key)
    assert channel.state is not None
    funded_state = channel.state
    at_turn_0 = turn_0_challenge(funded_state)
    rules.challenge(channel, at_turn_0, BOB.public_key, NOW)
    alice_turn_1 = sign(ALICE, state_message(turn_1()))
    challenger = sign(ALICE, challenge_message(turn_1()))
    challenge = Challenge(CHANNEL_ID, (SignedState(turn_1(), (alice_turn_1, None)),), challenger)
    challenged = rules.challenge(channel, challenge, ALICE.public_key, NOW)
    bob_turn_2 = sign(BOB, state_message(turn_2()))
    return {
        "issue": encode_payload(Issue(ALICE.public_key, 1000)),
        "account": encode_account(Account(ALICE.public_key, 1000)),
        "transfer": encode_payload(Transfer(BOB.public_key, 25)),
        "open": encode_payload(OPEN),
        "channel id preimage": canonical.encode(
            ["chips/1.0 channel", list(FIXED.participants), "xo", 10, [100, 100], 3600, 1]
        ),
        "channel id": CHANNEL_ID,
        "join": encode_payload(JOIN),
        "state of turn 0": funded_state,
        "state of turn 1": turn_1(),
        "state message of turn 1": state_message(turn_1()),
        "hash to sign for turn 1": digest_to_sign(state_message(turn_1())),
        "alice's signature of turn 1": alice_turn_1,
        "challenge message of turn 1": challenge_message(turn_1()),
        "hash to sign for the challenge": digest_to_sign(challenge_message(turn_1())),
        "challenge": encode_payload(challenge),
        "challenge of turn 0": encode_payload(at_turn_0),
        "channel after the challenge": encode_channel(challenged),
        "state of turn 2": turn_2(),
        "respond": encode_payload(Respond(CHANNEL_ID, SignedState(turn_2(), (None, bob_turn_2)))),
        "rps commitment preimage": preimage(RPS_ID.hex(), 1, ALICE.public_key, "rock", SALT),
        "rps commitment": commitment(RPS_ID.hex(), 1, ALICE.public_key, "rock", SALT),
        "rps state of turn 1": rps_proposal(),
        "tournament create": encode_payload(TOURNAMENT),
        "tournament match nonce preimage": canonical.encode([MATCH_PURPOSE, "spring", 1, 0]),
    }


#: The tournament the specification's example creates.
TOURNAMENT = Create("spring", "xo", "swiss", 3, 10, (4, 16), 300, 180, (60, 30, 10))


#: The examples that are raw bytes (a hash, a signature), not CBOR: shown in hex only.
RAW = (
    "channel id", "hash to sign for turn 1", "alice's signature of turn 1", "hash to sign for the challenge",
    "rps commitment",
)  # fmt: skip

"""The per-key store: private, shared safely by several processes of one key, evidence kept within a bound."""

from __future__ import annotations

import contextlib
import sqlite3
import threading
import time
from pathlib import Path

import pytest

from chips_client.messages import encode_message
from chips_client.store import EVIDENCE_KEPT, SCHEMA_VERSION, ChannelTerms, NewerStore, Secret, Store, default_path
from chips_tp.channel import Fixed
from chips_tp.ops import SignedState
from xo_core import canonical

CHANNEL = bytes(range(32))
TERMS = ChannelTerms("duel", Fixed(("02" + "a" * 64, "03" + "b" * 64), "xo", 10, (50, 50), 3600, 7), 3)


def test_it_lives_beside_the_key_directory_one_file_per_key(tmp_path):
    assert default_path(tmp_path / "keys", "02ab") == tmp_path.resolve() / "chips" / "02ab.sqlite"


def test_it_is_created_private_in_wal_mode_with_synchronous_commits(tmp_path):
    with Store(tmp_path / "s.sqlite") as store:
        assert (tmp_path / "s.sqlite").stat().st_mode & 0o777 == 0o600
        assert store._db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert store._db.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL


def test_two_processes_of_one_key_see_each_others_states_and_signatures_merge(tmp_path):
    path = tmp_path / "s.sqlite"
    with Store(path) as player, Store(path) as challenger:
        player.remember_channel(CHANNEL, TERMS)
        player.save_state(CHANNEL, 5, SignedState(b"five", (b"a" * 64, None)))
        challenger.save_state(CHANNEL, 5, SignedState(b"five", (None, b"b" * 64)))
        assert challenger.channel(CHANNEL) == TERMS
        assert player.states(CHANNEL) == [(5, SignedState(b"five", (b"a" * 64, b"b" * 64)))]


def test_the_latest_states_come_oldest_first_and_secrets_are_kept_per_round(tmp_path):
    with Store(tmp_path / "s.sqlite") as store:
        for turn in range(4):
            store.save_state(CHANNEL, turn, SignedState(bytes([turn]), (None, None)))
        store.save_secret(CHANNEL, 2, Secret("rock", b"s" * 32))
        assert [turn for turn, _ in store.states(CHANNEL)] == [2, 3]
        assert store.secret(CHANNEL, 2) == Secret("rock", b"s" * 32) and store.secret(CHANNEL, 3) is None


def message(channel: bytes, turn: int) -> bytes:
    """A message whose state names ``channel`` (the rules never see it: what evidence is filed by)."""
    state = canonical.encode({"app": {}, "turn": turn, "final": False, "channel": channel, "balances": [1, 1]})
    return encode_message(SignedState(state, (b"s" * 64, None)))


def test_evidence_is_kept_newest_first_within_its_bound(tmp_path):
    with Store(tmp_path / "s.sqlite") as store:
        for n in range(EVIDENCE_KEPT + 10):
            assert store.keep_evidence(CHANNEL, message(CHANNEL, n), "not a valid move")
        kept = store.evidence(CHANNEL)
    assert len(kept) == EVIDENCE_KEPT and kept[-1][0] == message(CHANNEL, EVIDENCE_KEPT + 9)


def test_states_of_other_channels_replayed_into_a_channel_never_flush_its_evidence(tmp_path):
    """Anyone can replay genuine states of other channels; they are evidence of nothing here, and evict nothing."""
    other = bytes(32)
    with Store(tmp_path / "s.sqlite") as store:
        assert store.keep_evidence(CHANNEL, message(CHANNEL, 7), "turn 7 is not a valid move")
        assert store.keep_evidence(other, message(other, 1), "turn 1 is not a valid move")
        for n in range(3 * EVIDENCE_KEPT):
            assert not store.keep_evidence(CHANNEL, message(bytes([n % 256]) * 32, n), "a state of another channel")
            assert not store.keep_evidence(CHANNEL, message(CHANNEL, 7), "the same message again")
            assert not store.keep_evidence(CHANNEL, b"junk", "not a message")
        for n in range(2 * EVIDENCE_KEPT):
            store.keep_evidence(other, message(other, 100 + n), "flooding the other channel")
        assert store.evidence(CHANNEL) == [(message(CHANNEL, 7), "turn 7 is not a valid move")]
        assert len(store.evidence(other)) == EVIDENCE_KEPT


#: The store's schema before evidence was filed by its own channel (schema 0), as a user's old file holds it.
SCHEMA_0 = """
CREATE TABLE channels (
    id TEXT PRIMARY KEY, name TEXT NOT NULL, participant0 TEXT NOT NULL, participant1 TEXT NOT NULL,
    app TEXT NOT NULL, stake INTEGER NOT NULL, deposit0 INTEGER NOT NULL, deposit1 INTEGER NOT NULL,
    duration INTEGER NOT NULL, nonce TEXT NOT NULL, rounds INTEGER NOT NULL
);
CREATE TABLE states (
    channel TEXT NOT NULL, turn INTEGER NOT NULL, data BLOB NOT NULL, signature0 BLOB, signature1 BLOB,
    PRIMARY KEY (channel, turn)
);
CREATE TABLE secrets (
    channel TEXT NOT NULL, round INTEGER NOT NULL, throw TEXT NOT NULL, salt BLOB NOT NULL,
    PRIMARY KEY (channel, round)
);
CREATE TABLE evidence (
    seq INTEGER PRIMARY KEY AUTOINCREMENT, channel TEXT NOT NULL, received REAL NOT NULL, data BLOB NOT NULL,
    reason TEXT NOT NULL
);
"""


def test_an_old_store_opens_with_its_states_and_only_its_true_evidence(tmp_path):
    path = tmp_path / "old.sqlite"
    with contextlib.closing(sqlite3.connect(path)) as old:
        old.executescript(SCHEMA_0)
        old.execute("INSERT INTO channels VALUES (?, 'duel', ?, ?, 'xo', 10, 50, 50, 3600, '7', 3)",
                    (CHANNEL.hex(), *TERMS.fixed.participants))  # fmt: skip
        old.execute("INSERT INTO states VALUES (?, 5, ?, ?, NULL)", (CHANNEL.hex(), b"five", b"a" * 64))
        old.execute("INSERT INTO secrets VALUES (?, 2, 'rock', ?)", (CHANNEL.hex(), b"s" * 32))
        rows = [message(CHANNEL, 3), message(bytes(32), 4), message(CHANNEL, 3), b"junk", message(CHANNEL, 9)]
        for data in rows:
            old.execute("INSERT INTO evidence (channel, received, data, reason) VALUES (?, 0, ?, 'refused')",
                        (CHANNEL.hex(), data))  # fmt: skip
        old.commit()
    with Store(path) as store:
        assert store.channel(CHANNEL) == TERMS
        assert store.states(CHANNEL) == [(5, SignedState(b"five", (b"a" * 64, None)))]
        assert store.secret(CHANNEL, 2) == Secret("rock", b"s" * 32)
        assert [data for data, _ in store.evidence(CHANNEL)] == [message(CHANNEL, 3), message(CHANNEL, 9)]
        assert not store.keep_evidence(CHANNEL, message(CHANNEL, 9), "again")
        assert store.keep_evidence(CHANNEL, message(CHANNEL, 10), "new")
    with Store(path) as again:
        assert again._db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        assert len(again.evidence(CHANNEL)) == 3


def test_a_store_of_a_newer_schema_is_left_untouched(tmp_path):
    path = tmp_path / "new.sqlite"
    with contextlib.closing(sqlite3.connect(path)) as newer:
        newer.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    with pytest.raises(NewerStore, match="newer than this chips knows"):
        Store(path)


def test_what_is_saved_is_on_disk_for_a_new_connection(tmp_path: Path):
    with Store(tmp_path / "s.sqlite") as store:
        store.save_state(CHANNEL, 1, SignedState(b"one", (b"a" * 64, None)))
        with sqlite3.connect(tmp_path / "s.sqlite") as other:
            assert other.execute("SELECT data FROM states").fetchall() == [(b"one",)]


def test_threads_sharing_one_store_never_interleave_their_transactions(tmp_path):
    """A house plays many channels from one process and one store: each thread's writes and reads stay whole."""
    with Store(tmp_path / "s.sqlite") as store:
        failures: list[BaseException] = []

        def play(number: int) -> None:
            channel = bytes([number]) * 32
            try:
                store.remember_channel(channel, TERMS)
                for turn in range(40):
                    store.save_state(channel, turn, SignedState(bytes([number, turn]), (b"a" * 64, None)))
                    assert store.states(channel, 1) == [(turn, SignedState(bytes([number, turn]), (b"a" * 64, None)))]
            except BaseException as error:  # reported below, on the test's thread
                failures.append(error)

        threads = [threading.Thread(target=play, args=(n,)) for n in range(1, 9)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=60)
        assert failures == []
        assert len(store.channels()) == 8
        assert all(len(store.all_states(bytes([n]) * 32)) == 40 for n in range(1, 9))


def test_writes_that_come_while_a_commit_waits_for_the_disk_share_the_next_commit_and_all_are_durable(tmp_path):
    """A house's matches write at once: one fsync for the lot, not one each in turn."""
    path = tmp_path / "s.sqlite"
    with Store(path) as store:
        before = store.commits
        store._committing.acquire()  # a commit waits for the disk meanwhile
        writers = [threading.Thread(target=store.save_state, args=(CHANNEL, turn, SignedState(b"s%d" % turn,
                                                                                                (b"a" * 64, None))))
                   for turn in range(20)]  # fmt: skip
        for writer in writers:
            writer.start()
        ends = time.monotonic() + 10
        while len(store.all_states(CHANNEL)) < 20 and time.monotonic() < ends:  # each write is in, none returned
            time.sleep(0.001)
        assert all(writer.is_alive() for writer in writers), "no write returns before a commit holds it"
        store._committing.release()
        for writer in writers:
            writer.join(10)
        assert store.commits - before <= 2  # one for the twenty (two if the first commit took only the first write)
        with Store(path) as other:
            assert len(other.all_states(CHANNEL)) == 20


def test_a_write_that_fails_loses_only_itself_and_leaves_the_file_to_other_processes(tmp_path):
    path = tmp_path / "s.sqlite"
    with Store(path) as store, Store(path) as other:
        with pytest.raises(ValueError, match="a bad write"), store._write():
            store._db.execute("INSERT INTO states VALUES (?, 1, ?, NULL, NULL)", (CHANNEL.hex(), b"lost"))
            raise ValueError("a bad write")
        store.save_state(CHANNEL, 2, SignedState(b"kept", (b"a" * 64, None)))
        other._db.execute("PRAGMA busy_timeout = 100")  # the file is free: no waiting on the other's transaction
        other.save_state(CHANNEL, 3, SignedState(b"also", (None, b"b" * 64)))
        assert [turn for turn, _ in other.states(CHANNEL, 10)] == [2, 3]

"""Ready-made player keys: made once, never overwritten, problems reported rather than fixed by force."""

from xo_core.keyfiles import key_paths, load_signer
from xo_devnet.player_keys import ensure_player_keys


def test_first_run_makes_alice_and_bob(tmp_path):
    keys = ensure_player_keys(tmp_path)
    assert [(key.name, key.created) for key in keys] == [("alice", True), ("bob", True)]
    for key in keys:
        assert load_signer(tmp_path, key.name).public_key == key.public_key
        assert (key_paths(tmp_path, key.name)[0].stat().st_mode & 0o777) == 0o600


def test_later_runs_keep_the_existing_keys(tmp_path):
    first = ensure_player_keys(tmp_path)
    second = ensure_player_keys(tmp_path)
    assert [key.public_key for key in second] == [key.public_key for key in first]
    assert not any(key.created for key in second)


def test_an_unreadable_key_is_reported_and_left_alone(tmp_path):
    private_path, _ = key_paths(tmp_path, "alice")
    private_path.write_text("not a key\n")
    alice, bob = ensure_player_keys(tmp_path)
    assert alice.public_key is None
    assert "does not hold a private key" in alice.problem
    assert private_path.read_text() == "not a key\n"
    assert bob.created


def test_a_key_dir_that_cannot_be_written_is_reported(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("")
    keys = ensure_player_keys(blocker / "keys")
    assert all(key.public_key is None and "cannot write" in key.problem for key in keys)

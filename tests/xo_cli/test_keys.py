"""Keys as xo uses them: a private key others can read is refused, a missing one names the others, keys have names."""

import stat

import pytest

from xo_core.keyfiles import write_key_pair
from xo_core.signing import Signer


@pytest.fixture
def alice(make_player):
    return make_player("alice")


@pytest.mark.parametrize("mode", [0o644, 0o604, 0o620, 0o666, 0o607])
def test_a_private_key_others_can_use_is_refused_with_how_to_fix_it(fake, alice, run, mode):
    private = alice.key_dir / "alice.priv"
    private.chmod(mode)
    code, out, err = run("create", "g1", *alice.flags(fake.url))
    assert (code, out) == (1, "")
    assert err == (
        f"xo: error: private key {private} is open to others (mode {mode:04o}): whoever can read it can play "
        f"as 'alice', so xo will not use it; make it private with: chmod 600 {private}\n"
    )
    assert fake.requests == []


@pytest.mark.parametrize("mode", [0o600, 0o400, 0o640])
def test_a_private_key_only_its_owner_and_group_can_read_is_used(fake, alice, run, mode):
    """0640 is what 'sawtooth keygen' writes: keys made by Sawtooth's own tools keep working."""
    (alice.key_dir / "alice.priv").chmod(mode)
    assert run("create", "g1", *alice.flags(fake.url))[0] == 0


def test_the_fix_the_error_gives_works(fake, alice, run):
    private = alice.key_dir / "alice.priv"
    private.chmod(0o644)
    assert run("create", "g1", *alice.flags(fake.url))[0] == 1
    private.chmod(0o600)
    assert stat.S_IMODE(private.stat().st_mode) == 0o600
    assert run("create", "g1", *alice.flags(fake.url))[0] == 0


def test_a_missing_key_names_the_keys_that_do_exist(fake, make_player, run):
    alice = make_player("alice")
    make_player("bob")
    code, _, err = run("create", "g1", "--url", fake.url, "--key-dir", alice.key_dir, "--username", "alcie")
    assert code == 1
    assert err == (
        f"xo: error: no private key named 'alcie' in {alice.key_dir}; the keys there are: alice, bob "
        "(choose one with --username or XO_USERNAME)\n"
    )
    assert "keygen" not in err


def test_with_no_keys_at_all_a_missing_key_suggests_making_one(fake, tmp_path, run):
    code, _, err = run("create", "g1", "--url", fake.url, "--key-dir", tmp_path / "none", "--username", "carol")
    assert code == 1
    assert err == (
        f"xo: error: no private key at {tmp_path / 'none' / 'carol.priv'}, and no keys in {tmp_path / 'none'}: "
        f"make one with 'xo keygen carol --key-dir {tmp_path / 'none'}'\n"
    )


def test_environment_variables_stand_for_username_and_key_dir(fake, alice, monkeypatch, run):
    monkeypatch.setenv("XO_USERNAME", "alice")
    monkeypatch.setenv("XO_KEY_DIR", str(alice.key_dir))
    code, _, _ = run("create", "g1", "--url", fake.url)
    assert code == 0
    assert fake.submitted[0].signer == alice.public_key


def test_a_flag_wins_over_its_environment_variable(fake, make_player, monkeypatch, run):
    alice = make_player("alice")
    bob = make_player("bob")
    monkeypatch.setenv("XO_USERNAME", "alice")
    monkeypatch.setenv("XO_KEY_DIR", "/nonexistent")
    assert run("create", "g1", *bob.flags(fake.url))[0] == 0
    assert fake.submitted[0].signer == bob.public_key != alice.public_key


def test_keygen_names_the_key_after_xo_username_and_writes_to_xo_key_dir(tmp_path, monkeypatch, run):
    monkeypatch.setenv("XO_USERNAME", "erin")
    monkeypatch.setenv("XO_KEY_DIR", str(tmp_path / "keys"))
    assert run("keygen")[0] == 0
    assert (tmp_path / "keys" / "erin.priv").exists()


def test_list_and_show_name_the_keys_found_in_the_key_directory(fake, make_player, run):
    alice = make_player("alice")
    bob = make_player("bob")
    stranger = Signer.generate().public_key
    fake.put_game("g1", board="X---O----", state="P1-NEXT", p1=alice.public_key, p2=bob.public_key)
    fake.put_game("g2", board="X--------", state="P2-NEXT", p1=stranger)
    _, out, _ = run("list", "--url", fake.url, "--key-dir", alice.key_dir)
    first, second = out.splitlines()[1:]
    assert first.split() == ["g1", "alice", "bob", "X", "on", "A1,", "O", "on", "B2", "alice", "(X)", "to", "move"]
    assert second.split() == ["g2", f"{stranger[:6]}...", "X", "on", "A1", "O", "to", "move", "(open", "seat)"]
    assert alice.public_key[:6] not in out, "a key the directory names is shown by its name alone"
    _, out, _ = run("show", "g1", *bob.flags(fake.url))
    assert f"PLAYER 1 : alice ({alice.public_key[:6]}...) plays X\n" in out
    assert f"PLAYER 2 : bob ({bob.public_key[:6]}...) plays O (you)\n" in out
    assert f"STATE    : X to play: player 1, alice ({alice.public_key[:6]}...)\n" in out


def test_a_hostile_key_file_name_is_escaped_and_cut_in_the_table(fake, tmp_path, run):
    signer = Signer.generate()
    write_key_pair(tmp_path, "\x1b[31m" + "n" * 40, signer)
    fake.put_game("g1", board="X--------", state="P2-NEXT", p1=signer.public_key)
    _, out, _ = run("list", "--url", fake.url, "--key-dir", tmp_path)
    assert "\x1b" not in out
    assert "\\x1b[31mnnn…" in out

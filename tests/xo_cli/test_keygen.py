"""xo keygen: key files in sawtooth keygen's layout, private key 0600, never silently overwritten."""

import stat

import pytest

from client_core import caller
from xo_core.signing import Signer


def test_keygen_writes_a_hex_key_pair_with_a_private_file_only_the_owner_can_read(tmp_path, run):
    key_dir = tmp_path / "new" / "keys"
    code, out, err = run("keygen", "alice", "--key-dir", key_dir)
    assert (code, err) == (0, "")
    private_hex = (key_dir / "alice.priv").read_text().strip()
    public_hex = (key_dir / "alice.pub").read_text().strip()
    assert stat.S_IMODE((key_dir / "alice.priv").stat().st_mode) == 0o600
    assert Signer.from_hex(private_hex).public_key == public_hex
    assert len(public_hex) == 66
    assert out.splitlines() == [
        f"wrote {key_dir / 'alice.priv'} (private key, mode 0600)",
        f"wrote {key_dir / 'alice.pub'}",
        f"public key: {public_hex}",
    ]


def test_keygen_refuses_to_overwrite_and_keeps_the_old_key(tmp_path, run):
    assert run("keygen", "alice", "--key-dir", tmp_path)[0] == 0
    before = (tmp_path / "alice.priv").read_text()
    code, out, err = run("keygen", "alice", "--key-dir", tmp_path)
    assert (code, out) == (1, "")
    assert err == f"xo: error: {tmp_path / 'alice.priv'} already exists (use --force to overwrite)\n"
    assert (tmp_path / "alice.priv").read_text() == before


def test_keygen_force_replaces_the_key(tmp_path, run):
    run("keygen", "alice", "--key-dir", tmp_path)
    before = (tmp_path / "alice.priv").read_text()
    (tmp_path / "alice.priv").chmod(0o644)
    assert run("keygen", "alice", "--key-dir", tmp_path, "--force")[0] == 0
    assert (tmp_path / "alice.priv").read_text() != before
    assert stat.S_IMODE((tmp_path / "alice.priv").stat().st_mode) == 0o600


def test_keygen_names_the_key_after_the_os_user_by_default(tmp_path, monkeypatch, run):
    monkeypatch.setattr(caller.getpass, "getuser", lambda: "dana")
    assert run("keygen", "--key-dir", tmp_path)[0] == 0
    assert (tmp_path / "dana.priv").exists()


@pytest.mark.parametrize("name", ["../escape", "a/b", "", ".."])
def test_keygen_refuses_names_that_are_not_file_names(tmp_path, run, name):
    code, _, err = run("keygen", name, "--key-dir", tmp_path)
    assert code == 1
    assert "cannot be a key name" in err
    assert list(tmp_path.iterdir()) == []


def test_keygen_into_an_impossible_directory_is_a_clear_error(tmp_path, run):
    blocker = tmp_path / "file"
    blocker.write_text("")
    code, _, err = run("keygen", "alice", "--key-dir", blocker / "keys")
    assert code == 1
    assert err.startswith("xo: error: cannot write the key files of 'alice'")


def test_a_generated_key_plays(fake, tmp_path, run):
    run("keygen", "erin", "--key-dir", tmp_path)
    public_hex = (tmp_path / "erin.pub").read_text().strip()
    code, _, _ = run("create", "g1", "--url", fake.url, "--key-dir", tmp_path, "--username", "erin")
    assert code == 0
    assert fake.submitted[0].signer == public_hex


def test_keygen_without_a_name_takes_the_username_given_before_the_command(tmp_path, run):
    assert run("--username", "frank", "keygen", "--key-dir", tmp_path)[0] == 0
    assert (tmp_path / "frank.priv").exists()

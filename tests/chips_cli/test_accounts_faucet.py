"""``chips faucet`` on a network with no faucet (a Sawtooth REST API answers its route 404): where chips come from."""

from __future__ import annotations

from pathlib import Path

from chips_cli.main import main
from xo_core.keyfiles import write_key_pair
from xo_core.signing import Signer


def test_a_network_with_no_faucet_says_chips_come_from_its_issuers_and_how_to_ask(fake, tmp_path, capsys):
    newcomer = Signer.generate()
    write_key_pair(Path(tmp_path), "dave", newcomer)
    code = main(["faucet", "--url", fake.url, "--key-dir", str(tmp_path), "--username", "dave"])
    err = capsys.readouterr().err
    assert code == 1
    for must in ("this network has no faucet", "its chips come from its issuers", "chips.issuers",
                 f"giving your public key {newcomer.public_key}", f"'chips issue {newcomer.public_key} AMOUNT'"):
        assert must in err, err
    assert "404" not in err and "POST" not in err and "HTTP" not in err

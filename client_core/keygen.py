"""``keygen`` (``xo keygen``, ``rps keygen``): a new key pair in the files ``sawtooth keygen`` would write.

Refusing to overwrite by default matters: a private key that is overwritten is
lost, and with it every game seat it holds.
"""

from __future__ import annotations

import argparse

from client_core.caller import Who
from client_core.errors import InvalidInput
from xo_core.keyfiles import KeyFileError, write_key_pair
from xo_core.signing import Signer


def keygen(args: argparse.Namespace) -> int:
    """``xo keygen [NAME]``; prints the public key too, since that is what other players see of you.

    Without NAME the key is named as the commands that sign would look for it:
    ``--username`` (given before the command), ``$XO_USERNAME``, the OS user.
    """
    who = Who.of(args, args.key_name)
    name = who.name()
    signer = Signer.generate()
    try:
        private_path, public_path = write_key_pair(who.key_dir, name, signer, overwrite=args.force)
    except KeyFileError as error:
        raise InvalidInput(str(error)) from None
    except OSError as error:
        raise InvalidInput(f"cannot write the key files of {name!r}: {error.strerror or error}") from None
    print(f"wrote {private_path} (private key, mode 0600)")
    print(f"wrote {public_path}")
    print(f"public key: {signer.public_key}")
    return 0

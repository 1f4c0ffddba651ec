"""``xo aries connect INVITATION_URL --admin URL``: make an agent accept another agent's invitation.

A controller's job, done through ACA-Py's standard out-of-band route
(``POST /out-of-band/receive-invitation``); the connection id is printed once the
connection is active (or ``completed``), so ``xo aries play --connection`` can use it.
"""

from __future__ import annotations

import argparse
import base64
import binascii
import json
import time
import urllib.parse
from typing import Any, Final

from client_core.errors import InvalidInput, TimedOut
from xo_cli.aries_admin import AdminClient

READY_STATES: Final = frozenset(("active", "completed", "response"))
POLL: Final = 0.2
MAX_WAIT: Final = 3600.0


def decode_invitation(url: str) -> dict[str, Any]:
    """The invitation an out-of-band URL carries in its ``oob`` (or ``c_i``) parameter, base64url JSON."""
    query = urllib.parse.parse_qs(urllib.parse.urlsplit(url).query)
    encoded = (query.get("oob") or query.get("c_i") or [""])[0]
    if not encoded:
        raise InvalidInput("INVITATION_URL has no ?oob= parameter: give the URL xo aries agent printed")
    try:
        invitation = json.loads(base64.urlsafe_b64decode(encoded + "=" * (-len(encoded) % 4)))
    except (binascii.Error, ValueError) as bad:
        raise InvalidInput(f"INVITATION_URL's oob parameter is not a base64 JSON invitation: {bad}") from None
    if not isinstance(invitation, dict) or "@type" not in invitation:
        raise InvalidInput("INVITATION_URL's oob parameter is not an invitation (no @type)")
    return invitation


def connect(args: argparse.Namespace) -> int:
    """Accept the invitation and print the connection id once the connection is ready."""
    if not 0 < args.wait <= MAX_WAIT:
        raise InvalidInput(f"--wait must be more than 0 and at most {MAX_WAIT:.0f} seconds")
    client = AdminClient(args.admin, args.admin_api_key)
    record = client.post("/out-of-band/receive-invitation", decode_invitation(args.invitation))
    connection_id = record.get("connection_id") if isinstance(record, dict) else None
    if not connection_id:
        raise InvalidInput("the agent accepted the invitation but made no connection (is it an invitation to connect?)")
    deadline = time.monotonic() + args.wait
    while True:
        state = client.get(f"/connections/{connection_id}").get("state")
        if state in READY_STATES:
            print(connection_id, flush=True)
            return 0
        if time.monotonic() >= deadline:
            raise TimedOut(f"connection {connection_id} is still {state!r} after {args.wait:g} s")
        time.sleep(POLL)

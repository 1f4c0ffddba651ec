#!/bin/sh
# Health check of an xo-tp container: healthy while xo-tp is registered with its validator.
# xo-tp creates $XO_TP_READY_FILE once the validator has accepted its registration and removes it
# when it loses the validator or stops, so the file's presence is the registration itself, not
# merely a running process or an open socket. Reads one file: it costs the validator nothing.
ready=${XO_TP_READY_FILE:-/tmp/xo-tp.ready}
if [ -f "$ready" ]; then
    exit 0
fi
echo "xo-tp is not registered with a validator ($ready is absent)" >&2
exit 1

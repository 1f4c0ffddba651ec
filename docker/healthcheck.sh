#!/bin/sh
# Health check of a transaction processor container of the xo image: healthy while the processor named
# by the argument (xo-tp, rps-tp) is registered with its validator.
#
#   tp-healthcheck xo-tp      reads $XO_TP_READY_FILE  (default /tmp/xo-tp.ready)
#   tp-healthcheck rps-tp     reads $RPS_TP_READY_FILE (default /tmp/rps-tp.ready)
#
# Every *-tp command of this project creates the file named by its <NAME>_READY_FILE variable once the
# validator has accepted its registration, and removes it when it loses the validator or stops, so the
# file's presence is the registration itself, not merely a running process or an open socket. Reads one
# file: it costs the validator nothing. Exits 0 (healthy) or 1 (unhealthy, also for a bad argument:
# Docker reserves status 2).
processor=${1:-}
usage() {
    echo "usage: tp-healthcheck PROCESSOR (a *-tp command such as xo-tp or rps-tp), not '$processor'" >&2
    exit 1
}
case "$processor" in
    [a-z]*-tp) ;;
    *) usage ;;
esac
case "$processor" in
    *[!a-z0-9-]* | *--*) usage ;;
esac
# xo-tp -> XO_TP_READY_FILE, rps-tp -> RPS_TP_READY_FILE: the variable the command itself reads.
variable=$(printf '%s_READY_FILE' "$processor" | tr 'a-z-' 'A-Z_')
ready=$(printenv "$variable" || true)
ready=${ready:-/tmp/$processor.ready}
if [ -f "$ready" ]; then
    exit 0
fi
echo "$processor is not registered with a validator ($ready is absent)" >&2
exit 1

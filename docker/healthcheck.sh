#!/bin/sh
# Health check of an xo-tp container: healthy while the container holds an established TCP connection.
# In a container that runs only xo-tp, that connection is its link to the validator: xo-tp registers as
# soon as the link is up, exits when the validator refuses it, and loses the link when the validator
# goes away. Reads the kernel's socket tables, so it costs the validator nothing.
#
# usage: healthcheck.sh [SOCKET_TABLE...]    (default: /proc/net/tcp /proc/net/tcp6)
[ "$#" -gt 0 ] || set -- /proc/net/tcp /proc/net/tcp6
for table in "$@"; do
    # Column 4 is the socket state; 01 is ESTABLISHED. The first line is a header.
    if [ -r "$table" ] && awk 'NR > 1 && $4 == "01" { up = 1 } END { exit !up }' "$table"; then
        exit 0
    fi
done
echo "xo-tp is not connected to a validator" >&2
exit 1

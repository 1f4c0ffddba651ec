#!/bin/sh
# Entry point of the xo image. It runs whatever command it is given (`xo-tp ...`, `xo ...`, `pytest`),
# and treats bare flags as flags for xo-tp, the image's main job:
#   docker run xo-sawtooth:local -C tcp://validator:4004 -vv   ==   ... xo-tp -C tcp://validator:4004 -vv
set -e
case "${1:-}" in
    -*) set -- xo-tp "$@" ;;
esac
exec "$@"

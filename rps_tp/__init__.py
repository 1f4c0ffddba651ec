"""The rps (rock-paper-scissors) transaction family, as ``docs/rps-family.md`` specifies it.

Shaped like every family of this project: pure rules (:mod:`rps_tp.game`,
:mod:`rps_tp.rules`, :mod:`rps_tp.commitment`), codecs for the payload and the state
(:mod:`rps_tp.payload`, :mod:`rps_tp.state`, over :mod:`xo_core.canonical`), the clock
read from BlockInfo (:mod:`tp_runtime.clock`), identity and addressing
(:mod:`rps_tp.family`) and the Sawtooth handler (:mod:`rps_tp.handler`).
"""

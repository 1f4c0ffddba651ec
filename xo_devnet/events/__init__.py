"""Events of committed blocks for subscribers, as a Sawtooth 1.x validator delivers them.

``blocks`` builds a block's events from its receipts, ``filters`` matches them against
subscriptions, ``hub`` fans blocks out to subscribers (catch-up from storage through
``history``, then live, each with a bounded queue), and ``zmq_clients`` speaks the
client-event protocol on the component endpoint. The REST API's websocket
(``xo_devnet.rest.subscriptions``) subscribes to the same hub in-process.
"""

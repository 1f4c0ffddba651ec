"""What the processor, the client and the ledger share: wire messages, signing, XO addressing.

Kept import-light on purpose: ``xo show`` starts a fresh interpreter every time, so
nothing here pulls in protobuf or the crypto library until a caller needs it.
"""

__version__ = "1.0.0"

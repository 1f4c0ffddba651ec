"""What everything shares, with no game knowledge: wire messages, signing, batches, key files, addressing, safe text,
canonical CBOR.

Kept import-light on purpose: ``xo show`` starts a fresh interpreter every time, so
nothing here pulls in protobuf or the crypto library until a caller needs it.
"""

__version__ = "1.0.0"

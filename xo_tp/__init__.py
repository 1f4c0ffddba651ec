"""The XO transaction processor.

The XO rules, a Sawtooth transaction handler for them, and a processor runtime that runs any handler
beside a validator.
"""

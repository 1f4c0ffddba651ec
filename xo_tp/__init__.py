"""The XO transaction processor: XO rules, a Sawtooth handler, and a processor runtime that runs it beside a validator."""

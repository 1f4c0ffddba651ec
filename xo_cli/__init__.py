"""The xo command: keys, signed XO batches, and the Sawtooth REST API."""

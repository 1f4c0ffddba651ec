"""CBOR diagnostic notation (RFC 8949 section 8) for the values rps uses, to check the specification's examples.

Covers exactly what canonical rps data holds: maps, arrays, text, byte strings,
unsigned integers, booleans and null.
"""

import json


def diagnostic(value: object, indent: str = "", step: str = "  ") -> str:
    """``value`` in diagnostic notation; containers of containers are spread over lines."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, bytes):
        return f"h'{value.hex()}'"
    inner = indent + step
    if isinstance(value, dict):
        items = [f"{diagnostic(key)}: {diagnostic(item, inner, step)}" for key, item in value.items()]
        opening, closing = "{", "}"
        nested = any(isinstance(item, dict | list) and item for item in value.values())
    elif isinstance(value, list):
        items = [diagnostic(item, inner, step) for item in value]
        opening, closing = "[", "]"
        nested = any(isinstance(item, dict | list) and item for item in value)
    else:
        raise TypeError(f"no diagnostic notation for {type(value).__name__}")
    if not nested:
        return opening + ", ".join(items) + closing
    return opening + "\n" + ",\n".join(inner + item for item in items) + "\n" + indent + closing


def squeezed(text: str) -> str:
    """``text`` without the whitespace outside string literals, so that layouts compare equal."""
    kept: list[str] = []
    in_string = False
    escaped = False
    for char in text:
        if in_string:
            kept.append(char)
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
            kept.append(char)
        elif not char.isspace():
            kept.append(char)
    return "".join(kept)

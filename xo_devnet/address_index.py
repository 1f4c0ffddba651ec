"""What transactions declare (addresses and address prefixes), filed with keys, found again by overlap.

A transaction's ``inputs`` and ``outputs`` are full 70-character addresses or prefixes
of them (a namespace such as ``5b7349``, BlockInfo's ``00b10c00``, even ``""`` for all
of state). Two declarations *overlap* when one is a prefix of the other: then a
transaction that declared one may touch what the other covers. The scheduler asks
which running batches' declarations overlap a new batch's; this index answers without
comparing against every declaration:

- a declaration's exact match is one dictionary lookup;
- the prefixes above it (those it starts with) are found by slicing it at each
  length a stored prefix has: at most 70 slices, however many prefixes are stored;
- the declarations below a prefix (those starting with it) come from a table of
  declarations by their first ``n`` characters, built the first time a prefix of
  length ``n`` is asked about and kept up to date from then on. In practice a handful
  of lengths is ever asked about (6 for a namespace, 8 for BlockInfo's blocks).

A full address covers itself alone, so it overlaps only the same address and the
prefixes of it. Declarations longer than an address cover nothing at all; they are
filed like full addresses, which still has them meet the prefixes they start with:
conservative, never wrong.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Hashable, Iterable, Iterator
from typing import Generic, TypeVar

from xo_devnet.merkle import ADDRESS_LENGTH

K = TypeVar("K", bound=Hashable)


class AddressIndex(Generic[K]):
    """Keys filed under declarations; ``overlapping(declaration)`` yields the keys of every overlapping one."""

    def __init__(self) -> None:
        self._keys: dict[str, list[K]] = {}
        self._prefix_lengths: Counter[int] = Counter()
        """How many stored declarations are prefixes (shorter than an address) of each length."""
        self._below: dict[int, dict[str, set[str]]] = {}
        """For each length asked about: stored declarations longer than it, by their first that many characters."""

    def __bool__(self) -> bool:
        return bool(self._keys)

    def add(self, declaration: str, key: K) -> None:
        """File ``key`` under ``declaration`` (beside any keys already there)."""
        keys = self._keys.get(declaration)
        if keys is None:
            keys = self._keys[declaration] = []
            self._index(declaration)
        keys.append(key)

    def replace(self, declaration: str, key: K) -> None:
        """File ``key`` as the only key under ``declaration``."""
        if declaration not in self._keys:
            self._index(declaration)
        self._keys[declaration] = [key]

    def discard(self, declaration: str) -> None:
        """Forget every key filed under ``declaration`` itself (those under overlapping declarations stay)."""
        if self._keys.pop(declaration, None) is not None:
            self._unindex(declaration)

    def overlapping(self, declaration: str) -> Iterator[K]:
        """The keys filed under ``declaration``, under every prefix of it, and under everything it is a prefix of.

        A key filed under several overlapping declarations may be yielded more than once.
        """
        keys = self._keys
        yield from keys.get(declaration, ())
        size = len(declaration)
        for length in self._prefix_lengths:
            if length < size:
                yield from keys.get(declaration[:length], ())
        if size < ADDRESS_LENGTH:
            for below in self._below_index(size).get(declaration, ()):
                yield from keys[below]

    def overlaps(self, declaration: str) -> bool:
        """Whether any stored declaration overlaps ``declaration``."""
        return any(True for _ in self.overlapping(declaration))

    def forget(self, keys: Iterable[K]) -> None:
        """Remove ``keys`` wherever they are filed; declarations left without keys are dropped."""
        gone = set(keys)
        if not gone:
            return
        for declaration in list(self._keys):
            kept = [key for key in self._keys[declaration] if key not in gone]
            if kept:
                self._keys[declaration] = kept
            else:
                self.discard(declaration)

    def _index(self, declaration: str) -> None:
        size = len(declaration)
        if size < ADDRESS_LENGTH:
            self._prefix_lengths[size] += 1
        for length, table in self._below.items():
            if size > length:
                table.setdefault(declaration[:length], set()).add(declaration)

    def _unindex(self, declaration: str) -> None:
        size = len(declaration)
        if size < ADDRESS_LENGTH:
            self._prefix_lengths[size] -= 1
            if not self._prefix_lengths[size]:
                del self._prefix_lengths[size]
        for length, table in self._below.items():
            if size > length:
                head = declaration[:length]
                below = table[head]
                below.discard(declaration)
                if not below:
                    del table[head]

    def _below_index(self, length: int) -> dict[str, set[str]]:
        table = self._below.get(length)
        if table is None:
            table = self._below[length] = {}
            for declaration in self._keys:
                if len(declaration) > length:
                    table.setdefault(declaration[:length], set()).add(declaration)
        return table

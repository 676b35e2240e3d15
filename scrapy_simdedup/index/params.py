"""What an index was created with; stored in it, checked on every open."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, fields

from scrapy_simdedup.index.tables import BITS

FORMAT_VERSION = 1


@dataclass(frozen=True)
class IndexParams:
    """Fingerprints are comparable only when all of these agree.

    ``seed`` is the store's own 32-bit feature-hash seed, drawn at random on creation, so
    nobody outside can craft a page that collides with a target's fingerprint.
    """

    max_distance: int
    blocks: int
    tokenizer: str
    seed: int
    bits: int = BITS
    format: int = FORMAT_VERSION

    def to_json(self) -> bytes:
        return json.dumps(asdict(self), sort_keys=True).encode()

    @classmethod
    def from_json(cls, raw: bytes) -> IndexParams:
        data = json.loads(raw)
        names = {f.name for f in fields(cls)}
        if not isinstance(data, dict) or set(data) != names:
            raise ValueError(
                f"stored parameters have fields {sorted(data)!r}, expected {sorted(names)!r}"
            )
        return cls(**data)

    def differences(
        self, asked: IndexParams, *, check_seed: bool
    ) -> dict[str, tuple[object, object]]:
        """name -> (stored, asked) for every parameter that differs."""
        stored_values, asked_values = asdict(self), asdict(asked)
        if not check_seed:
            del stored_values["seed"], asked_values["seed"]
        return {
            name: (value, asked_values[name])
            for name, value in stored_values.items()
            if asked_values[name] != value
        }

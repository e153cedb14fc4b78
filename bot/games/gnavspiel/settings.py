"""Gnavspiel's own table settings (RULES.md G2, G9, G10; C14, C20, C24).

Gnavspiel is a rules choice of the Gnav table: `rules=norsk` or `rules=tradisjonell` typed at
a Gnavspiel table switches back to Gnav (with its own settings as they were).
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from bot.service.settings import words

Variant = Literal["stand", "jack_taboo"]


class GnavspielSettings(BaseModel):
    """`chips` 2-20 (C14), `deals` 0-100 (0: until one is left, C20), `variants` (C24)."""

    model_config = ConfigDict(extra="ignore", frozen=True)

    rules: Literal["gnavspiel"] = Field(
        default="gnavspiel",
        json_schema_extra=words(
            "rules", "profile", games={"norsk": "gnav", "tradisjonell": "gnav"}
        ),
    )
    chips: int = Field(default=5, ge=2, le=20, json_schema_extra=words("chips"))
    deals: int = Field(default=0, ge=0, le=100, json_schema_extra=words("deals"))
    variants: frozenset[Variant] = Field(
        default=frozenset(), json_schema_extra=words("variants", "variant")
    )

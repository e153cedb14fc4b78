"""Karnaval's own table settings: none yet (a game is always four quarters, K3)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class KarnavalSettings(BaseModel):
    """No settings of its own: seats 3-6 (K2), four quarters (K3)."""

    model_config = ConfigDict(extra="ignore", frozen=True)

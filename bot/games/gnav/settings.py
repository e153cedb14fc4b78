"""Gnav's own table settings: the rules profile and the lives each player starts with.

`rules=gnavspiel` is a choice of the same word that switches the table to the Gnavspiel game
(registered on its own: its settings, statistics and records are its own).
"""

from __future__ import annotations

from typing import Literal

from pydantic import AliasChoices, BaseModel, ConfigDict, Field

from bot.service.settings import words


class GnavSettings(BaseModel):
    """`rules` (norsk, tradisjonell; gnavspiel switches game) and `lives` 1-10."""

    model_config = ConfigDict(extra="ignore", frozen=True)

    rules: Literal["norsk", "tradisjonell"] = Field(
        default="norsk",
        validation_alias=AliasChoices("rules", "profile"),  # stored before games had settings
        json_schema_extra=words("rules", "profile", games={"gnavspiel": "gnavspiel"}),
    )
    lives: int = Field(default=3, ge=1, le=10, json_schema_extra=words("lives", "life"))

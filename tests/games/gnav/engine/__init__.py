"""Tests of the rules engine (bot/games/gnav/engine): vectors, record errors, invariants, rules."""

"""Tests of the rules engine (bot/engine): vectors, record errors, invariants, rules."""

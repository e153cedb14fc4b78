"""Tests of the Gnavspiel engine, records and strategy (RULES.md section 3)."""

"""Karnaval, the Russian trick-taking game with bids and pairs (../shared/KARNAVAL.md)."""

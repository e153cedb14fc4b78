"""Gnavspiel (RULES.md section 3, seed 004): the German 1963 card-game relative of Gnav."""

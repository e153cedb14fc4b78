"""Gnav: the game's rules adapter for the service and the strategy of its bot seats."""

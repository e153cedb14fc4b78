"""The engines' shared pure parts: standard library only, like every game's engine (a game's
engine imports only itself and this package; this package imports no game)."""

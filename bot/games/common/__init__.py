"""What the games share, so that no game imports another: the pure engine parts (`engine`:
rule and record errors, hardened JSON, the events of a game of one hidden thing a seat) and the
web page's replay of a record of rounds (`web`)."""

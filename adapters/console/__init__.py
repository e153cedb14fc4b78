"""The terminal adapter: a local Gnav table against bot seats (`gnav-bot play`)."""

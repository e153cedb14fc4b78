"""The games the table service hosts (Gnav, Gnavspiel, Karnaval), one sub-package each, and
the registry (`registry.py`) that names them to the composition root."""

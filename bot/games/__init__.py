"""The games the table service can host, one sub-package each (Gnav now, Karnaval later)."""

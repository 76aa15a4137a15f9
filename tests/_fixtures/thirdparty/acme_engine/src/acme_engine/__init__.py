"""Acme: a third-party bench-gui engine kit (for the deployment tests), in the shape of a
built-in one: ``agent/`` (shipped to driver hosts), ``connection.py``, ``kit.py``."""

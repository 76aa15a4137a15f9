"""Acme: a third-party bench-gui engine plugin (for the deployment tests)."""

"""Acme's agent side: the folder the deployment ships to a driver host."""

"""A helper module the Acme engine plugin imports (its own distribution)."""


def engine_label(name: str) -> str:
    return f"{name} (by acme-helpers)"

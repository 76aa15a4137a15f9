"""The Study page: a study file's systems, what is measured, a run with its progress."""

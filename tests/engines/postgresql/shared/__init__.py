"""Tests of the PostgreSQL kit's shared side (its agent and desktop both run it)."""

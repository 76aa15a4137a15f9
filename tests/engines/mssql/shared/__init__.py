"""Tests of the SQL Server kit's shared side (its agent and desktop both run it)."""

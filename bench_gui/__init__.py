"""bench_gui: a desktop test bench for OLTP storage and database performance."""

__version__ = "0.1.0"

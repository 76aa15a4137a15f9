"""The PostgreSQL engine kit: its tuner (ALTER SYSTEM, pg_ctl), its service, its tab."""

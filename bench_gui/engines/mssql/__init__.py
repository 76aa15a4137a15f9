"""The SQL Server engine kit: its sp_configure tuner, its service, its tab."""

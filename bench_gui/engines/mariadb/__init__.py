"""The MariaDB/MySQL engine kit: its InnoDB tuner and option file, its service, its tab."""

"""bench_gui.remote: how the desktop side reaches the hosts that run the work.

- ``transport``: the seam (:class:`Transport` starts an agent, :class:`AgentRun` streams it);
  ``local_transport``: the agent as a subprocess of this machine.
- ``connection``: one SSH connection: ``connect``, commands with a redacted command log, SFTP;
  ``local_shell``: this machine with the same interface; ``host_access``: files and commands
  as root on either.
- ``ssh_transport``: :class:`SSHTransport` (detached agent, stop/kill, lock, re-attach), with
  ``ssh_agent_run`` (the spool follower that survives a dropped link), ``run_listing`` (a
  host's run directories) and ``target_check`` (``test_target``); re-exports ``connect`` and
  the errors.
- ``deploy``, ``agent_wheels``, ``agent_plugins``: the agent, its wheels and third-party
  engines shipped to a driver host's cache over SFTP.
- ``targets``: SSH targets (host or ``~/.ssh/config`` alias, login, sudo) in ``targets.toml``;
  ``secrets``: their passwords and passphrases, in the OS keyring only; ``hostkeys``:
  host-key checks against ``~/.ssh/known_hosts`` and the app's own file; ``errors``: the SSH
  error classes, each message written for the user.
- ``demo``: the embedded PostgreSQL demo target.
- ``inventory``: CPU, memory, kernel, distribution, block devices and filesystems of a host;
  ``clock``: a host's clock offset (runs on several driver hosts).
- ``storage``: preparing a host's block devices (discovery, guards, apply, records);
  ``db_placement``: where a database's files live.
- ``db_tuner`` with ``pg_tuner`` (and ``pg_settings``, ``pg_control``, ``pg_targets``,
  ``machine_facts``), ``mariadb_tuner``, ``mssql_tuner``: database settings, diffed, applied
  and rolled back; ``osknobs``: kernel knobs.

Nothing here imports Qt: the CLI, the tests and the GUI's workers all use the same code.
"""

"""bench_gui.remote: how the desktop side reaches the hosts that run the work.

- ``transport``: the seam (:class:`Transport` starts an agent, :class:`AgentRun` streams it).
- ``local``: the agent as a subprocess of this machine.
- ``demo``: the embedded PostgreSQL demo target.
- ``targets``: SSH targets (host or ``~/.ssh/config`` alias, login, sudo) in ``targets.toml``.
- ``secrets``: passwords and passphrases of targets, in the OS keyring only.
- ``hostkeys``: host-key checks against ``~/.ssh/known_hosts`` and the app's own file.
- ``errors``: the SSH error classes, each message written for the user.
- ``session``: one SSH connection: ``connect``, commands with a redacted command log, SFTP.
- ``deploy``: the agent and its dependencies shipped to a driver host's cache over SFTP.
- ``ssh``: :class:`SSHTransport` (detached agent, spool follower that survives a dropped link,
  stop/kill, lock, re-attach) and ``test_target``; re-exports ``connect`` and the errors.
- ``inventory``: CPU, memory, kernel, distribution, block devices and filesystems of a host.

Nothing here imports Qt: the CLI, the tests and the GUI's workers all use the same code.
"""

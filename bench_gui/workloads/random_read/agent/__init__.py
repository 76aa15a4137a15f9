"""The random-read workload (seed 004) driven by fio, on the target host like TPROC-C.

1 KiB aligned random reads with a scrambled Zipfian distribution over a prefix of a file
written once at the largest dataset size, through mmap by 8 jobs (all configurable), one point
per dataset size (RAM multiples or absolute sizes), warm-up then measured window, the page
cache dropped between points, fio optionally held to a memory limit by a cgroup. Modules:
``status`` (fio's JSON stream: objects, readings, per-second deltas), ``runner`` (one fio
process), ``cgroup`` (the memory limit), ``dataset`` (the data file, dropping caches),
``study`` (what a run will do, checked first), ``sweep`` (the run and its events); byte sizes,
shared with the plan reader, are :mod:`bench_gui.wire.fio_sizes`.

Events of a random-read run (besides ``log``, ``error``, ``done`` as for TPROC-C):

- ``hello``: ``engine`` "fio", ``workload`` "random_read", ``fio_version`` ("fio-3.33"),
  ``agent_version``, ``pid``, ``config``, ``os_knobs``, ``lock``, and ``random_read``
  {``file``, ``file_bytes``, ``device``, ``points`` [{``bytes``, ``label``, ``multiple``}],
  ``memory`` {``bytes``, ``source`` ("machine", "agent_cgroup", "cgroup_limit"), ``label``
  ("machine: 24 GiB", "cgroup limit: 256 MiB"), ``machine_bytes``, ``cgroup_version``},
  ``caches_dropped``, ``block_size``, ``jobs``, ``ioengine``, ``direct``, ``zipf_theta``,
  ``warmup_s``, ``measure_s``, ``raw_iops_s``, ``raw_method``, ``fio_command``}.
- ``progress``: task ``idle`` (power baseline), task ``prepare`` (``done``/``total`` bytes,
  ``rate`` MB/s), task ``raw_iops`` (``done``/``total`` s, ``rate`` IOPS of the second; the
  last one ``stage`` "done" with ``raw_iops`` {``iops``, ``mbs``, ``seconds``,
  ``latency_ms``, ``block_size``, ``direct``, ``method``}).
- ``step`` start: ``step``, ``vus`` (fio jobs), ``rampup_s`` (warm-up), ``duration_s``
  (measured), ``workload``, ``dataset_bytes``, ``dataset_label``, ``ram_ratio``.
- ``sample`` (one per fio status, about a second): ``step``, ``vus`` (jobs), ``phase``
  ("warmup" or "measure"), ``elapsed``, ``remaining``, ``workload``, ``ops_s``, ``mbs`` (10^6
  bytes/s), ``counts`` {"read": n}, ``errors`` {}, ``latency_ms`` {"read": {avg, p50, p95,
  p99, p999, max}} (measured window only: fio records no latency in its warm-up),
  ``major_faults_s``, ``dataset_bytes``, ``memory_used_bytes`` (the cgroup's, with a limit),
  and ``host``/``power`` as for TPROC-C.
- ``step`` end ``summary``: ``step``, ``vus``, ``workload``, ``dataset_bytes``,
  ``dataset_label``, ``ram_multiple`` (null for an absolute size), ``ram_ratio`` (dataset /
  RAM), ``memory_bytes``, ``memory_source``, ``caches_dropped``, ``rampup_s``, ``duration_s``,
  ``ops_s`` and ``mbs`` (fio's own, over its measured window), ``window_s``, ``counts``
  {"read": n}, ``errors``, ``latency_ms`` {"read": {...}}, ``major_faults``,
  ``major_faults_s``, ``fio_cpu`` {usr, sys}, ``raw_iops``, ``multiplier`` (ops_s /
  raw_iops), ``memory_peak_bytes`` (with a limit), ``data_cache_bytes`` (the data file's bytes
  in the page cache as the point ended: past the cache, the RAM the data really had; null
  without util-linux ``fincore``), ``warmup_taken_s``, ``warm`` (true when judged steady,
  false at the cap, null when stopped), ``warm_cache_bytes`` (the data's resident bytes when
  judged warm; null when not judged so or unreadable), ``complete``, ``problems``; and the window's
  host metrics and power (``window_t0``, ``window_t1``, ``host``, ``power_w``...).
- ``summary``: ``steps``, ``status``, ``workload``, ``raw_iops`` (the record above or null).
"""

"""The random-read workload kit (seed 004): its entry in :mod:`.kit`, its model, views, report
and plan form one module each."""

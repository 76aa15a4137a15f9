"""The TPROC-C workload kit: its entry in :mod:`.kit`, its views one module each."""

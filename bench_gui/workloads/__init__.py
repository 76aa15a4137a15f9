"""Workload kits: one folder per workload (:mod:`.tproc_c`, :mod:`.random_read`) behind the
contract and registry of :mod:`.base`."""

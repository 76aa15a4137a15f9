"""Engine kits: one folder per database engine (:mod:`.postgresql`, :mod:`.mariadb`,
:mod:`.mssql`) behind the contract and registry of :mod:`.base`."""

"""The Targets page: SSH hosts the app works on, their test and their inventory.

- :mod:`.page`: :class:`TargetsPage`, which puts the parts together, saves and removes;
- :mod:`.target_list`: the saved targets; :mod:`.form`: one target's fields;
- :mod:`.connection_test` and :mod:`.inventory_view`: what a test and an inventory found;
- :mod:`.remote_work`: the test and the inventory in the background, with the host-key flow.
"""

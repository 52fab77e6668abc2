"""The schedules of a ladder: the fixed plans (schedule: a round robin, a gauntlet), the pure
functions of the kinds that decide as they go (pairing, knockout, swiss; status: what they
show), their sources over the store (sources; continuous: new versions picked up while the
ladder runs) and the registry the runner opens them through (registry)."""

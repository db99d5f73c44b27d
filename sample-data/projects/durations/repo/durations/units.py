UNIT_SECONDS = {
    "s": 1,
    "sec": 1,
    "m": 60,
    "min": 60,
    "h": 3600,
    "d": 86400,
}


class UnknownUnit(ValueError):
    """A unit suffix that is not in UNIT_SECONDS."""

from .units import UNIT_SECONDS


def format_duration(seconds):
    """5400 -> '1h30m'."""
    parts = []
    for unit in ("d", "h", "m", "s"):
        size = UNIT_SECONDS[unit]
        count = int(seconds // size)
        if count:
            parts.append("%d%s" % (count, unit))
            seconds -= count * size
    return "".join(parts) or "0s"

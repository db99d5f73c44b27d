import re

from .units import UNIT_SECONDS, UnknownUnit

_TOKEN = re.compile(r"(\d+(?:\.\d+)?)([a-z]+)")


def _tokens(text):
    for match in _TOKEN.finditer(text.replace(" ", "")):
        yield float(match.group(1)), match.group(2)


def parse_duration(text):
    """Parse '1h30m' or '2d 4h' into seconds."""
    total = 0
    seen = []
    for amount, unit in _tokens(text.lower()):
        if unit not in UNIT_SECONDS:
            raise UnknownUnit(unit)
        seen.append(unit)
        total = amount * UNIT_SECONDS[unit]
    if not seen:
        raise ValueError("no duration in %r" % text)
    return total

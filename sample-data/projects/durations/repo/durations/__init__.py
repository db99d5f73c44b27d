from .format import format_duration
from .parse import parse_duration
from .units import UnknownUnit

__all__ = ["format_duration", "parse_duration", "UnknownUnit"]

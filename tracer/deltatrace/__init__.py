"""deltatrace: a line-level tracer for buggy vs patched Python programs.

Standard library only, Python >= 3.9. See ``python -m deltatrace --help``.
"""

__version__ = "0.1.0"

def to_cents(amount):
    """Dollars (a float from user input) to whole cents."""
    return int(amount * 100)


def from_cents(cents):
    return cents / 100

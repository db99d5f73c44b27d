import pytest

from durations import UnknownUnit, parse_duration


def test_single_unit():
    assert parse_duration("90s") == 90


def test_compound_duration():
    assert parse_duration("1h30m") == 5400


def test_unknown_unit():
    with pytest.raises(UnknownUnit):
        parse_duration("3 fortnights")

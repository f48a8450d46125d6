"""Distances from a breadth-first order, as the liveness search takes them (``liveness._distances``).

The expected distances are computed here by the plain definition (a node's
distance is its predecessor's plus one, settled level by level) on random
directed graphs, from scipy's breadth-first order and from an order that is
not breadth-first (where the function must not rely on the queue's shape).
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.sparse.csgraph import breadth_first_order

from modelcheck.search.liveness import _distances


def _by_definition(order: np.ndarray, pred: np.ndarray, size: int) -> np.ndarray:
    dist = np.full(size, -1, dtype=np.int64)
    dist[order[0]] = 0
    changed = True
    while changed:
        changed = False
        for v in order[1:]:
            if dist[v] < 0 and dist[pred[v]] >= 0:
                dist[v] = dist[pred[v]] + 1
                changed = True
    return dist


@pytest.mark.parametrize("seed", range(6))
def test_distances_from_a_breadth_first_order(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 400))
    m = int(rng.integers(1, 4 * n))
    src, dst = rng.integers(0, n, m), rng.integers(0, n, m)
    graph = sp.csr_matrix((np.ones(m, np.int8), (src, dst)), shape=(n, n))
    start = int(rng.integers(0, n))
    order, pred = breadth_first_order(graph, start, directed=True, return_predecessors=True)
    assert np.array_equal(_distances(order, pred, n), _by_definition(order, pred, n))


def test_distances_from_an_order_that_is_not_breadth_first():
    """A chain 0 -> 1 -> 2 -> 3 listed as 0, 1, 3, 2 with 3's predecessor 2: later than 3 in the order."""
    order = np.array([0, 1, 3, 2])
    pred = np.array([-9999, 0, 1, 2])
    assert _distances(order, pred, 4).tolist() == [0, 1, 2, 3]

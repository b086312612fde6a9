"""A gradient on a real Dask cluster (issue 37): two worker processes, each
limited to 400 MB, and a logistic-regression loss over 8,000,000 x 8
float64 values (512 MB, more than either worker may hold) made chunk by
chunk on the workers. ``zpy.gradient`` of the plain NumPy loss builds a
lazy Dask array without computing anything; computed by the cluster, it
equals the same gradient written by hand in Dask."""
import numpy as np
import pytest

import zygote_py as zpy
from tests.arrays import programs

dask = pytest.importorskip("dask")
da = pytest.importorskip("dask.array")
distributed = pytest.importorskip("dask.distributed")

ROWS, COLUMNS, CHUNK = 8_000_000, 8, 500_000
"""512 MB in 16 chunks of 32 MB."""


@pytest.fixture(scope="module")
def client():
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, memory_limit="400MB",
                                  dashboard_address=None) as cluster, distributed.Client(cluster) as c:
        yield c


def data(seed=37):
    """Features and labels of a noisy linear model, made on the workers
    chunk by chunk (nothing here is an array in this process)."""
    state = da.random.RandomState(seed)
    X = state.normal(size=(ROWS, COLUMNS), chunks=(CHUNK, COLUMNS))
    y = (X @ np.linspace(-1, 1, COLUMNS) + state.normal(size=ROWS, chunks=CHUNK) > 0).astype(float)
    return X, y


def by_hand(w, X, y):
    """The logistic loss's gradient in ``w``, written in Dask: ``X.T (p - y) / n``."""
    p = 1 / (1 + da.exp(-(X @ w)))
    return X.T @ (p - y) / X.shape[0]


def test_gradient_on_a_cluster_of_data_larger_than_a_worker(client):
    X, y = data()
    assert X.nbytes > 400e6  # (more than a worker may hold)
    w = np.linspace(0.5, -0.5, COLUMNS)

    def forbid(dsk, keys, **kwargs):
        raise AssertionError("a Dask array was computed")

    with dask.config.set(scheduler=forbid):  # (in force over the client's scheduler)
        gw, gX, gy = zpy.gradient(programs.logistic, w, X, y)
    assert isinstance(gw, da.Array) and gw.shape == (COLUMNS,)
    assert isinstance(gX, da.Array) and gX.shape == X.shape and gX.chunks == X.chunks
    got, expected = dask.compute(gw, by_hand(w, X, y))
    np.testing.assert_allclose(got, expected, rtol=1e-10, atol=1e-14)
    assert np.abs(expected).max() > 1e-3  # (not a zero gradient that anything would match)
    memory = client.run(lambda dask_worker: dask_worker.monitor.get_process_memory())
    assert all(m < 400e6 for m in memory.values()), memory

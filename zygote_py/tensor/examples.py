"""The paper's example programs, as functions of their sizes returning
``(expression, input shapes)``.

- :func:`convolution` — 1-D convolution (§2.1), ``x`` the signal, ``w``
  the kernel;
- :func:`deconvolution_loss` — its sum-of-squares loss against ``b``;
- :func:`trace` — the introduction's ``trace`` (adjoint: an Iverson
  diagonal, §2.2);
- :func:`matvec`, :func:`matmul` — matrix-vector and matrix-matrix
  products;
- :func:`skip_one` — "sum skipping one entry" (§2.2);
- :func:`first_col_times_first_row` — the introduction's
  ``A[:, 0] ⊗ A[0, :]``, whose naive gradient is asymptotically slower;
- :func:`tanh_layer` — a non-linear example (black-box calls);
- :func:`diagonal` — ``trace``'s adjoint written as a program.

Beyond the paper, for the tests: :func:`prefix_sum`, :func:`strided_reads`,
:func:`convolution_2d`, :func:`pairwise_tanh`.
"""
from __future__ import annotations

from zygote_py.tensor.syntax import Expr, Index, Shape, eq, exp, gen, iverson, let, lt, ne, tanh, tsum, var

Example = tuple[Expr, dict[str, Shape]]


def convolution(n: int, k: int) -> Example:
    i, j = Index("i", n), Index("k", k)
    x, w = var("x"), var("w")
    return gen(i, tsum(j, w[j] * x[i + j])), {"x": (n + k - 1,), "w": (k,)}


def deconvolution_loss(n: int, k: int) -> Example:
    i, j = Index("i", n), Index("k", k)
    x, w, b, r = var("x"), var("w"), var("b"), var("r")
    residual = gen(i, tsum(j, w[j] * x[i + j]) - b[i])
    return let("r", residual, tsum(i, r[i] * r[i])), {"x": (n + k - 1,), "w": (k,), "b": (n,)}


def trace(n: int) -> Example:
    i = Index("i", n)
    return tsum(i, var("A")[i, i]), {"A": (n, n)}


def matvec(n: int, m: int) -> Example:
    i, j = Index("i", n), Index("j", m)
    return gen(i, tsum(j, var("A")[i, j] * var("x")[j])), {"A": (n, m), "x": (m,)}


def matmul(n: int, m: int, p: int) -> Example:
    i, k, j = Index("i", n), Index("k", m), Index("j", p)
    return gen((i, j), tsum(k, var("A")[i, k] * var("B")[k, j])), {"A": (n, m), "B": (m, p)}


def skip_one(n: int, skipped: int) -> Example:
    i = Index("i", n)
    return tsum(i, iverson(ne(i, skipped)) * var("x")[i]), {"x": (n,)}


def first_col_times_first_row(n: int) -> Example:
    i, j = Index("i", n), Index("j", n)
    a = var("A")
    return gen((i, j), a[i, 0] * a[0, j]), {"A": (n, n)}


def tanh_layer(n: int, m: int) -> Example:
    i, j = Index("i", n), Index("j", m)
    return gen(i, tanh(tsum(j, var("A")[i, j] * var("x")[j]))), {"A": (n, m), "x": (m,)}


def diagonal(n: int) -> Example:
    """``gen i j. [i == j] * x[i]`` (the adjoint of trace, as a program)."""
    i, j = Index("i", n), Index("j", n)
    return gen((i, j), iverson(eq(i, j)) * var("x")[i]), {"x": (n,)}


# Beyond the paper: shapes of indexing the passes must also handle.


def prefix_sum(n: int) -> Example:
    """``gen i. sum j. [j < i] * x[j]``: a triangular predicate."""
    i, j = Index("i", n), Index("j", n)
    return gen(i, tsum(j, iverson(lt(j, i)) * var("x")[j])), {"x": (n,)}


def strided_reads(n: int) -> Example:
    """Reads at ``2a``, ``2a + 1`` and ``a + 1``: non-unit coefficients."""
    a = Index("a", n)
    x = var("x")
    return gen(a, x[2 * a] * x[2 * a + 1] + exp(x[a + 1])), {"x": (2 * n + 1,)}


def convolution_2d(n: int, k: int) -> Example:
    a, b, p, q = Index("a", n), Index("b", n), Index("p", k), Index("q", k)
    img, ker = var("I"), var("K")
    return gen((a, b), tsum((p, q), ker[p, q] * img[a + p, b + q])), {"I": (n + k - 1, n + k - 1), "K": (k, k)}


def pairwise_tanh(n: int) -> Example:
    """``gen i j. [i != j] * tanh(x[i] - x[j])``: a bracket guarding a call."""
    i, j = Index("i", n), Index("j", n)
    x = var("x")
    return gen((i, j), iverson(ne(i, j)) * tanh(x[i] - x[j])), {"x": (n,)}

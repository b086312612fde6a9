# Gradients of ../../../examples/gaussian_process.py, written by zygote_py 0.1.0.
# generated — regenerate with zpy emit: zpy emit ../../../examples/gaussian_process.py -o gaussian_process_grad.py --skip-failing
#
# Source definitions (sha256 of their text, first 16 hex digits):
#   kernel                   cc3f1877bcc60559
#   log_marginal_likelihood  7b22f3d7337b9179
#   predict                  04e79b5e61240280
#
# NAME_forward(*args) returns (y, pullback) and pullback(dy) the gradients
# (it may be called again); NAME_gradient(*args) returns the gradients;
# a method Class.name gives Class_name_forward(self, ...) and
# Class_name_gradient(self, ...).
# Parameters annotated int, bool, str or bytes, or with such a default,
# are not differentiated; float means a real number, np.ndarray a real
# array, and no annotation what the function's use of the parameter
# says (each function's kinds are listed above it, and checked when it
# runs); a dataclass whose fields are annotated so (or a method's self
# of one) gets a types.SimpleNamespace of its fields' gradients (the
# attributes of zpy.gradient's Tangent); a dict[str, float],
# dict[str, np.ndarray] or TypedDict so, a dict of its items' gradients
# (None for an item not read).
#
# Not differentiable:
#   main: main is a main function
#
# Not emitted (zpy emit --skip-failing):
#   data (line 48): its gradient would call zygote_py.runtime.J when it runs (``f(*args, **kwargs)`` and its pullback, for a callee known only at run time), and a gradient module runs without zygote_py (annotate the parameters (float, np.ndarray, int) so that the kind of every value is known, or differentiate it with zpy.gradient)

import math
import numbers as numbers_1
import numpy as np
import operator
import scipy
import types
from scipy.stats import _multivariate


# zygote_py.writer.standalone.real_numbers
def real_numbers(**values):
    """Raise ``TypeError`` unless each value is a real number, the kind
    that a parameter annotated ``float``, or not annotated, was emitted
    for (the gradient of an array there would be wrong)."""
    for name, value in values.items():
        if not isinstance(value, numbers_1.Real):
            raise TypeError(f'{name} is a {type(value).__name__}, but this gradient was emitted for a real number (a parameter annotated float, or not annotated): annotate it (np.ndarray) and run zpy emit again')


# zygote_py.writer.standalone.real_arrays
def real_arrays(**values):
    """Raise ``TypeError`` unless each value is an array, the kind that a
    parameter annotated ``np.ndarray`` was emitted for: NumPy's, or another
    library's that NumPy's functions dispatch to (Dask's, CuPy's)."""
    for name, value in values.items():
        if not isinstance(value, np.ndarray) and (not any((getattr(type(value), p, None) is not None for p in ('__array_function__', '__array_ufunc__', '__array_namespace__')))):
            raise TypeError(f'{name} is a {type(value).__name__}, but this gradient was emitted for an array (a parameter annotated np.ndarray): pass np.asarray of it')


# zygote_py.writer.standalone.real_parameters
def real_parameters(numbers, arrays):
    """``real_numbers(**numbers)`` and ``real_arrays(**arrays)``: the
    parameters of both kinds checked in one line."""
    real_numbers(**numbers)
    real_arrays(**arrays)


# zygote_py.writer.standalone.add_in_layers
def add_in_layers(g, key, dy):
    """``g``, an array of a library without ``np.add.at`` (Dask's), with
    ``dy`` added at ``key``, an index with integer arrays whose positions
    may repeat: the flat positions ``key`` picks (read off NumPy's
    ``arange`` of ``g``'s shape) are added by assignment, in layers of
    distinct positions: the first occurrence of each, then the second..."""
    shape = np.shape(g)
    picked = np.arange(math.prod(shape)).reshape(shape)[key]
    positions = np.reshape(picked, -1)
    values = np.reshape(np.broadcast_to(dy, np.shape(picked)), (-1,))
    flat = np.reshape(g, (-1,))
    left = np.arange(positions.size)
    while left.size:
        _, firsts = np.unique(positions[left], return_index=True)
        layer = left[firsts]
        flat[positions[layer]] = flat[positions[layer]] + values[layer]
        left = np.delete(left, firsts)
    return np.reshape(flat, shape)


# zygote_py.runtime.scatter
def scatter(x, key, dy):
    """The gradient of ``x`` for a gradient ``dy`` of ``x[key]``: zeros of
    ``x``'s shape with ``dy`` added at ``key`` (repeated indices add up);
    zeros of another library's array where ``dy`` or ``x`` is one (that
    library has no ``np.add.at``: ``dy`` is assigned, or added in layers
    for integer arrays, see :func:`add_in_layers`)."""
    if dy is None:
        return None
    dtype = getattr(x, 'dtype', None)
    dtype = dtype if dtype is not None and dtype.kind in 'fc' else np.dtype(float)
    dy = np.real(dy) if dtype.kind != 'c' else dy
    lazy = [v for v in (dy, x) if hasattr(type(v), '__array_function__') and (not isinstance(v, (np.ndarray, np.generic)))]
    if lazy:
        g = np.zeros_like(lazy[0], dtype=dtype, shape=np.shape(x))
        if any((isinstance(k, list) or (np.ndim(k) and getattr(k, 'dtype', None) != bool) for k in (key if isinstance(key, tuple) else (key,)))):
            return add_in_layers(g, key, dy)
        g[key] = dy
        return g
    g = np.zeros(np.shape(x), dtype)
    np.add.at(g, key, dy)
    return g


# zygote_py.runtime.key_gradient
def key_gradient(obj, key, dy):
    """The gradient of the dict ``obj`` for a gradient ``dy`` of its item
    ``key``: a dict with its keys, ``None`` for the others (a read the
    compiler knows to be one: see ``analysis.items_kind``)."""
    return {k: dy if k == key else None for k in obj}


# zygote_py.runtime.accum
def accum(a, b):
    """The sum of two gradients of the same value, ``None`` being zero;
    tuples, lists, dicts and the namespaces of :func:`field_gradient` add
    item by item."""
    if a is None:
        return b
    if b is None:
        return a
    if isinstance(a, types.SimpleNamespace):
        return types.SimpleNamespace(**{k: accum(v, getattr(b, k)) for k, v in vars(a).items()})
    if isinstance(a, (tuple, list)):
        items = [accum(u, v) for u, v in zip(a, b)]
        return items if isinstance(a, list) else tuple(items)
    if isinstance(a, dict):
        total = dict(a)
        for key, value in b.items():
            total[key] = accum(total.get(key), value)
        return total
    return a + b


# zygote_py.runtime.unbroadcast
def unbroadcast(dy, x):
    """``dy`` summed down to the shape of ``x``, an operand that NumPy
    broadcast to the shape of ``dy``, with ``x``'s float dtype (a Python
    number ``x`` gets a Python number)."""
    if dy is None:
        return None
    shape = np.shape(x)
    dshape = np.shape(dy)
    if dshape != shape:
        extra = len(dshape) - len(shape)
        if extra >= 0:
            axes = tuple(range(extra)) + tuple((i + extra for i, n in enumerate(shape) if n == 1 and dshape[i + extra] != 1))
            if axes:
                dy = np.sum(dy, axis=axes, keepdims=True)
        if extra > 0:
            dy = np.reshape(dy, shape)
        elif np.shape(dy) != shape:
            dy = np.broadcast_to(dy, shape)
    if isinstance(x, np.generic) or hasattr(type(x), '__array_function__'):
        if x.dtype.kind in 'fc' and np.result_type(dy) != x.dtype:
            if np.iscomplexobj(dy) and x.dtype.kind != 'c':
                dy = np.real(dy)
            dy = (dy if hasattr(type(dy), '__array_function__') else np.asarray(dy)).astype(x.dtype)
        return dy[()] if isinstance(x, np.generic) and isinstance(dy, np.ndarray) else dy
    if isinstance(dy, (np.ndarray, np.generic)) and isinstance(x, (int, float)):
        dy = dy.item()
    return dy.real if isinstance(dy, complex) and (not isinstance(x, complex)) else dy


# zygote_py.runtime.spread
def spread(dy, a):
    """``dy`` broadcast to the shape of the array ``a``, with its dtype, as
    a new array of ``a``'s library (the gradient of ``a`` for a sum of it)."""
    zero = np.zeros_like(a)
    return (zero + dy).astype(zero.dtype, copy=False)


# zygote_py.runtime.user_gradient
def user_gradient(x, g):
    """The gradient ``g`` of the argument ``x`` as ``zpy.gradient`` returns
    it: an array of zeros for an array that this run's path did not
    reach."""
    if isinstance(x, np.ndarray) and isinstance(g, (int, float)) and (g == 0):
        return np.zeros_like(x)
    return g


# zygote_py.runtime.seed
def seed_1(y):
    """The cotangent 1 for the real scalar output ``y``, of ``y``'s type
    (of its library for an array: NumPy's, Dask's, CuPy's)."""
    if type(y) is float:
        return 1.0
    if hasattr(type(y), '__array_function__') and y.ndim == 0 and (y.dtype.kind in 'fiu'):
        return np.ones_like(y) if y.dtype.kind == 'f' else 1
    if isinstance(y, np.floating):
        return y.dtype.type(1)
    if isinstance(y, (int, np.integer)) and (not isinstance(y, bool)):
        return 1
    raise TypeError(f'a gradient needs a real scalar output, not {type(y).__name__} {np.shape(y)}')


# zygote_py.rules.scipy_stats.mvn_dim
def mvn_dim(mean, cov):
    """The dimension SciPy reads off ``mean`` and ``cov``."""
    if mean is not None:
        return int(np.size(mean))
    return 1 if np.ndim(cov) < 2 else int(np.shape(cov)[0])


# zygote_py.rules.scipy_stats.mvn_range
def mvn_range(cov, allow_singular):
    """Orthonormal bases (columns) of the range of the covariance matrix
    ``cov`` and of its complement (the directions off the support), as
    SciPy's ``_PSD`` finds them (eigenvalues above its tolerance ``eps``),
    and ``1000 eps``, its tolerance off the support; ``(None, None, 0)``
    where ``cov`` has full rank. SciPy's errors: ``ValueError`` for a
    matrix that is not positive semidefinite, ``LinAlgError`` for a
    singular one unless ``allow_singular``."""
    s, u = scipy.linalg.eigh(cov, lower=True)
    eps = _multivariate._eigvalsh_to_eps(s)
    if np.min(s) < -eps:
        raise ValueError('The input matrix must be symmetric positive semidefinite.')
    if np.all(s > eps):
        return (None, None, 0.0)
    if not allow_singular:
        raise np.linalg.LinAlgError('When `allow_singular is False`, the input matrix must be symmetric positive definite.')
    return (u[:, s > eps], u[:, s <= eps], 1000.0 * eps)


# zygote_py.writer.standalone.is_foreign
def is_foreign(x):
    """Whether ``x`` is an array of another library than NumPy (Dask's,
    CuPy's): it implements one of NumPy's dispatch protocols, and is
    neither an ``np.ndarray`` nor a NumPy scalar."""
    cls = type(x)
    if issubclass(cls, (np.ndarray, np.generic, type)):
        return False
    return any((getattr(cls, p, None) is not None for p in ('__array_function__', '__array_ufunc__', '__array_namespace__')))


# zygote_py.writer.standalone.is_array
def is_array(x):
    """Whether ``x`` is an array: NumPy's (or a subclass), or another
    library's."""
    return isinstance(x, np.ndarray) or is_foreign(x)


# zygote_py.writer.standalone.plain
def plain(x):
    """Whether ``x`` is a number or an array, whose operations NumPy
    defines (not an object defining them in Python, as ``np.matrix``
    does)."""
    return type(x) in (bool, int, float, complex, np.ndarray) or isinstance(x, np.generic) or is_foreign(x)


# zygote_py.writer.standalone.by_rule
def by_rule(f, rule, *args):
    """``f(*args)`` and its pullback, by ``f``'s derivative rule ``rule``
    (both known when the module was emitted, the kinds of the arguments
    not): the pullback gives ``None`` for ``f``, then one gradient per
    argument, and no gradients for no cotangent (``None``, or the number 0
    for an array). Numbers, arrays and Python's containers only: an object
    whose class defines the operation in Python, and lists or tuples that
    ``+`` or ``*`` join or repeat, have other gradients (``zpy.gradient``
    computes them)."""
    for a in args:
        if not (plain(a) or type(a) in (str, slice, tuple, list, dict) or a is None or (a is ...)):
            raise TypeError(f"{getattr(f, '__name__', f)} of a {type(a).__name__}: this gradient module was emitted for numbers and arrays; differentiate it with zpy.gradient")
    if f in (operator.add, operator.mul, operator.iadd, operator.imul) and any((type(a) in (tuple, list) for a in args)):
        raise TypeError(f'{f.__name__} of a list or tuple: this gradient module was emitted for numbers and arrays; differentiate it with zpy.gradient')
    y, back = rule(*args)
    array = is_array(y)

    def pullback(dy):
        if dy is None or (array and isinstance(dy, (int, float, np.number)) and (dy == 0)):
            return (None,) * (len(args) + 1)
        return (None, *back(dy)[:len(args)])
    return (y, pullback)


# zygote_py.rules.operators.add_any
def add_any(a, b):

    def back(dy):
        return (unbroadcast(dy, a), unbroadcast(dy, b))
    return (a + b, back)


# zygote_py.ir.ops._count_error
def _count_error(got, count):
    if got > count:
        return ValueError(f'too many values to unpack (expected {count})')
    return ValueError(f'not enough values to unpack (expected {count}, got {got})')


# zygote_py.ir.ops.unpack
def unpack(value, count):
    """``a, b = value``: exactly ``count`` items, with Python's errors."""
    items = tuple(value)
    if len(items) != count:
        raise _count_error(len(items), count)
    return items


# zygote_py.rules.numpy_linalg.real_matrices
def real_matrices(dy, x1, x2, least=2):
    """Whether ``x1 @ x2`` multiplies two arrays of one real dtype, ``dy``'s
    too, with ``least`` to 2 dimensions each: for two matrices its
    gradients are just ``dy @ x2.T`` and ``x1.T @ dy``."""
    return type(x1) is np.ndarray and type(x2) is np.ndarray and (least <= x1.ndim <= 2) and (least <= x2.ndim <= 2) and (x1.dtype is x2.dtype) and (x1.dtype.kind == 'f') and (getattr(dy, 'dtype', None) is x1.dtype)


# zygote_py.rules.numpy_linalg.fit
def fit(g, x):
    """``g`` as the gradient of ``x``: summed down to ``x``'s shape where
    ``x`` was broadcast, real when ``x`` is real, of ``x``'s float dtype (a
    Python number for a number, an array for a list)."""
    if isinstance(x, (list, tuple)):
        x = np.asarray(x)
    if np.iscomplexobj(g) and (not np.iscomplexobj(x)):
        g = np.real(g)
    return unbroadcast(g, x)


# zygote_py.rules.numpy_linalg.sum_to
def sum_to(g, shape):
    """``g`` summed over the axes along which an array of ``shape`` was
    broadcast to ``g``'s shape."""
    extra = g.ndim - len(shape)
    axes = tuple(range(extra)) + tuple((extra + i for i, n in enumerate(shape) if n == 1 and g.shape[extra + i] != 1))
    if axes:
        g = g.sum(axis=axes, keepdims=True)
    return g.reshape(shape)


# zygote_py.rules.numpy_linalg.conj
def conj(x):
    """The complex conjugate, and ``x`` itself when it is real (no copy)."""
    return np.conj(x) if np.iscomplexobj(x) else x


# zygote_py.rules.numpy_linalg.mH
def mH(x):
    """The conjugate transposes of a stack of matrices."""
    return conj(np.swapaxes(x, -1, -2))


# zygote_py.rules.numpy_linalg.matmul_grad
def matmul_grad(dy, x1, x2, wrt):
    """The gradient of ``np.matmul(x1, x2)`` with respect to ``x1``
    (``wrt == 0``) or ``x2`` (``wrt == 1``): a 1-d ``x1`` is promoted to a
    row, a 1-d ``x2`` to a column, and batch dimensions are summed where the
    operand was broadcast."""
    if real_matrices(dy, x1, x2, 1) and (x1.ndim == 1 or x2.ndim == 1):
        if x1.ndim == 1 and x2.ndim == 1:
            return dy * (x2 if wrt == 0 else x1)
        if wrt == 0:
            return dy[:, None] * x2 if x1.ndim == 2 else x2 @ dy
        return x1[:, None] * dy if x2.ndim == 2 else dy @ x1
    a, b, g = [v if hasattr(type(v), '__array_function__') else np.asarray(v) for v in (x1, x2, dy)]
    if a.ndim == 1 and b.ndim == 1:
        return fit(g * conj(b), x1) if wrt == 0 else fit(g * conj(a), x2)
    a2 = a[None, :] if a.ndim == 1 else a
    b2 = b[:, None] if b.ndim == 1 else b
    if a.ndim == 1:
        g = np.expand_dims(g, -2)
    if b.ndim == 1:
        g = g[..., None]
    if wrt == 0:
        return fit(sum_to(g @ mH(b2), a2.shape).reshape(a.shape), x1)
    if b2.ndim == 2 and a2.ndim > 2:
        gb = mH(a2.reshape(-1, a2.shape[-1])) @ g.reshape(-1, g.shape[-1])
    else:
        gb = sum_to(mH(a2) @ g, b2.shape)
    return fit(gb.reshape(b.shape), x2)


# zygote_py.rules.numpy_linalg.matmul
def matmul(x1, x2):
    """The rule of ``np.matmul``, ``np.linalg.matmul`` and ``a @ b``
    (``operator.matmul``), computed as ``x1 @ x2`` for all three."""

    def back(dy):
        if real_matrices(dy, x1, x2):
            return (dy @ x2.T, x1.T @ dy)
        return (matmul_grad(dy, x1, x2, 0), matmul_grad(dy, x1, x2, 1))
    return (x1 @ x2, back)


# zygote_py.rules.operators.mul_any
def mul_any(a, b):

    def back(dy):
        return (unbroadcast(dy * np.conjugate(b), a), unbroadcast(dy * np.conjugate(a), b))
    return (a * b, back)


# zygote_py.rules.scipy_stats.mvn_outside
def mvn_outside(dev, null, tol):
    """Where the deviation ``dev`` from the mean leaves the support: its
    component along ``null`` (the complement of the covariance's range)
    has a norm of ``tol`` or more (SciPy's test)."""
    return np.linalg.norm(dev @ null, axis=-1) >= tol


# zygote_py.runtime.call_pullback
def call_pullback(back, dy):
    """``back(dy)``: ``back`` is a pullback of :func:`by_rule`, which gives
    no gradients for no cotangent (``None``)."""
    return back(dy)


# zygote_py.runtime.is_number_zero
def is_number_zero(dy):
    """Whether ``dy``, an array's gradient, is the number 0 that the
    adjoint starts it from on the paths that give it none (or a multiple
    of it): a rule that reshapes the gradient cannot take it, and it
    gives no gradients."""
    return isinstance(dy, (int, float, np.number)) and dy == 0


# zygote_py.runtime.arrays.asarray
def asarray(x):
    """``np.asarray(x)`` for a number or a sequence; an array, of NumPy or
    of another library, as it is (``np.asarray`` would compute a Dask
    array into one process)."""
    return x if is_array(x) else np.asarray(x)


# zygote_py.rules.numpy_decompositions.solve_grads
def solve_grads(dy, a, b, y):
    """The gradients of ``x = np.linalg.solve(a, b)``: ``db = a^-H dx`` and
    ``da = -db x^H``. A 1-d ``b`` is one vector."""
    if np.ndim(b) == 1:
        db = np.linalg.solve(mH(a), asarray(dy)[..., None])
        da = -db * conj(y)[..., None, :]
        return (fit(sum_to(da, np.shape(a)), a), fit(sum_to(db[..., 0], np.shape(b)), b))
    db = np.linalg.solve(mH(a), dy)
    da = -db @ mH(y)
    return (fit(sum_to(da, np.shape(a)), a), fit(sum_to(db, np.shape(b)), b))


# zygote_py.rules.numpy_linalg.diagonal_places
def diagonal_places(n, m, offset, k):
    """``(rows, cols)``: 0/1 matrices of shapes ``(n, k)`` and ``(m, k)``
    putting item ``i`` of an ``offset`` diagonal's ``k`` values at row
    ``i + max(-offset, 0)`` and column ``i + max(offset, 0)`` of an ``n x m``
    matrix."""
    return (np.eye(n, k, -max(-offset, 0)), np.eye(m, k, -max(offset, 0)))


# zygote_py.rules.numpy_linalg.diagonal_scatter
def diagonal_scatter(a, offset, dy):
    """Zeros of the 2-d ``a``'s shape (its float dtype) with ``dy`` (a
    number, or one value per item) added along its ``offset`` diagonal."""
    n, m = np.shape(a)
    i = np.arange(max(0, min(n + min(offset, 0), m - max(offset, 0))))
    g = np.zeros((n, m), a.dtype if a.dtype.kind in 'fc' else float)
    g[i + max(-offset, 0), i + max(offset, 0)] = dy
    return g


# zygote_py.rules.numpy_linalg.diagonal_grad
def diagonal_grad(dy, a, offset, axis1, axis2):
    """The gradient of ``np.diagonal(a, offset, axis1, axis2)``: zeros, with
    ``dy`` written onto that diagonal."""
    if np.ndim(a) == 2 and np.ndim(dy) == 1 and (not np.iscomplexobj(dy)) and ({axis1, axis2} in ({0, 1}, {-2, -1})):
        if axis1 % 2 == 1:
            offset = -offset
        return diagonal_scatter(a, offset, dy)
    dy = asarray(dy)
    shape = np.shape(a)
    rows, cols = diagonal_places(shape[axis1], shape[axis2], offset, dy.shape[-1])
    plane = np.einsum('...k,rk,ck->...rc', dy, rows, cols)
    return fit(np.moveaxis(plane, (-2, -1), (axis1 % len(shape), axis2 % len(shape))), a)


# zygote_py.rules.numpy_linalg.diagonal_view
def diagonal_view(x):
    """A writable view of the diagonals of a stack of square matrices."""
    return np.einsum('...ii->...i', x)


# zygote_py.rules.numpy_linalg.diagonal_matrix
def diagonal_matrix(d):
    """The stack of diagonal matrices with the diagonals ``d`` (the last
    axis): what the pullbacks add to a matrix instead of writing into its
    diagonal, so that they can be differentiated again."""
    return d[..., None, :] * np.eye(np.shape(d)[-1], dtype=np.real(d).dtype, like=d if is_foreign(d) else None)


# zygote_py.rules.numpy_linalg.mT
def mT(x):
    """The transposes of a stack of matrices (the last two axes)."""
    return np.swapaxes(x, -1, -2)


# zygote_py.rules.numpy_decompositions.to_triangle
def to_triangle(g, lower, conjugate=True):
    """The transpose of :func:`from_triangle`: for the gradient ``g`` of
    the matrix read, the gradient of the entries of ``a`` read. The strict
    triangle read gets ``g + g^H`` (``g + g^T``), the diagonal ``g``'s
    (its real part), the other triangle zeros."""
    h = g + (mH(g) if conjugate else mT(g))
    t = np.tril(h, -1) if lower else np.triu(h, 1)
    d = diagonal_view(g)
    return t + diagonal_matrix(np.real(d) if conjugate else d)


# zygote_py.rules.numpy_decompositions.cholesky_grad
def cholesky_grad(dy, a, y, upper):
    """The gradient of ``np.linalg.cholesky`` (after Murray 2016), on
    the triangle read (the lower one, the upper one for ``upper``):
    ``a = L L^H`` gives ``L^-1 da L^-H = X + X^H`` with
    ``X = L^-1 dL`` lower triangular, so ``dL = L Phi(L^-1 da L^-H)``, where
    ``Phi`` takes the lower triangle and halves the diagonal, and the
    gradient for a cotangent ``Lbar`` is ``L^-H Phi(L^H Lbar) L^-1`` for the
    Hermitian matrix read (:func:`to_triangle` then takes it to ``a``)."""
    L = mH(y) if upper else y
    p = np.tril(mH(L) @ (mH(dy) if upper else dy))
    p = p - 0.5 * diagonal_matrix(diagonal_view(p))
    x = np.linalg.solve(mH(L), p)
    return fit(to_triangle(mH(np.linalg.solve(mH(L), mH(x))), not upper), a)


# zygote_py.rules.numpy_shapes.like
def like(g, x):
    """``g``, a gradient shaped like ``x``, given ``x``'s kind: an ndarray of
    ``x``'s float dtype, a NumPy scalar of its type, a Python float, or the
    same nesting of tuples and lists (real for a real ``x``, ``None`` for a
    boolean). An object whose class makes its array in Python
    (``__array__``) is refused: which field each element came from is not
    known."""
    if isinstance(x, np.ndarray):
        if x.dtype.kind not in 'fc' or (getattr(g, 'dtype', None) == x.dtype and (not isinstance(g, np.generic))):
            return g
        g = np.asarray(g)
        g = g.real if g.dtype.kind == 'c' and x.dtype.kind != 'c' else g
        return g if g.dtype == x.dtype else g.astype(x.dtype)
    if isinstance(x, (bool, np.bool_)):
        return None
    if isinstance(x, (tuple, list)):
        g = np.asarray(g)
        if g.ndim == 0 and len(x):
            g = np.broadcast_to(g, (len(x),) + np.shape(np.asarray(x[0])))
        items = [like(g[i], v) for i, v in enumerate(x)]
        return tuple(items) if isinstance(x, tuple) else items
    if isinstance(x, np.generic):
        return x.dtype.type(g if x.dtype.kind == 'c' else np.real(g)) if x.dtype.kind in 'fc' else np.real(g)
    if isinstance(x, complex):
        return complex(g)
    if isinstance(x, (int, float)):
        return float(np.real(g))
    if isinstance(getattr(type(x), '__array__', None), types.FunctionType):
        raise TypeError(f'no gradient for the array NumPy makes of a {type(x).__name__} through its __array__')
    return g


# zygote_py.rules.numpy_linalg.diag_grad
def diag_grad(dy, v, k):
    """The gradient of ``np.diag(v, k)``: the ``k``-th diagonal of ``dy``
    for a 1-d ``v``; ``dy`` on the ``k``-th diagonal of zeros for a 2-d
    ``v``."""
    if np.ndim(v) == 1:
        return fit(np.diagonal(dy, k).copy(), v)
    return diagonal_grad(dy, v, k, 0, 1)


# zygote_py.ir.ops.build_tuple
def build_tuple(*items):
    """``(a, b, *c)``."""
    return items


# zygote_py.rules.operators.build_tuple
def build_tuple_1(*items):

    def back(dy):
        return tuple(dy)
    return (build_tuple(*items), back)


# zygote_py.rules.numpy_elementwise.first_share
def first_share(dy, x1, x2, y):
    """The part of ``dy`` that goes to ``x1`` in ``y = maximum(x1, x2)``
    (or minimum, fmax, fmin): all of it where ``x1`` was picked, half where
    the two tie, none elsewhere."""
    tie = np.equal(x1, x2)
    if is_foreign(tie) or tie.any():
        return dy * (np.equal(x1, y) - 0.5 * tie)
    return dy * np.equal(x1, y)


# kernel (../../../examples/gaussian_process.py, line 20): params: a dict of real numbers (its items read by key); xs: a real array; ys: a real array
def kernel_forward(params, xs, ys):
    real_parameters(numbers=dict(params_log_length=params['log_length'], params_log_signal=params['log_signal']), arrays=dict(xs=xs, ys=ys))
    t = np.exp(params['log_length'])
    t_1 = np.exp(params['log_signal'])
    t_2 = (slice(None, None, None), None, slice(None, None, None))
    t_4 = xs[t_2]
    t_3 = (None, slice(None, None, None), slice(None, None, None))
    t_5 = ys[t_3]
    t_6 = t_4 - t_5
    t_7 = t_6 ** 2
    distances = t_7.sum(axis=-1)
    t_8 = t_1 ** 2
    t_10 = -0.5 * distances
    t_9 = t ** 2
    t_11 = t_10 / t_9
    t_12 = np.exp(t_11)

    def kernel_pullback(dy):
        t_13 = unbroadcast(dy * t_8, t_12) * t_12
        ddistances = unbroadcast(t_13 / t_9, t_10) * -0.5
        t_14 = spread(np.expand_dims(ddistances, -1), t_7) * (2.0 * t_6)
        dys = scatter(ys, t_3, -unbroadcast(t_14, t_5))
        dxs = scatter(xs, t_2, unbroadcast(t_14, t_4))
        dlog_signal = unbroadcast(dy * t_12, t_8) * (2.0 * t_1) * t_1
        dparams = key_gradient(params, 'log_signal', dlog_signal)
        dlog_length = unbroadcast(-t_13 * (t_11 / t_9), t_9) * (2.0 * t) * t
        dparams = accum(dparams, key_gradient(params, 'log_length', dlog_length))
        return (dparams, user_gradient(xs, dxs), user_gradient(ys, dys))
    return (t_8 * t_12, kernel_pullback)


def kernel_gradient(params, xs, ys):
    real_parameters(numbers=dict(params_log_length=params['log_length'], params_log_signal=params['log_signal']), arrays=dict(xs=xs, ys=ys))
    t = np.exp(params['log_length'])
    t_1 = np.exp(params['log_signal'])
    t_2 = (slice(None, None, None), None, slice(None, None, None))
    t_4 = xs[t_2]
    t_3 = (None, slice(None, None, None), slice(None, None, None))
    t_5 = ys[t_3]
    t_6 = t_4 - t_5
    distances = (t_6 ** 2).sum(axis=-1)
    t_8 = t_1 ** 2
    t_10 = -0.5 * distances
    t_9 = t ** 2
    t_11 = t_10 / t_9
    t_12 = np.exp(t_11)
    dy = seed_1(t_8 * t_12)
    t_14 = unbroadcast(dy * t_8, t_12) * t_12
    ddistances = unbroadcast(t_14 / t_9, t_10) * -0.5
    t_15 = 2.0 * t_6 * np.expand_dims(ddistances, -1)
    dys = scatter(ys, t_3, -unbroadcast(t_15, t_5))
    dxs = scatter(xs, t_2, unbroadcast(t_15, t_4))
    dlog_signal = unbroadcast(dy * t_12, t_8) * (2.0 * t_1) * t_1
    dparams = key_gradient(params, 'log_signal', dlog_signal)
    dlog_length = unbroadcast(-t_14 * (t_11 / t_9), t_9) * (2.0 * t) * t
    dparams = accum(dparams, key_gradient(params, 'log_length', dlog_length))
    return (dparams, user_gradient(xs, dxs), user_gradient(ys, dys))


# log_marginal_likelihood (../../../examples/gaussian_process.py, line 27): params: a dict of real numbers (its items read by key); xs: a real array; ys: a real array
def log_marginal_likelihood_forward(params, xs, ys):
    real_parameters(numbers=dict(params_log_length=params['log_length'], params_log_signal=params['log_signal'], params_log_noise=params['log_noise'], params_mean=params['mean']), arrays=dict(xs=xs, ys=ys))
    n = xs.shape[0]
    t = np.exp(params['log_length'])
    t_1 = np.exp(params['log_signal'])
    t_2 = (slice(None, None, None), None, slice(None, None, None))
    t_4 = xs[t_2]
    t_3 = (None, slice(None, None, None), slice(None, None, None))
    t_5 = xs[t_3]
    t_6 = t_4 - t_5
    t_7 = t_6 ** 2
    distances = t_7.sum(axis=-1)
    t_8 = t_1 ** 2
    t_10 = -0.5 * distances
    t_9 = t ** 2
    t_11 = t_10 / t_9
    t_12 = np.exp(t_11)
    t_16 = t_8 * t_12
    t_13 = np.exp(params['log_noise'])
    t_14 = t_13 + 1e-06
    t_15 = np.eye(n)
    t_17 = t_14 * t_15
    cov = t_16 + t_17
    mean = params['mean']
    mean_1 = np.full(n, mean)
    d = mvn_dim(mean_1, cov)
    if mean_1 is None:
        mean_2 = np.zeros(d)
        path = 0
    else:
        mean_2 = np.reshape(mean_1, (d,))
        path = 1
    cov_1 = np.asarray(cov)
    if np.ndim(cov_1) == 0:
        t_21 = np.eye(d)
        cov_2 = cov_1 * t_21
        path_1 = 0
    elif np.ndim(cov_1) == 1:
        cov_2 = np.diag(cov_1)
        path_1 = 1
    else:
        t_19 = np.tril(cov_1)
        t_20 = np.transpose(np.tril(cov_1, -1))
        cov_2 = t_19 + t_20
        path_1 = 2
    if np.ndim(ys) == 0:
        x = np.reshape(ys, (1,))
        path_2 = 0
    elif np.ndim(ys) == 1:
        if d == 1:
            x = np.reshape(ys, (-1, 1))
            path_2 = 1
        else:
            path_2 = 3
            x = ys
    else:
        path_2 = 2
        x = ys
    t_22 = np.asarray(x)
    dev_1 = t_22 - mean_2
    basis, null, tol = mvn_range(cov_2, False)
    if basis is not None:
        t_23 = np.transpose(basis)
        cov_4, cov_back = by_rule(operator.matmul, matmul, t_23 @ cov_2, basis)
        dev, dev_back = by_rule(operator.matmul, matmul, dev_1, basis)
        path_3 = 0
    else:
        path_3 = 1
        cov_4, dev = (cov_2, dev_1)
    cov_3 = cov_4
    chol = np.linalg.cholesky(cov_4)
    t_24 = np.diagonal(chol)
    t_25 = np.log(t_24)
    t_33 = 2.0 * t_25.sum()
    t_27 = np.expand_dims(dev, -1)
    t_28 = np.linalg.solve(chol, t_27)
    if basis is None:
        rank = d
    else:
        rank = np.shape(basis)[1]
    t_34 = 2 * math.pi
    t_33, y_back = by_rule(operator.add, add_any, rank * math.log(t_34), t_33)
    t_29 = t_28 * t_28
    t_33, y_back_1 = by_rule(operator.add, add_any, t_33, t_29.sum(axis=(-2, -1)))
    t_33 = unpack(by_rule(operator.mul, mul_any, -0.5, t_33), 2)
    out = t_33[0]
    out_back = t_33[1]
    if basis is not None:
        t_30 = mvn_outside(dev_1, null, tol)
        out_1 = np.where(t_30, -np.inf, out)
        path_5 = 0
    else:
        path_5 = 1
        out_1 = out
    t_32 = np.squeeze(out_1)

    def log_marginal_likelihood_pullback(dy):
        dout = np.reshape(scatter(t_32, (), dy), np.shape(out_1))
        if path_5 == 0:
            dout = unbroadcast(np.where(t_30, 0, dout), out)
        t_33 = call_pullback(y_back_1, call_pullback(out_back, dout)[2])
        t_34 = t_33[1]
        t_33 = accum(0, t_33[2])
        if is_number_zero(t_33):
            t_33 = 0
        else:
            t_33 = spread(np.expand_dims(t_33, (-2, -1)), t_29)
        t_33 = 2 * unbroadcast(t_33 * np.conjugate(t_28), t_28)
        t_34 = accum(0, call_pullback(y_back, t_34)[2])
        if is_number_zero(t_33):
            dchol, t_33 = (0, 0)
        else:
            dchol, t_33 = solve_grads(t_33, chol, t_27, t_28)
        if is_number_zero(t_33):
            ddev = None
        else:
            ddev = np.reshape(t_33, np.shape(dev))
        t_33 = t_34 * 2.0
        if is_number_zero(t_33):
            t_33 = 0
        else:
            t_33 = spread(t_33, t_25)
        t_33 = t_33 / np.conjugate(t_24)
        if is_number_zero(t_33):
            t_33 = 0
        else:
            t_33 = diagonal_grad(t_33, chol, 0, 0, 1)
        dchol = dchol + t_33
        if is_number_zero(dchol):
            dcov = None
        else:
            dcov = cholesky_grad(dchol, cov_3, chol, False)
        if path_3 == 0:
            ddev = accum(0, call_pullback(dev_back, ddev)[1])
            t_33 = accum(0, call_pullback(cov_back, dcov)[1])
            if is_number_zero(t_33):
                dcov = 0
            else:
                dcov = matmul_grad(t_33, t_23, cov_2, 1)
        else:
            dcov = accum(0, dcov)
            ddev = accum(0, ddev)
        t_33 = unbroadcast(ddev, t_22)
        dmean = -unbroadcast(ddev, mean_2)
        if is_number_zero(t_33) or not t_22.dtype.kind in 'fc':
            dx = 0
        else:
            dx = like(t_33, x)
        if path_2 == 0:
            if is_number_zero(dx):
                dys = 0
            else:
                dys = np.reshape(dx, np.shape(ys))
        elif path_2 == 1:
            if is_number_zero(dx):
                dys = 0
            else:
                dys = np.reshape(dx, np.shape(ys))
        else:
            dys = dx
        if path_1 == 0:
            dcov = unbroadcast(dcov * t_21, cov_1)
        elif path_1 == 1:
            if is_number_zero(dcov):
                dcov = 0
            else:
                dcov = diag_grad(dcov, cov_1, 0)
        else:
            t_34 = unbroadcast(dcov, t_19)
            t_33 = unbroadcast(dcov, t_20)
            if is_number_zero(t_33):
                t_33 = 0
            else:
                t_33 = np.transpose(t_33)
            if is_number_zero(t_33):
                dcov = 0
            else:
                dcov = unbroadcast(np.tril(t_33, -1), cov_1)
            if is_number_zero(t_34):
                t_33 = 0
            else:
                t_33 = unbroadcast(np.tril(t_34, 0), cov_1)
            dcov = dcov + t_33
        if is_number_zero(dcov) or not cov_1.dtype.kind in 'fc':
            dcov = 0
        else:
            dcov = like(dcov, cov)
        if path == 0 or is_number_zero(dmean):
            dmean = 0
        else:
            dmean = np.reshape(dmean, np.shape(mean_1))
        if is_number_zero(dmean) or not mean_1.dtype.kind in 'fc':
            dmean = 0
        else:
            dmean = unbroadcast(dmean, mean)
        dparams = key_gradient(params, 'mean', dmean)
        t_33 = unbroadcast(dcov, t_16)
        dlog_noise = unbroadcast(unbroadcast(dcov, t_17) * t_15, t_14) * t_13
        dparams = accum(dparams, key_gradient(params, 'log_noise', dlog_noise))
        t_34 = unbroadcast(t_33 * t_8, t_12) * t_12
        t_35 = unbroadcast(-t_34 * (t_11 / t_9), t_9) * (2.0 * t)
        ddistances = unbroadcast(t_34 / t_9, t_10) * -0.5
        t_34 = unbroadcast(t_33 * t_12, t_8) * (2.0 * t_1)
        if is_number_zero(ddistances):
            t_33 = 0
        else:
            t_33 = spread(np.expand_dims(ddistances, -1), t_7)
        t_33 = t_33 * (2.0 * t_6)
        t_36 = unbroadcast(t_33, t_4)
        t_33 = -unbroadcast(t_33, t_5)
        if is_number_zero(t_33):
            dxs = 0
        else:
            dxs = scatter(xs, t_3, t_33)
        if is_number_zero(t_36):
            t_33 = 0
        else:
            t_33 = scatter(xs, t_2, t_36)
        dxs = dxs + t_33
        dlog_signal = t_34 * t_1
        dparams = accum(dparams, key_gradient(params, 'log_signal', dlog_signal))
        dlog_length = t_35 * t
        dparams = accum(dparams, key_gradient(params, 'log_length', dlog_length))
        return (dparams, user_gradient(xs, dxs), user_gradient(ys, dys))
    return (t_32[()], log_marginal_likelihood_pullback)


def log_marginal_likelihood_gradient(params, xs, ys):
    real_parameters(numbers=dict(params_log_length=params['log_length'], params_log_signal=params['log_signal'], params_log_noise=params['log_noise'], params_mean=params['mean']), arrays=dict(xs=xs, ys=ys))
    n = xs.shape[0]
    t = np.exp(params['log_length'])
    t_1 = np.exp(params['log_signal'])
    t_2 = (slice(None, None, None), None, slice(None, None, None))
    t_4 = xs[t_2]
    t_3 = (None, slice(None, None, None), slice(None, None, None))
    t_5 = xs[t_3]
    t_6 = t_4 - t_5
    t_7 = t_6 ** 2
    distances = t_7.sum(axis=-1)
    t_8 = t_1 ** 2
    t_10 = -0.5 * distances
    t_9 = t ** 2
    t_11 = t_10 / t_9
    t_12 = np.exp(t_11)
    t_16 = t_8 * t_12
    t_13 = np.exp(params['log_noise'])
    t_14 = t_13 + 1e-06
    t_15 = np.eye(n)
    t_17 = t_14 * t_15
    cov = t_16 + t_17
    mean = params['mean']
    mean_1 = np.full(n, mean)
    d = mvn_dim(mean_1, cov)
    if mean_1 is None:
        mean_2 = np.zeros(d)
        path = 0
    else:
        mean_2 = np.reshape(mean_1, (d,))
        path = 1
    cov_1 = np.asarray(cov)
    if np.ndim(cov_1) == 0:
        t_21 = np.eye(d)
        cov_2 = cov_1 * t_21
        path_1 = 0
    elif np.ndim(cov_1) == 1:
        cov_2 = np.diag(cov_1)
        path_1 = 1
    else:
        t_19 = np.tril(cov_1)
        t_20 = np.transpose(np.tril(cov_1, -1))
        cov_2 = t_19 + t_20
        path_1 = 2
    if np.ndim(ys) == 0:
        x = np.reshape(ys, (1,))
        path_2 = 0
    elif np.ndim(ys) == 1:
        if d == 1:
            x = np.reshape(ys, (-1, 1))
            path_2 = 1
        else:
            path_2 = 3
            x = ys
    else:
        path_2 = 2
        x = ys
    t_22 = np.asarray(x)
    dev_1 = t_22 - mean_2
    basis, null, tol = mvn_range(cov_2, False)
    if basis is not None:
        t_23 = np.transpose(basis)
        cov_4, cov_back = by_rule(operator.matmul, matmul, t_23 @ cov_2, basis)
        dev, dev_back = by_rule(operator.matmul, matmul, dev_1, basis)
        path_3 = 0
    else:
        path_3 = 1
        cov_4, dev = (cov_2, dev_1)
    cov_3 = cov_4
    chol = np.linalg.cholesky(cov_4)
    t_24 = np.diagonal(chol)
    t_25 = np.log(t_24)
    t_33 = 2.0 * t_25.sum()
    t_27 = np.expand_dims(dev, -1)
    t_28 = np.linalg.solve(chol, t_27)
    if basis is None:
        rank = d
    else:
        rank = np.shape(basis)[1]
    t_34 = 2 * math.pi
    t_33, y_back = by_rule(operator.add, add_any, rank * math.log(t_34), t_33)
    t_29 = t_28 * t_28
    t_33, y_back_1 = by_rule(operator.add, add_any, t_33, t_29.sum(axis=(-2, -1)))
    t_33 = unpack(by_rule(operator.mul, mul_any, -0.5, t_33), 2)
    out = t_33[0]
    out_back = t_33[1]
    if basis is not None:
        t_30 = mvn_outside(dev_1, null, tol)
        out_1 = np.where(t_30, -np.inf, out)
        path_5 = 0
    else:
        path_5 = 1
        out_1 = out
    t_32 = np.squeeze(out_1)
    t_34 = t_32[()]
    dy = seed_1(t_34)
    dout = np.reshape(scatter(t_32, (), dy), np.shape(out_1))
    if path_5 == 0:
        dout = unbroadcast(np.where(t_30, 0, dout), out)
    t_33 = call_pullback(y_back_1, call_pullback(out_back, dout)[2])
    t_35 = t_33[1]
    t_33 = accum(0, t_33[2])
    if is_number_zero(t_33):
        t_33 = 0
    else:
        t_33 = spread(np.expand_dims(t_33, (-2, -1)), t_29)
    t_33 = 2 * unbroadcast(t_33 * np.conjugate(t_28), t_28)
    t_35 = accum(0, call_pullback(y_back, t_35)[2])
    if is_number_zero(t_33):
        dchol, t_33 = (0, 0)
    else:
        dchol, t_33 = solve_grads(t_33, chol, t_27, t_28)
    if is_number_zero(t_33):
        ddev = None
    else:
        ddev = np.reshape(t_33, np.shape(dev))
    t_33 = t_35 * 2.0
    if is_number_zero(t_33):
        t_33 = 0
    else:
        t_33 = spread(t_33, t_25)
    t_33 = t_33 / np.conjugate(t_24)
    if is_number_zero(t_33):
        t_33 = 0
    else:
        t_33 = diagonal_grad(t_33, chol, 0, 0, 1)
    dchol = dchol + t_33
    if is_number_zero(dchol):
        dcov = None
    else:
        dcov = cholesky_grad(dchol, cov_3, chol, False)
    if path_3 == 0:
        ddev = accum(0, call_pullback(dev_back, ddev)[1])
        t_33 = accum(0, call_pullback(cov_back, dcov)[1])
        if is_number_zero(t_33):
            dcov = 0
        else:
            dcov = matmul_grad(t_33, t_23, cov_2, 1)
    else:
        dcov = accum(0, dcov)
        ddev = accum(0, ddev)
    t_33 = unbroadcast(ddev, t_22)
    dmean = -unbroadcast(ddev, mean_2)
    if is_number_zero(t_33) or not t_22.dtype.kind in 'fc':
        dx = 0
    else:
        dx = like(t_33, x)
    if path_2 == 0:
        if is_number_zero(dx):
            dys = 0
        else:
            dys = np.reshape(dx, np.shape(ys))
    elif path_2 == 1:
        if is_number_zero(dx):
            dys = 0
        else:
            dys = np.reshape(dx, np.shape(ys))
    else:
        dys = dx
    if path_1 == 0:
        dcov = unbroadcast(dcov * t_21, cov_1)
    elif path_1 == 1:
        if is_number_zero(dcov):
            dcov = 0
        else:
            dcov = diag_grad(dcov, cov_1, 0)
    else:
        t_35 = unbroadcast(dcov, t_19)
        t_33 = unbroadcast(dcov, t_20)
        if is_number_zero(t_33):
            t_33 = 0
        else:
            t_33 = np.transpose(t_33)
        if is_number_zero(t_33):
            dcov = 0
        else:
            dcov = unbroadcast(np.tril(t_33, -1), cov_1)
        if is_number_zero(t_35):
            t_33 = 0
        else:
            t_33 = unbroadcast(np.tril(t_35, 0), cov_1)
        dcov = dcov + t_33
    if is_number_zero(dcov) or not cov_1.dtype.kind in 'fc':
        dcov = 0
    else:
        dcov = like(dcov, cov)
    if path == 0 or is_number_zero(dmean):
        dmean = 0
    else:
        dmean = np.reshape(dmean, np.shape(mean_1))
    if is_number_zero(dmean) or not mean_1.dtype.kind in 'fc':
        dmean = 0
    else:
        dmean = unbroadcast(dmean, mean)
    dparams = key_gradient(params, 'mean', dmean)
    t_33 = unbroadcast(dcov, t_16)
    dlog_noise = unbroadcast(unbroadcast(dcov, t_17) * t_15, t_14) * t_13
    dparams = accum(dparams, key_gradient(params, 'log_noise', dlog_noise))
    t_35 = unbroadcast(t_33 * t_8, t_12) * t_12
    t_36 = unbroadcast(-t_35 * (t_11 / t_9), t_9) * (2.0 * t)
    ddistances = unbroadcast(t_35 / t_9, t_10) * -0.5
    t_35 = unbroadcast(t_33 * t_12, t_8) * (2.0 * t_1)
    if is_number_zero(ddistances):
        t_33 = 0
    else:
        t_33 = spread(np.expand_dims(ddistances, -1), t_7)
    t_33 = t_33 * (2.0 * t_6)
    t_37 = unbroadcast(t_33, t_4)
    t_33 = -unbroadcast(t_33, t_5)
    if is_number_zero(t_33):
        dxs = 0
    else:
        dxs = scatter(xs, t_3, t_33)
    if is_number_zero(t_37):
        t_33 = 0
    else:
        t_33 = scatter(xs, t_2, t_37)
    dxs = dxs + t_33
    dlog_signal = t_35 * t_1
    dparams = accum(dparams, key_gradient(params, 'log_signal', dlog_signal))
    dlog_length = t_36 * t
    dparams = accum(dparams, key_gradient(params, 'log_length', dlog_length))
    return (dparams, user_gradient(xs, dxs), user_gradient(ys, dys))


# predict (../../../examples/gaussian_process.py, line 35): params: a dict of real numbers (its items read by key); xs: a real array; ys: a real array; tests: a real array
def predict_forward(params, xs, ys, tests):
    real_parameters(numbers=dict(params_log_length=params['log_length'], params_log_signal=params['log_signal'], params_log_noise=params['log_noise'], params_mean=params['mean']), arrays=dict(xs=xs, ys=ys, tests=tests))
    n = xs.shape[0]
    log_length = params['log_length']
    t = np.exp(log_length)
    log_signal_1 = params['log_signal']
    t_1 = np.exp(log_signal_1)
    t_2 = (slice(None, None, None), None, slice(None, None, None))
    t_4 = xs[t_2]
    t_3 = (None, slice(None, None, None), slice(None, None, None))
    t_5 = xs[t_3]
    t_6 = t_4 - t_5
    t_7 = t_6 ** 2
    distances = t_7.sum(axis=-1)
    t_8 = t_1 ** 2
    t_10 = -0.5 * distances
    t_9 = t ** 2
    t_11 = t_10 / t_9
    t_12 = np.exp(t_11)
    t_16 = t_8 * t_12
    t_13 = np.exp(params['log_noise'])
    t_14 = t_13 + 1e-06
    t_15 = np.eye(n)
    t_17 = t_14 * t_15
    cov = t_16 + t_17
    log_length = params['log_length']
    t_18 = np.exp(log_length)
    log_signal_1 = params['log_signal']
    t_19 = np.exp(log_signal_1)
    t_20 = (slice(None, None, None), None, slice(None, None, None))
    t_22 = tests[t_20]
    t_21 = (None, slice(None, None, None), slice(None, None, None))
    t_23 = xs[t_21]
    t_24 = t_22 - t_23
    t_25 = t_24 ** 2
    distances_1 = t_25.sum(axis=-1)
    t_26 = t_19 ** 2
    t_28 = -0.5 * distances_1
    t_27 = t_18 ** 2
    t_29 = t_28 / t_27
    t_30 = np.exp(t_29)
    t_33 = t_26 * t_30
    mean_1 = params['mean']
    mean = params['mean']
    t_31 = ys - mean
    t_32 = np.linalg.solve(cov, t_31)
    t_34 = t_33 @ t_32
    mean_2 = mean_1 + t_34
    t_35 = np.exp(2 * params['log_signal'])
    t_36 = t_33.T
    t_37 = np.linalg.solve(cov, t_36)
    t_38 = t_37.T
    t_39 = t_33 * t_38
    t_40 = t_39.sum(axis=1)
    var = t_35 - t_40
    t_41 = np.maximum(var, 0.0)
    t_42 = np.sqrt(t_41)
    t_43, y_back = by_rule(build_tuple, build_tuple_1, mean_2, t_42)

    def predict_pullback(dy):
        t_43 = call_pullback(y_back, dy)
        dmean = accum(0, t_43[1])
        dvar = first_share(accum(0, t_43[2]) / (2.0 * t_42), var, 0.0, t_41)
        t_44 = unbroadcast(dvar, t_35)
        t_43 = -unbroadcast(dvar, t_40)
        if is_number_zero(t_43):
            t_43 = 0
        else:
            t_43 = spread(np.expand_dims(t_43, 1), t_39)
        t_45 = unbroadcast(t_43 * t_38, t_33)
        t_43 = unbroadcast(t_43 * t_33, t_38)
        if is_number_zero(t_43):
            t_43 = 0
        else:
            t_43 = t_43.T
        if is_number_zero(t_43):
            dcov, t_43 = (0, 0)
        else:
            dcov, t_43 = solve_grads(t_43, cov, t_36, t_37)
        if is_number_zero(t_43):
            t_43 = 0
        else:
            t_43 = t_43.T
        t_45 = t_45 + t_43
        dlog_signal = t_44 * t_35 * 2
        dparams = key_gradient(params, 'log_signal', dlog_signal)
        dmean_1 = unbroadcast(dmean, mean_1)
        t_43 = unbroadcast(dmean, t_34)
        if is_number_zero(t_43):
            t_43, t_44 = (0, 0)
        else:
            t_43, t_44 = (matmul_grad(t_43, t_33, t_32, 0), matmul_grad(t_43, t_33, t_32, 1))
        t_45 = t_45 + t_43
        if is_number_zero(t_44):
            t_43, t_44 = (0, 0)
        else:
            t_43, t_44 = solve_grads(t_44, cov, t_31, t_32)
        dcov = dcov + t_43
        dys = unbroadcast(t_44, ys)
        dmean = -unbroadcast(t_44, mean)
        dparams = accum(dparams, key_gradient(params, 'mean', dmean))
        dparams = accum(dparams, key_gradient(params, 'mean', dmean_1))
        t_43 = unbroadcast(t_45 * t_26, t_30) * t_30
        t_44 = unbroadcast(-t_43 * (t_29 / t_27), t_27) * (2.0 * t_18)
        ddistances = unbroadcast(t_43 / t_27, t_28) * -0.5
        t_45 = unbroadcast(t_45 * t_30, t_26) * (2.0 * t_19)
        if is_number_zero(ddistances):
            t_43 = 0
        else:
            t_43 = spread(np.expand_dims(ddistances, -1), t_25)
        t_43 = t_43 * (2.0 * t_24)
        t_46 = unbroadcast(t_43, t_22)
        t_43 = -unbroadcast(t_43, t_23)
        if is_number_zero(t_43):
            dxs = 0
        else:
            dxs = scatter(xs, t_21, t_43)
        if is_number_zero(t_46):
            dtests = 0
        else:
            dtests = scatter(tests, t_20, t_46)
        dlog_signal = t_45 * t_19
        dparams = accum(dparams, key_gradient(params, 'log_signal', dlog_signal))
        dlog_length = t_44 * t_18
        dparams = accum(dparams, key_gradient(params, 'log_length', dlog_length))
        t_43 = unbroadcast(dcov, t_16)
        dlog_noise = unbroadcast(unbroadcast(dcov, t_17) * t_15, t_14) * t_13
        dparams = accum(dparams, key_gradient(params, 'log_noise', dlog_noise))
        t_44 = unbroadcast(t_43 * t_8, t_12) * t_12
        t_45 = unbroadcast(-t_44 * (t_11 / t_9), t_9) * (2.0 * t)
        ddistances = unbroadcast(t_44 / t_9, t_10) * -0.5
        t_44 = unbroadcast(t_43 * t_12, t_8) * (2.0 * t_1)
        if is_number_zero(ddistances):
            t_43 = 0
        else:
            t_43 = spread(np.expand_dims(ddistances, -1), t_7)
        t_43 = t_43 * (2.0 * t_6)
        t_46 = unbroadcast(t_43, t_4)
        t_43 = -unbroadcast(t_43, t_5)
        if is_number_zero(t_43):
            t_43 = 0
        else:
            t_43 = scatter(xs, t_3, t_43)
        dxs = dxs + t_43
        if is_number_zero(t_46):
            t_43 = 0
        else:
            t_43 = scatter(xs, t_2, t_46)
        dxs = dxs + t_43
        dlog_signal = t_44 * t_1
        dparams = accum(dparams, key_gradient(params, 'log_signal', dlog_signal))
        dlog_length = t_45 * t
        dparams = accum(dparams, key_gradient(params, 'log_length', dlog_length))
        return (dparams, user_gradient(xs, dxs), user_gradient(ys, dys), user_gradient(tests, dtests))
    return (t_43, predict_pullback)


def predict_gradient(params, xs, ys, tests):
    real_parameters(numbers=dict(params_log_length=params['log_length'], params_log_signal=params['log_signal'], params_log_noise=params['log_noise'], params_mean=params['mean']), arrays=dict(xs=xs, ys=ys, tests=tests))
    n = xs.shape[0]
    log_length = params['log_length']
    t = np.exp(log_length)
    log_signal_1 = params['log_signal']
    t_1 = np.exp(log_signal_1)
    t_2 = (slice(None, None, None), None, slice(None, None, None))
    t_4 = xs[t_2]
    t_3 = (None, slice(None, None, None), slice(None, None, None))
    t_5 = xs[t_3]
    t_6 = t_4 - t_5
    t_7 = t_6 ** 2
    distances = t_7.sum(axis=-1)
    t_8 = t_1 ** 2
    t_10 = -0.5 * distances
    t_9 = t ** 2
    t_11 = t_10 / t_9
    t_12 = np.exp(t_11)
    t_16 = t_8 * t_12
    t_13 = np.exp(params['log_noise'])
    t_14 = t_13 + 1e-06
    t_15 = np.eye(n)
    t_17 = t_14 * t_15
    cov = t_16 + t_17
    log_length = params['log_length']
    t_18 = np.exp(log_length)
    log_signal_1 = params['log_signal']
    t_19 = np.exp(log_signal_1)
    t_20 = (slice(None, None, None), None, slice(None, None, None))
    t_22 = tests[t_20]
    t_21 = (None, slice(None, None, None), slice(None, None, None))
    t_23 = xs[t_21]
    t_24 = t_22 - t_23
    t_25 = t_24 ** 2
    distances_1 = t_25.sum(axis=-1)
    t_26 = t_19 ** 2
    t_28 = -0.5 * distances_1
    t_27 = t_18 ** 2
    t_29 = t_28 / t_27
    t_30 = np.exp(t_29)
    t_33 = t_26 * t_30
    mean_1 = params['mean']
    mean = params['mean']
    t_31 = ys - mean
    t_32 = np.linalg.solve(cov, t_31)
    t_34 = t_33 @ t_32
    mean_2 = mean_1 + t_34
    t_35 = np.exp(2 * params['log_signal'])
    t_36 = t_33.T
    t_37 = np.linalg.solve(cov, t_36)
    t_38 = t_37.T
    t_39 = t_33 * t_38
    t_40 = t_39.sum(axis=1)
    var = t_35 - t_40
    t_41 = np.maximum(var, 0.0)
    t_42 = np.sqrt(t_41)
    t_45, y_back = by_rule(build_tuple, build_tuple_1, mean_2, t_42)
    t_43 = call_pullback(y_back, seed_1(t_45))
    dmean = accum(0, t_43[1])
    dvar = first_share(accum(0, t_43[2]) / (2.0 * t_42), var, 0.0, t_41)
    t_44 = unbroadcast(dvar, t_35)
    t_43 = -unbroadcast(dvar, t_40)
    if is_number_zero(t_43):
        t_43 = 0
    else:
        t_43 = spread(np.expand_dims(t_43, 1), t_39)
    t_46 = unbroadcast(t_43 * t_38, t_33)
    t_43 = unbroadcast(t_43 * t_33, t_38)
    if is_number_zero(t_43):
        t_43 = 0
    else:
        t_43 = t_43.T
    if is_number_zero(t_43):
        dcov, t_43 = (0, 0)
    else:
        dcov, t_43 = solve_grads(t_43, cov, t_36, t_37)
    if is_number_zero(t_43):
        t_43 = 0
    else:
        t_43 = t_43.T
    t_46 = t_46 + t_43
    dlog_signal = t_44 * t_35 * 2
    dparams = key_gradient(params, 'log_signal', dlog_signal)
    dmean_1 = unbroadcast(dmean, mean_1)
    t_43 = unbroadcast(dmean, t_34)
    if is_number_zero(t_43):
        t_43, t_44 = (0, 0)
    else:
        t_43, t_44 = (matmul_grad(t_43, t_33, t_32, 0), matmul_grad(t_43, t_33, t_32, 1))
    t_46 = t_46 + t_43
    if is_number_zero(t_44):
        t_43, t_44 = (0, 0)
    else:
        t_43, t_44 = solve_grads(t_44, cov, t_31, t_32)
    dcov = dcov + t_43
    dys = unbroadcast(t_44, ys)
    dmean = -unbroadcast(t_44, mean)
    dparams = accum(dparams, key_gradient(params, 'mean', dmean))
    dparams = accum(dparams, key_gradient(params, 'mean', dmean_1))
    t_43 = unbroadcast(t_46 * t_26, t_30) * t_30
    t_44 = unbroadcast(-t_43 * (t_29 / t_27), t_27) * (2.0 * t_18)
    ddistances = unbroadcast(t_43 / t_27, t_28) * -0.5
    t_46 = unbroadcast(t_46 * t_30, t_26) * (2.0 * t_19)
    if is_number_zero(ddistances):
        t_43 = 0
    else:
        t_43 = spread(np.expand_dims(ddistances, -1), t_25)
    t_43 = t_43 * (2.0 * t_24)
    t_47 = unbroadcast(t_43, t_22)
    t_43 = -unbroadcast(t_43, t_23)
    if is_number_zero(t_43):
        dxs = 0
    else:
        dxs = scatter(xs, t_21, t_43)
    if is_number_zero(t_47):
        dtests = 0
    else:
        dtests = scatter(tests, t_20, t_47)
    dlog_signal = t_46 * t_19
    dparams = accum(dparams, key_gradient(params, 'log_signal', dlog_signal))
    dlog_length = t_44 * t_18
    dparams = accum(dparams, key_gradient(params, 'log_length', dlog_length))
    t_43 = unbroadcast(dcov, t_16)
    dlog_noise = unbroadcast(unbroadcast(dcov, t_17) * t_15, t_14) * t_13
    dparams = accum(dparams, key_gradient(params, 'log_noise', dlog_noise))
    t_44 = unbroadcast(t_43 * t_8, t_12) * t_12
    t_46 = unbroadcast(-t_44 * (t_11 / t_9), t_9) * (2.0 * t)
    ddistances = unbroadcast(t_44 / t_9, t_10) * -0.5
    t_44 = unbroadcast(t_43 * t_12, t_8) * (2.0 * t_1)
    if is_number_zero(ddistances):
        t_43 = 0
    else:
        t_43 = spread(np.expand_dims(ddistances, -1), t_7)
    t_43 = t_43 * (2.0 * t_6)
    t_47 = unbroadcast(t_43, t_4)
    t_43 = -unbroadcast(t_43, t_5)
    if is_number_zero(t_43):
        t_43 = 0
    else:
        t_43 = scatter(xs, t_3, t_43)
    dxs = dxs + t_43
    if is_number_zero(t_47):
        t_43 = 0
    else:
        t_43 = scatter(xs, t_2, t_47)
    dxs = dxs + t_43
    dlog_signal = t_44 * t_1
    dparams = accum(dparams, key_gradient(params, 'log_signal', dlog_signal))
    dlog_length = t_46 * t
    dparams = accum(dparams, key_gradient(params, 'log_length', dlog_length))
    return (dparams, user_gradient(xs, dxs), user_gradient(ys, dys), user_gradient(tests, dtests))

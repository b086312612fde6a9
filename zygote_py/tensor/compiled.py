"""Compiled tensor functions, and their connection to ``zpy.gradient``.

:func:`compile` takes an expression and the shapes of its inputs, and
returns a :class:`TensorFunction`: a callable running the generated NumPy
for the expression, whose adjoint is generated the same way, purely
functionally, from :func:`zygote_py.tensor.derive.adjoint`. The function is
registered with zygote_py's rule registry, so a Python function that calls
it can be differentiated by ``zpy.gradient`` like any other.
"""
from __future__ import annotations

from typing import Any, Callable, Mapping, Optional, Sequence

import numpy as np

from zygote_py import registry
from zygote_py.tensor import syntax as S
from zygote_py.tensor.cost import Cost, cost
from zygote_py.tensor.derive import AdjointProgram, adjoint, forward, tangent_name, unpack
from zygote_py.tensor.normalise import dead_code, normal_form, to_ssa
from zygote_py.tensor.numpy_gen import compile_function
from zygote_py.tensor.syntax import Expr, Shape


class TensorFunction:
    """A tensor expression compiled to NumPy, with its adjoint.

    Call it with the inputs (positionally, in the order given to
    :func:`compile`); ``.vjp(args, dy)`` returns the inputs' gradients."""

    def __init__(self, expr: Expr, inputs: Mapping[str, Shape], name: str = "f",
                 wrt: Optional[Sequence[str]] = None):
        self.expr = expr
        self.inputs = dict(inputs)
        self.params = tuple(inputs)
        self.name = name
        self.normal = to_ssa(normal_form(expr, self.inputs), self.inputs)
        self.out_shape = S.shape_of(expr, self.inputs)
        self.forward_fn = compile_function(self.normal, name, self.params, self.inputs)
        self.program: AdjointProgram = adjoint(expr, self.inputs, wrt)
        self.seed_shapes = dict(zip(self.program.seeds, _leaf_shapes(self.out_shape)))
        self.adjoint_fn = compile_function(self.program.expr, f"{name}_adjoint",
                                           self.params + self.program.seeds, {**self.inputs, **self.seed_shapes})
        self.tangent_fn: Optional[Callable] = None
        registry.adjoint(self)(self._rule)

    @property
    def source(self) -> str:
        return self.forward_fn.source

    @property
    def adjoint_source(self) -> str:
        return self.adjoint_fn.source

    def __call__(self, *args: Any) -> Any:
        return self.forward_fn(*self._check(args))

    def vjp(self, args: Sequence[Any], dy: Any) -> tuple:
        """One gradient per input (``None`` for inputs not differentiated)."""
        seeds = tuple(_flatten(dy, self.out_shape))
        grads = unpack(self.adjoint_fn(*self._check(tuple(args)), *seeds), len(self.program.inputs))
        by_name = dict(zip(self.program.inputs, grads))
        return tuple(_as_input(by_name.get(p), self.inputs[p]) for p in self.params)

    def jvp(self, args: Sequence[Any], tangents: Sequence[Any]) -> Any:
        """The output's tangent for one tangent per input (the total
        derivative, rules 6.1–6.16, compiled like the adjoint)."""
        if self.tangent_fn is None:
            tangent_names = tuple(tangent_name(p) for p in self.params)
            shapes = {**self.inputs, **{t: self.inputs[p] for t, p in zip(tangent_names, self.params)}}
            d = forward(self.normal, self.params)
            d = dead_code(to_ssa(normal_form(d, shapes), shapes))
            self.tangent_fn = compile_function(d, f"{self.name}_jvp", self.params + tangent_names, shapes)
        return self.tangent_fn(*self._check(tuple(args)), *self._check(tuple(tangents)))

    @property
    def jvp_source(self) -> str:
        """The generated forward-mode function (after a first :meth:`jvp`)."""
        return self.tangent_fn.source if self.tangent_fn is not None else ""

    def costs(self) -> tuple[Cost, Cost]:
        """The cost-model counts of the expression and of its adjoint."""
        return cost(self.expr, self.inputs), cost(self.program.expr, {**self.inputs, **self.seed_shapes})

    def _check(self, args: tuple) -> tuple:
        if len(args) != len(self.params):
            raise S.TensorLanguageError(f"{self.name} takes {len(self.params)} arguments "
                                        f"({', '.join(self.params)}), got {len(args)}")
        out = []
        for p, a in zip(self.params, args):
            a = np.asarray(a, dtype=float)
            if a.shape != self.inputs[p]:
                raise S.TensorLanguageError(f"{self.name}: argument {p} has shape {a.shape}, "
                                            f"expected {self.inputs[p]}")
            out.append(a if a.shape else float(a))
        return tuple(out)

    def _rule(self, *args: Any) -> tuple[Any, Callable]:
        y = self(*args)

        def back(dy: Any) -> tuple:
            return self.vjp(args, dy)

        return y, back

    def __repr__(self) -> str:
        return f"<TensorFunction {self.name}({', '.join(self.params)})>"


def _leaf_shapes(t: Shape) -> list:
    return _leaf_shapes(t[1]) + _leaf_shapes(t[2]) if S.is_pair(t) else [t]


def _flatten(v: Any, t: Shape) -> list:
    if S.is_pair(t):
        return _flatten(v[0], t[1]) + _flatten(v[1], t[2])
    return [np.asarray(v, dtype=float) if t else float(v)]


def _as_input(g: Any, shape: Shape) -> Any:
    if g is None:
        return None
    return np.asarray(g, dtype=float).reshape(shape) if shape else float(g)


def compile(expr: Expr, inputs: Mapping[str, Shape], name: str = "f",
            wrt: Optional[Sequence[str]] = None) -> TensorFunction:
    """Compile ``expr`` with inputs ``{name: shape}`` (positional order) to a
    :class:`TensorFunction` that ``zpy.gradient`` can differentiate through."""
    return TensorFunction(expr, inputs, name, wrt)

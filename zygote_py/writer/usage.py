"""The kind of an unannotated parameter, from how the function uses it
(``zpy emit``: there are no arguments to look at, and people do not
annotate).

A parameter without annotation or default is

- **a real array** where the function (or a module function it passes the
  parameter to, at the same position) uses it as only an array is used:
  an array attribute or method (``x.shape``, ``x.T``, ``x.sum()``), an
  index that is not a string (``x[i]``, ``x[:, 0]``), an operand of ``@``,
  ``len(x)``, a loop over it (``for v in x``, ``enumerate(x)``, ``zip``),
  or a NumPy call given ``axis=``/``keepdims=``; or an operand of
  arithmetic with an array (``x @ W + b``: ``b``; ``z - y`` of an array
  ``z``: ``y``), what it broadcasts with (a reduction such as ``np.sum``
  gives a number), or what a NumPy reduction is given (``np.sum(x * x)``);
- **a real number or array** where nothing says which, but it is given to
  a library's function (``np.tanh(a)``, ``scipy.special.gammaln(k)``),
  which takes both: emitted for an array, whose code is NumPy's for a
  number too (a 0-d array);
- **a dict** where it is read by string keys only (``params["w"]``), each
  item a real array when the item is used so (also through a local name:
  ``W1 = params["W1"]`` then ``x @ W1``), a real number or array when it is
  given to a library's function, else a real number;
- else **a real number**, as before.

The gradient module checks each of them when it runs (``real_numbers``,
``real_arrays``, ``real_values``): a call with another kind raises
``TypeError`` naming the parameter, never computes a wrong gradient.
"""
from __future__ import annotations

import ast
from typing import Callable, Optional

ARRAY_ATTRIBUTES = {
    "shape", "T", "ndim", "size", "dtype", "sum", "mean", "max", "min", "std", "var", "prod", "dot", "reshape",
    "transpose", "ravel", "flatten", "astype", "copy", "argmax", "argmin", "clip", "cumsum", "any", "all", "item",
    "real", "imag", "conj", "squeeze", "swapaxes", "fill", "mT",
}
_ARRAY_KEYWORDS = {"axis", "keepdims", "axes"}
_ITERATORS = {"enumerate", "zip", "reversed", "iter"}

DEPTH = 4
"""How deep the module's calls are followed."""


def usage(fdef: ast.FunctionDef, name: str, callee: Callable[[str], Optional[ast.FunctionDef]],
          depth: int = DEPTH) -> "str | dict[str, str] | None":
    """``"array"`` when ``fdef`` uses its parameter ``name`` as an array,
    ``"either"`` when it gives it to a library's function (a number or an
    array), ``{key: "array" | "either" | "number"}`` when it reads it by
    string keys only, else None. ``callee(g)``: the module's function
    ``g`` (None for another)."""
    aliases = _aliases(fdef)
    if _as_array(fdef, {name}, callee, depth) or name in _beside_arrays(fdef, callee, depth):
        return "array"
    keys = _string_keys(fdef, name)
    if keys is None:
        return "either" if _given_to_library(fdef, lambda n: isinstance(n, ast.Name) and n.id == name) else None
    out = {}
    beside = _beside_arrays(fdef, callee, depth)
    for key in keys:
        names = {local for local, (base, k) in aliases.items() if base == name and k == key}
        if names and (_as_array(fdef, names, callee, depth) or names & beside) or _item_as_array(
                fdef, name, key) or _item(name, key) in beside:
            out[key] = "array"
        elif _given_to_library(fdef, lambda n: isinstance(n, ast.Name) and n.id in names or _key(n) == (name, key)):
            out[key] = "either"
        else:
            out[key] = "number"
    return out


def _given_to_library(fdef: ast.FunctionDef, value: Callable[[ast.AST], bool]) -> bool:
    """Whether ``fdef`` passes a ``value`` node as an argument of a
    function read from a module other than ``math`` (``np.tanh(a)``,
    ``scipy.special.gammaln(p["k"])``: a dotted name), which takes a number
    or an array."""
    for n in ast.walk(fdef):
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and _root(n.func.value) not in (
                None, "math", "cmath") and any(value(a) for a in n.args):  # (math.sin takes numbers only)
            return True
    return False


def _root(node: ast.AST) -> Optional[str]:
    """``np`` of ``np`` or ``np.linalg``: the name a dotted name starts
    with (None for another expression)."""
    if isinstance(node, ast.Attribute):
        return _root(node.value)
    return node.id if isinstance(node, ast.Name) else None


def _item(name: str, key: str) -> str:
    """How :func:`_beside_arrays` names the item ``name[key]``."""
    return f"{name}[{key!r}]"


_ELEMENTWISE = (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.Pow)
_REDUCTIONS = {"sum", "mean", "max", "min", "prod", "std", "var", "norm", "dot", "vdot", "trace", "item", "len"}


def _beside_arrays(fdef: ast.FunctionDef, callee: Callable[[str], Optional[ast.FunctionDef]], depth: int
                   ) -> set[str]:
    """The names that are operands of arithmetic with an array (``x @ W +
    b``, ``z - y`` of an array ``z``): taken to be arrays too (what the
    value broadcasts with), as are the names assigned an array."""
    arrays = {a.arg for a in fdef.args.posonlyargs + fdef.args.args if a.annotation is None
              and _as_array(fdef, {a.arg}, callee, depth)}
    arrays |= {local for local in _assigned(fdef) if _as_array(fdef, {local}, callee, depth)}
    for n in ast.walk(fdef):  # (np.sum(x * x): what a NumPy reduction is given)
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and isinstance(n.func.value, ast.Name) \
                and n.func.attr in _REDUCTIONS and n.args:
            arrays |= _operands(n.args[0])

    def array(e: ast.AST) -> bool:
        if isinstance(e, ast.Name):
            return e.id in arrays
        if isinstance(e, ast.BinOp):
            return isinstance(e.op, ast.MatMult) or isinstance(e.op, _ELEMENTWISE) and (array(e.left) or array(
                e.right))
        if isinstance(e, ast.UnaryOp):
            return array(e.operand)
        if isinstance(e, ast.Call) and isinstance(e.func, ast.Attribute):  # (np.tanh(a); not np.sum(a))
            return e.func.attr not in _REDUCTIONS and any(array(a) for a in e.args) and not any(
                k.arg in _ARRAY_KEYWORDS for k in e.keywords)
        return False

    changed = True
    while changed:
        changed = False
        for n in ast.walk(fdef):
            new = set()
            if isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name) \
                    and array(n.value):
                new.add(n.targets[0].id)
            elif isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.value, ast.Name) and \
                    isinstance(n.targets[0], ast.Name) and n.targets[0].id in arrays:
                new.add(n.value.id)  # (h = x, h an array: so is x)
            elif isinstance(n, ast.BinOp) and isinstance(n.op, _ELEMENTWISE):
                for one, other in ((n.left, n.right), (n.right, n.left)):
                    if isinstance(one, ast.Name) and array(other):
                        new.add(one.id)
                    elif _key(one) is not None and array(other):  # (params["b"] in x @ W + params["b"])
                        new.add(_item(*_key(one)))
            if new - arrays:
                arrays |= new
                changed = True
    return arrays


def _operands(e: ast.AST) -> set[str]:
    """The names ``e`` combines elementwise (``x * x + y``: x, y)."""
    if isinstance(e, ast.Name):
        return {e.id}
    if isinstance(e, ast.BinOp) and isinstance(e.op, _ELEMENTWISE):
        return _operands(e.left) | _operands(e.right)
    if isinstance(e, ast.UnaryOp):
        return _operands(e.operand)
    return set()


def _assigned(fdef: ast.FunctionDef) -> set[str]:
    return {n.id for n in ast.walk(fdef) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}


def _aliases(fdef: ast.FunctionDef) -> dict[str, tuple[str, str]]:
    """Local names bound to ``base["key"]`` (``W1 = params["W1"]``, ``W1, W2 =
    params["W1"], params["W2"]``)."""
    out = {}
    for n in ast.walk(fdef):
        if not isinstance(n, ast.Assign) or len(n.targets) != 1:
            continue
        target, value = n.targets[0], n.value
        pairs = list(zip(target.elts, value.elts)) if isinstance(target, ast.Tuple) and isinstance(
            value, ast.Tuple) and len(target.elts) == len(value.elts) else [(target, value)]
        for t, v in pairs:
            key = _key(v)
            if isinstance(t, ast.Name) and key is not None:
                out[t.id] = key
    return out


def _key(node: ast.AST) -> Optional[tuple[str, str]]:
    if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and isinstance(
            node.slice, ast.Constant) and type(node.slice.value) is str:
        return node.value.id, node.slice.value
    return None


def _string_keys(fdef: ast.FunctionDef, name: str) -> Optional[list[str]]:
    """The keys of every read of ``name``, when each is ``name["key"]``."""
    keys, other = [], False
    subscripted = set()
    for n in ast.walk(fdef):
        k = _key(n)
        if k is not None and k[0] == name:
            keys.append(k[1])
            subscripted.add(id(n.value))
    for n in ast.walk(fdef):
        if isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Load) and id(n) not in subscripted:
            other = True  # (passed on, or used otherwise: nothing assumed of its items)
    return list(dict.fromkeys(keys)) if keys and not other else None


def _item_as_array(fdef: ast.FunctionDef, name: str, key: str) -> bool:
    return any(_array_use(parent, child) for parent, child in _parents(fdef) if _key(child) == (name, key))


def _parents(node: ast.AST):
    for parent in ast.walk(node):
        for child in ast.iter_child_nodes(parent):
            yield parent, child


def _array_use(parent: ast.AST, child: ast.AST) -> bool:
    """Whether ``parent`` uses its child ``child`` as only an array is used."""
    if isinstance(parent, ast.Attribute) and parent.value is child:
        return parent.attr in ARRAY_ATTRIBUTES
    if isinstance(parent, ast.Subscript) and parent.value is child:
        return not (isinstance(parent.slice, ast.Constant) and isinstance(parent.slice.value, str))
    if isinstance(parent, ast.BinOp) and isinstance(parent.op, ast.MatMult):
        return True
    if isinstance(parent, ast.Call) and child in parent.args:
        f = parent.func
        if isinstance(f, ast.Name) and (f.id == "len" or f.id in _ITERATORS):
            return True
        return isinstance(f, ast.Attribute) and any(k.arg in _ARRAY_KEYWORDS for k in parent.keywords)
    if isinstance(parent, (ast.For, ast.comprehension)) and parent.iter is child:
        return True
    return False


def _as_array(fdef: ast.FunctionDef, names: set[str], callee: Callable[[str], Optional[ast.FunctionDef]],
              depth: int) -> bool:
    """Whether ``fdef`` uses one of the local ``names`` as an array, itself
    or in a module function it passes it to."""
    for parent, child in _parents(fdef):
        if not (isinstance(child, ast.Name) and child.id in names and isinstance(child.ctx, ast.Load)):
            continue
        if _array_use(parent, child):
            return True
        if depth and isinstance(parent, ast.Call) and child in parent.args and isinstance(parent.func, ast.Name):
            g = callee(parent.func.id)
            params = g.args.posonlyargs + g.args.args if g is not None else []
            i = parent.args.index(child)
            if i < len(params) and params[i].annotation is None and usage(g, params[i].arg, callee,
                                                                          depth - 1) == "array":
                return True
    return False

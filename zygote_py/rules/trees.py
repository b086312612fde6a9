"""Rules for :mod:`zygote_py.tree` called in differentiated code
(``sum(np.sum(p ** 2) for p in zpy.tree.leaves(params))``): a tree's
leaves are its values moved into a list, whose gradients go back into the
tree's gradient (:func:`~zygote_py.tree.gradient_tree`), and the other
way for :func:`~zygote_py.tree.unflatten`. The two moves are each other's
transpose, so each order of derivative is one of them again.
:func:`~zygote_py.tree.map` calls its function on each leaf as ``map``
does (``runtime.J``), over trees of one structure; forward mode pushes it
by this adjoint (``runtime.push_by_adjoint``). The pushforwards of the
others are the same moves of the tangents.

May import: the rule table, the runtime and :mod:`zygote_py.tree`.
"""
from .. import errors, runtime, tree
from ..registry import adjoint, nondifferentiable, pushforward

nondifferentiable(tree.structure)


@adjoint(tree.leaves)
def leaves(t):
    xs, treedef = tree.flatten(t)

    def back(dxs):
        return (None if dxs is None else tree.gradient_tree(treedef, dxs),)
    return xs, back


@adjoint(tree.flatten)
def flatten(t):
    xs, treedef = tree.flatten(t)

    def back(dy):
        dxs = None if dy is None else dy[0]
        return (None if dxs is None else tree.gradient_tree(treedef, dxs),)
    return (xs, treedef), back


@adjoint(tree.unflatten)
def unflatten(treedef, xs):
    def back(dy):
        return (None, None if dy is None else tree.gradient_leaves(treedef, dy))
    return tree.unflatten(treedef, xs), back


@adjoint(tree.gradient_tree)
def gradient_tree(treedef, grads):
    def back(dy):
        return (None, None if dy is None else tree.gradient_leaves(treedef, dy))
    return tree.gradient_tree(treedef, grads), back


@adjoint(tree.gradient_leaves)
def gradient_leaves(treedef, grad):
    def back(dxs):
        return (None, None if dxs is None else tree.gradient_tree(treedef, dxs))
    return tree.gradient_leaves(treedef, grad), back


@adjoint(tree.map)
def map_(f, t, *rest):
    xs, treedef = tree.flatten(t)
    others = [tree.flatten(r) for r in rest]
    if any(d != treedef for _, d in others):
        raise errors.NoDerivativeRule(
            "zpy.tree.map in differentiated code, over trees of other structures (an object with its Tangent, "
            "None for a subtree)",
            hint="map over trees of one structure (dicts, lists, tuples of arrays), or over zpy.tree.leaves")
    calls = [runtime.J(f, x, *[o[i] for o, _ in others]) for i, x in enumerate(xs)]

    def back(dy):
        dys = [None] * len(xs) if dy is None else tree.gradient_leaves(treedef, dy)
        df, rows = None, []
        for (_, pullback), d in zip(calls, dys):
            grads = runtime.call_pullback(pullback, d)  # (f's, then one per tree)
            df = runtime.accum(df, grads[0])
            rows.append(grads[1:])
        return (df, *[tree.gradient_tree(treedef, [row[j] for row in rows]) for j in range(1 + len(rest))])
    return tree.unflatten(treedef, [value for value, _ in calls]), back


@pushforward(tree.leaves)
def leaves_push(y, t, *, dt):
    return tree.gradient_leaves(tree.structure(t), dt)


@pushforward(tree.flatten)
def flatten_push(y, t, *, dt):
    return tree.gradient_leaves(y[1], dt), None


@pushforward(tree.unflatten)
def unflatten_push(y, treedef, xs, *, dxs):
    return tree.gradient_tree(treedef, dxs)


@pushforward(tree.gradient_tree)
def gradient_tree_push(y, treedef, grads, *, dgrads):
    return tree.gradient_tree(treedef, dgrads)


@pushforward(tree.gradient_leaves)
def gradient_leaves_push(y, treedef, grad, *, dgrad):
    return tree.gradient_leaves(treedef, dgrad)

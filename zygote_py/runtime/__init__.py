"""What emitted gradient code calls at run time, and the dispatch of calls
that the compiler could not resolve.

This package is the runtime's face: emitted code and rules read every
helper as ``runtime.name``. Its modules, from the bottom up:

- :mod:`.arrays`: which values are arrays, NumPy's and other libraries' (Dask, CuPy);
- :mod:`.values`: what kind of value a run-time value is to differentiation;
- :mod:`.sparse`: sparse cotangents (``Scatter``, ``Items``);
- :mod:`.operators`: operators that user classes define in Python;
- :mod:`.gradients`: zeros, the seed, accumulation, ``unbroadcast``;
- :mod:`.objects`: attributes, properties, constructors, snapshots;
- :mod:`.iterators`: iterators computed in advance and their gradients;
- :mod:`.cells`: nested functions that share captured variables;
- :mod:`.arguments`: ``*args``/``**kwargs`` and gradients by parameter or argument;
- :mod:`.dispatch`: ``J``, reverse mode of a callee known only at run time;
- :mod:`.nesting`: differentiation inside differentiation;
- :mod:`.forward`: ``push``, forward mode of a callee known only at run time;
- :mod:`.seam`: the one way to the compiler, which installs itself there.

May import: NumPy, the standard library, :mod:`zygote_py.errors`,
:mod:`zygote_py.tangent`, :mod:`zygote_py.registry` (the rule table) and
:mod:`zygote_py.ir.ops`; never the compiler (:mod:`zygote_py.ad`), the rules
or the public API.
"""
from . import arrays, seam  # noqa: F401
from .values import (  # noqa: F401
    calls_wrapped, captures_differentiable, cell_value, is_differentiable_value, is_number, logged, unshared,
)
from .sparse import (  # noqa: F401
    add_at, add_to, basic_index, dense, item_buffer, item_gradient, Items, Lazy, number_buffer, number_gradient, picked,
    Refused, Scatter, scatter, scatters, UNSHARED,
)
from .operators import (  # noqa: F401
    adds_in_python, number_type, overload, overloaded_call, OVERLOADS, python_bound_method, python_method,
)
from .gradients import (  # noqa: F401
    accum, accum_item, add_into, call_pullback, cells_gradient, changing_zero, checked_gradient, field, field_gradient,
    gather, is_number_zero, is_zero_tangent, key_gradient, may_change, NO_GRADS, no_pullback, real_if_real, repeated,
    seed, sequence_gradient, shaped, spread, unbroadcast, user_gradient, without_field, zero_operand, zero_tangent,
)
from .objects import (  # noqa: F401
    attribute_gradient, builtin_method, cached_value, class_attribute, construct_fields, construct_vjp, generated,
    getter_of, LINEAR_ATTRIBUTES, METADATA_ATTRIBUTES, MISSING, number_subclass, object_snapshot, owner_of,
    plain_attributes, python_init, setter, to_default,
)
from .iterators import (  # noqa: F401
    check_iterated, check_unchanged, count_items, EagerIterator, filter_spans, indexable, items_read, iterator_gradient,
    next_refused, not_started_over,
    ITEM_READERS, items_first, ITERATORS, like_iterable, own_iter, position, read_ahead, reversed_spans, source_versions, take, tangent_of_items, TangentView,
)
from .cells import (  # noqa: F401
    call_with_cells, check_assigned, forward_with_cells, lent_cells, push_with_cells,
)
from .arguments import (  # noqa: F401
    call_cotangent, call_grads, call_spread, closure_gradient, defaulted, numpy_parameters, out_argument,
    raw_cotangent, restricted, spread_keywords, spread_positional,
)
from .dispatch import (  # noqa: F401
    apply_rule, attribute, bound_object, call_gradient, caught, changing_method, copied, differentiable_callable,
    field_constructor, float_operands, forward_changing, J, joins_sequences, keyword_positions, Pullback,
    pullback_gradient, rule_for, rule_pullback, shares_cells, vectorized,
)
from .nesting import (  # noqa: F401
    COUNTED_CODE, gradient_function, J_nested, NEST, nested, nestlevel, per_argument, rule_gradient, rule_vjp,
    STALE, unpartial,
)
from .forward import (  # noqa: F401
    MACHINERY_PUSHES, attribute_tangent, changed_position, float_tangent, iter_in_step, owned, push, push_by_adjoint, push_in_place, push_method,
    store_tangent,
)

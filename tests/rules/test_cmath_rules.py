"""The registry covers :mod:`cmath` (the gradients themselves are checked
end to end, against finite differences, in tests/ad/test_complex.py)."""
import cmath

from zygote_py.rules import is_nondifferentiable, lookup, pycmath


def test_every_cmath_function_is_ruled_nondifferentiable_or_skipped():
    public = [name for name in dir(cmath) if not name.startswith("_") and callable(getattr(cmath, name))]
    missing = [
        name for name in public
        if lookup(getattr(cmath, name)) is None and not is_nondifferentiable(getattr(cmath, name))
        and name not in pycmath.SKIPPED
    ]
    assert missing == []
    assert not set(pycmath.SKIPPED) - set(public), "SKIPPED names a function cmath lacks"


def test_predicates_are_nondifferentiable():
    for fn in (cmath.isclose, cmath.isfinite, cmath.isinf, cmath.isnan):
        assert is_nondifferentiable(fn)

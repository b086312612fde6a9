"""Functions in every form that get_source must handle. This is a real file
so that inspect and linecache find it; the tests locate the expected lines
by searching its text."""
import functools


def plain(x, y):
    return x * y + 1


def make_closure(k):
    def scaled_by_k(x):
        return x * k + k

    return scaled_by_k


def make_lambda_closure(k):
    return lambda x: x - k


def capture(*values):
    """Return the last argument: the callee of an inline lambda."""
    return values[-1]


INLINE = capture(lambda x: x * 2)
ADD_ONE, TIMES_THREE = lambda x: x + 1, lambda x: x * 3
PLUS_TWO, PLUS_FIVE = lambda x: x + 2, lambda x: x + 5
BY_A, BY_B = lambda a, b=1: a * 2 - b, lambda b, a=1: b * 2 - a
CURRIED = lambda x: lambda y: x - y  # noqa: E731
SPANNING = (lambda x,
            y:
            x * (y + 1)
            - 1)
IN_CALL = capture(
    1,
    lambda x: x ** 2 + 1,
)
TABLE = [
    lambda x: x + 10,
    lambda x: x - 10,
]


def traced(g):
    @functools.wraps(g)
    def wrapper(*args, **kwargs):
        return g(*args, **kwargs)

    return wrapper


def with_tag(*tags):
    def decorate(g):
        g.tags = tags
        return g

    return decorate


@traced
@traced
def doubly_wrapped(x):
    return x * 5


@with_tag(
    "first",
    "second",
)
def tagged(x):
    return x - 4


class Shape:
    scale = 2.0

    def __init__(self, size):
        self.size = size

    def area(self, k):
        return self.size * k * self.scale

    @staticmethod
    def unit(x):
        return x + 1

    @classmethod
    def scaled(cls, x):
        return cls.scale * x

    @traced
    def wrapped_area(self, k):
        return k * self.size

    def private(self, __k):
        return self.size + __k

    def banner(self, n):
        return """head
tail""" * n

    class Inner:
        def twice(self, x):
            return 2 * x


async def asynchronous(x):
    return x

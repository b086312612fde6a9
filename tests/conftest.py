"""Every IR built during the tests is verified after every pass, and every
property test is deterministic."""
from hypothesis import settings

from zygote_py.ir import verify

verify.CHECK = True

# Every property test draws the same examples on every run, so that CI's
# verdict does not depend on the run (tests that want more say so with
# their own max_examples).
settings.register_profile("zygote_py", derandomize=True, database=None)
settings.load_profile("zygote_py")

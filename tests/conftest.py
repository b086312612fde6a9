"""Every IR built during the tests is verified after every pass."""
from zygote_py.ir import verify

verify.CHECK = True

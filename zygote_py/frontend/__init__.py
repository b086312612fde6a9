"""The front end: a Python function's source found (:mod:`.source`),
resolved (:mod:`.scope`, :mod:`.static`) and lowered to the IR
(:mod:`.lower`, :mod:`.patterns`).

May import: the IR, the runtime (what a value is: :mod:`zygote_py.runtime.values`);
never the rules or the compiler.
"""

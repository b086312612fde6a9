"""The compiler: a function's IR differentiated into a pullback
(:mod:`.reverse`, with :mod:`.mutation`, :mod:`.cells` and :mod:`.idioms`
for in-place changes, closures and loops) or a pushforward
(:mod:`.forward`), rules inlined (:mod:`.inline`, :mod:`.pushrules`),
compiled and cached per kind of argument (:mod:`.pipeline`, which installs
itself as the runtime's compiler, and :mod:`.diskcache`).

May import: the front end, the back end, the tensor language, the rules,
the runtime, the IR, the rule table and the public hooks; never the public
API (:mod:`zygote_py.api`) nor ``zpy emit`` (:mod:`zygote_py.writer`).
"""

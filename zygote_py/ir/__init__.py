"""The block-argument SSA IR (:mod:`.core`), the operations Python's
syntax lowers to (:mod:`.ops`), its control-flow graph (:mod:`.cfg`),
printer, verifier and the passes that simplify it (:mod:`.passes`).

May import: the errors; nothing else of zygote_py. It knows nothing of
rules, gradients or the runtime.
"""

"""``zpy emit``: gradient modules written as standalone Python source
(:mod:`.module`), with the run-time helpers they need copied in readable
form (:mod:`.standalone`), for the caller-derives workflow.

May import: the compiler (:mod:`zygote_py.ad`) and everything below it.
"""

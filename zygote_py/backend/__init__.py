"""The back end: the IR written as Python source (:mod:`.emit`,
:mod:`.structure`, :mod:`.naming`) and compiled to functions
(:mod:`.compile`, :mod:`.bound`); how a value is found again by a literal
or an import (:mod:`.references`).

May import: the IR, the rule table; never the compiler, the rules or the
runtime.
"""

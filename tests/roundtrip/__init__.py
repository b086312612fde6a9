"""Round-trip tests: a function recompiled through source -> IR -> source
must behave exactly like the original."""

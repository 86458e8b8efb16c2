"""Strategies written in Python against the plug-in interface (sim.strategy).

The built-ins (random, greedy, heuristic, mc, ismcts) run inside the compiled loop in
sim/engine; this package holds Python ones: the canonical random strategy written
against the interface, and worked examples for designers.
"""

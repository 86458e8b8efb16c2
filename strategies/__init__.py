"""The strategies that ship with sim.

The built-ins (greedy.py, heuristic.py, mc.py, ismcts.py and their search helpers in
search.py) are numba kernels over the engine's state, compiled with the engine's cache
(sim.engine.jit); seats.py dispatches a seat's turn to its policy, and sim/play/compiled.py
joins them with the rules. The random policy is the engine's own canonical turn.
canonical_random.py is the same random strategy written against the Python plug-in
interface (sim.strategy), and examples/ holds worked examples for designers.
"""

"""The compiled rules engine: game state as one NumPy record, rules as numba functions over it."""

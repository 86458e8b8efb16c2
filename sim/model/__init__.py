"""The game in Python terms: configs, rule options, notation, positions, moves, scenarios."""

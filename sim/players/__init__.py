"""Who sits in a seat: the strategy interface, observation, player specs, plug-ins, the guard."""

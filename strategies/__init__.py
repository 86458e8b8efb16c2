"""Strategies beyond the compiled random player (issue 4): the plug-in interface and built-ins."""

"""`python -m sim`: the same as the `sim` command."""

from sim.cli import main

main()

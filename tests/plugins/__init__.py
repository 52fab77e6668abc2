"""Tests of game plugins: the Goofspiel example package (examples/goofspiel) end to end, and
the broken copies the conformance gate must refuse."""

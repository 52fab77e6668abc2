"""The SPRT tool (`arena sprt`): a test's pairs (plan), its file (file) and its run (run);
its statistics are in ``arena.stats``."""

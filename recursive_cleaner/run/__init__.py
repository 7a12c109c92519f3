"""Run: the run's options checks, its start, each attempt's outcome, events, state snapshot, dry
run, the wrap-up after the last chunk, the result."""

"""Run: the run's options checks, state snapshot, dry run, the wrap-up after the last chunk, the
result."""

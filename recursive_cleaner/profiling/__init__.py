"""Profiling: the schema, what each field should look like (from the goals), and each field's
profile."""

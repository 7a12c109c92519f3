"""Model: the prompts, one model client (retries, sleep, stats), the tolerant reply parser, prior
work."""

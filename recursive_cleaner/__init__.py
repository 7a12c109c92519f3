"""recursive_cleaner (temporary lazy init while modules are being written)."""

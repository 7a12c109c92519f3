"""Tests of recursive_cleaner.profiling, one file per module."""

"""Tests of recursive_cleaner.crossrow, one file per module."""

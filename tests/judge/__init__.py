"""Tests of recursive_cleaner.judge, one file per module."""

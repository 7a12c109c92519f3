"""Read: stream records or text from files and DataFrames in chunks; sampling and the holdout
split."""

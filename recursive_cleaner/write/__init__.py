"""Write: cleaning_functions.py in dependency order, quality metrics, the report, state files."""

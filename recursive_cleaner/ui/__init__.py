"""UI: the command line, progress display and notebook helpers: thin layers over the library."""

"""Judge: the sandbox (the only place generated code runs), validation, the acceptance gate,
reflection."""

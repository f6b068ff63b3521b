"""Generated personal folders for the answer benchmark (README.md)."""

"""`python -m assistant.cli`, as `assistant`."""

from . import main

main()

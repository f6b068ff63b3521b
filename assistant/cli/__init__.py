"""Command line: `assistant [tui]|index|ask|search|watch|status|forget|retrievers|models|doctor|eval|export`.

A thin shell over the library: the group and the helpers all commands share live in
app.py, the commands in one module per domain. Importing this package imports every
command module, which is what registers their commands on `main` (the console script
`assistant.cli:main`)."""

from . import ask_commands, check_commands, conversation_commands, index_commands, model_commands
from .answer_output import StreamPrinter
from .app import DISK_EXIT, main
from .index_commands import watch_report

__all__ = ["DISK_EXIT", "StreamPrinter", "main", "watch_report",
           "ask_commands", "check_commands", "conversation_commands", "index_commands", "model_commands"]

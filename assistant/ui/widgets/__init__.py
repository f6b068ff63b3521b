"""The main screen's widgets, one per domain: conversations, chat, sources, status."""

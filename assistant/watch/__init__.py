"""Folder watching: keep the index in step with folders as files come, change, move and go.

The rooms: watcher.py (`FolderWatcher`: roots, event intake, the quiet period and the
worker that calls back; its module docstring tells the design), events.py (`counts`: which
events count), observers.py (how one root is watched: file events, or polling).
"""

from .events import counts, is_temporary
from .watcher import FolderWatcher

__all__ = ["FolderWatcher", "counts", "is_temporary"]

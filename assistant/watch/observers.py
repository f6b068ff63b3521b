"""How one root is watched: watchdog's observer of file events, or, when the OS refuses
the watch or the folders nest too deep for it, the polling observer (snapshots as deep as
the walk goes), with a notice that says why. Apart from the watcher, which decides when a
root is watched and what its events lead to, not how the OS is asked."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Callable

from watchdog.events import FileSystemEvent, FileSystemEventHandler
from watchdog.observers import Observer
from watchdog.observers.polling import PollingObserverVFS

from ..ingest.walk import MAX_DEPTH
from .events import EVENT_TYPES


class Root:
    """One watched root: its observer and how it watches."""

    def __init__(self, path: Path):
        self.path = path
        self.key = str(path)
        self.is_file = path.is_file()
        # A file is watched through its folder (inotify watches survive no rename of the
        # file itself), and only events for that file count.
        self.watch_dir = str(path.parent) if self.is_file else self.key
        self.observer = None
        self.mode = ""
        self.paused = False
        self.lost = False  # the watched folder itself was deleted or moved away


class _Handler(FileSystemEventHandler):
    def __init__(self, on_event: Callable[[Root, FileSystemEvent], None], root: Root):
        self.on_event, self.root = on_event, root

    def dispatch(self, event: FileSystemEvent) -> None:
        self.on_event(self.root, event)


def start_observer(root: Root, on_event: Callable[[Root, FileSystemEvent], None], force_polling: bool,
                   poll_interval_s: float, notice: Callable[[str], None]) -> tuple[object, str]:
    """An observer started on `root` that hands its events to `on_event`, and its mode:
    "events", or "polling" where the OS refused the watch (or `force_polling`)."""
    if not os.path.isdir(root.watch_dir):
        raise FileNotFoundError(f"cannot watch {root.key}: no such folder")
    observer = None
    if not force_polling:
        try:
            observer = _started(Observer(), root, on_event)
            mode = "events"
        except OSError as exc:
            if not os.path.isdir(root.watch_dir):
                raise
            notice(
                f"watching {root.key} by periodic rescan: the OS refused more file watches "
                f"({exc.strerror or exc}; on Linux, raise fs.inotify.max_user_watches or "
                f"max_user_instances to get instant updates)"
            )
        except RecursionError:  # watchdog's inotify walk recurses once per folder level
            notice(
                f"watching {root.key} by periodic rescan: its folders nest too deep for file "
                f"events (documents are looked for {MAX_DEPTH} levels down)"
            )
    if observer is None:
        # Its snapshots list folders as deep as the walk goes, no deeper (they recurse
        # once per level: a tree 1,500 levels deep ended the polling thread).
        polling = PollingObserverVFS(os.stat, _listdir_to(root.watch_dir, MAX_DEPTH),
                                     polling_interval=poll_interval_s)
        observer = _started(polling, root, on_event)
        mode = "polling"
    return observer, mode


def _started(observer, root: Root, on_event: Callable[[Root, FileSystemEvent], None]):
    observer.name = f"assistant-watch-observer {root.key}"
    observer.schedule(_Handler(on_event, root), root.watch_dir, recursive=not root.is_file, event_filter=EVENT_TYPES)
    try:
        observer.start()  # raises OSError when the OS refuses the watch
    except BaseException:
        # Stopping a never-started observer still ends what it set up: the inotify
        # observer's reader thread and file descriptors, its emitters.
        observer.stop()
        raise
    return observer


def _listdir_to(top: str, depth: int):
    """os.scandir for the folders at most `depth` levels below `top`; deeper, nothing."""
    base = top.rstrip(os.sep).count(os.sep)

    def listdir(path: str):
        if path.rstrip(os.sep).count(os.sep) - base > depth:
            return iter(())
        return os.scandir(path)

    return listdir

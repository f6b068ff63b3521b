"""What a zip container (DOCX, EPUB, XLSX, ODT, PPTX...) unpacks to, read from its
directory before it is opened: a file that would unpack past the size budget, or far past
its own size (a compression bomb), is not read."""

from __future__ import annotations

from pathlib import Path

# Formats that are zip archives: their size on disk says little about what reading them
# costs (a 240 KB DOCX can hold 40 MB of text). The archive's directory says what each
# member unpacks to, and zipfile never unpacks a member past that size.
ZIP_CONTAINERS = frozenset({".docx", ".epub", ".xlsx", ".xlsm", ".pptx", ".odt", ".ods", ".odp"})
# Real office files unpack to a few times their size (text-heavy XML, ten or twenty
# times); far beyond that the archive is built to expand.
BOMB_RATIO = 100
BOMB_MIN_MB = 10


def unpacked_size(path: Path) -> int | None:
    """What the zip container at `path` unpacks to, in bytes, by its directory; None when
    it is no zip container or its directory cannot be read (the loader says why)."""
    if Path(path).suffix.lower() not in ZIP_CONTAINERS:
        return None
    import zipfile

    try:
        with zipfile.ZipFile(path) as z:
            return sum(info.file_size for info in z.infolist())
    except (OSError, zipfile.BadZipFile, ValueError, EOFError):
        return None


def too_large_unpacked(path: Path, size_on_disk: int, max_mb: int) -> str | None:
    """Why a zip container is not read (what it unpacks to is over `max_mb`, or over
    BOMB_RATIO times its size on disk), or None."""
    unpacked = unpacked_size(path)
    if unpacked is None:
        return None
    mb = unpacked / (1024 * 1024)
    if unpacked > max_mb * 1024 * 1024:
        return f"unpacks to {mb:,.0f} MB, over {max_mb} MB (the max_file_mb setting); skipped"
    ratio = unpacked / max(size_on_disk, 1)
    if ratio > BOMB_RATIO and mb > BOMB_MIN_MB:
        return f"unpacks to {mb:,.0f} MB, {ratio:,.0f} times its size (a compression bomb?); skipped"
    return None

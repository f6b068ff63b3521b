"""Loaders for e-mail (a message saved as .eml, a mailbox as .mbox) and calendars (.ics).

Registered with ``loaders.register`` when the ingest package is imported (its
``__init__`` imports this module; ``loaders`` itself never does, so there is no cycle).

A message reads as its From, To, Cc, Date and Subject lines, then its body (the plain
text part, else the HTML one as text), then the names of its attachments. A single
message's attachments that are documents of a supported type are read too, each as a
document of its own (`LoadedDocument.attachments`), indexed under `MESSAGE.eml/NAME` and
cited with its own pages ("report.pdf, p. 3"); one that cannot be read is noted after the
message, and a forwarded message is read as part of it. In a mailbox each message is a
page (message 3 is p. 3), opened by its "Message N" line, and its attachments are
documents at `BOX.mbox/message N/NAME`, up to MAILBOX_ATTACHMENTS_MB in all (a mailbox
is one file, read under one file's time budget; those past it are named, not read).

A calendar reads as one paragraph per event (or task), opened by a sentence that says
what, when and where ("Event: Dentist check-up, Tuesday 5 March 2024, 09:30 to 10:15,
at Smile Clinic."). Events are not pages: their order in an export is arbitrary, and
"p. 734" would tell a person less than the summary and the date that open the cited
paragraph.

The parsers: the standard library's email package (policy.default: decoded headers,
MIME parts, charsets) and icalendar (RFC 5545: folded lines, time zones, recurrences).
"""

from __future__ import annotations

import datetime as dt
import hashlib
import io
import itertools
import re
import zipfile
from dataclasses import replace
from pathlib import PurePath
from typing import TYPE_CHECKING

from .html_text import html_to_text
from .locator import ENTRY_KINDS, entry_opening
from .loaders import (
    LOADERS,
    Attachment,
    LoadedDocument,
    LoadError,
    NoText,
    decode_bytes,
    join_pages,
    normalise,
    one_line,
    looks_binary,
    register,
)
from .zip_containers import BOMB_RATIO, ZIP_CONTAINERS

if TYPE_CHECKING:  # the email package is imported when a message is read (start-up time)
    from email.message import EmailMessage

HEADERS = ("From", "To", "Cc", "Date", "Subject")
# An attachment is read when it is no larger than this (and a zip container among them
# unpacks to no more than ATTACHMENT_UNPACKED_MB); its text is kept up to ATTACHMENT_CHARS.
ATTACHMENT_MB = 20
ATTACHMENT_UNPACKED_MB = 100
ATTACHMENT_CHARS = 1_000_000
# What a whole mailbox's attachments may come to; those past it are only named.
MAILBOX_ATTACHMENTS_MB = 50
# Mail in a mail: read as an attachment of its own, but not its attachments.
_NOT_ATTACHED = frozenset({".eml", ".mbox"})


def _header(msg: EmailMessage, name: str) -> str:
    try:
        value = msg.get(name)
        return " ".join(str(value).split()) if value is not None else ""
    except Exception:  # a header the parser cannot make sense of: left out, the message is read
        return ""


def _body(msg: EmailMessage) -> str:
    """The message's text: its plain text part, else its HTML part as text."""
    part = msg.get_body(preferencelist=("plain", "html"))
    if part is None:
        return ""
    try:
        content = part.get_content()
    except (LookupError, UnicodeError):  # an unknown or lying charset: detect it instead
        content = decode_bytes(part.get_payload(decode=True) or b"")
    if not isinstance(content, str):
        return ""
    if part.get_content_subtype() == "html":
        return html_to_text(content)[0]
    return content


def _attachments(msg: EmailMessage) -> list[tuple[str, EmailMessage]]:
    """The named parts that are no part of the body: attachments, and files sent inline
    that are not pictures in the message's HTML."""
    found = []
    for part in msg.walk():
        if part.get_content_type() == "message/rfc822":  # a message forwarded as an attachment
            inner = part.get_payload()[0] if part.get_payload() else None
            subject = _header(inner, "Subject") if inner is not None else ""
            found.append((f'message "{subject}"' if subject else "a message", part))
            continue
        if part.is_multipart():
            continue
        try:
            name = part.get_filename()
        except Exception:
            name = None
        if not name:
            continue
        if part.get_content_disposition() == "inline" and part.get_content_maintype() == "image":
            continue
        found.append((" ".join(name.split()), part))
    return found


def message_text(msg: EmailMessage) -> str:
    """A message as text: its header lines, its body, its attachments' names."""
    lines = [f"{name}: {value}" for name, value in headers(msg).items()]
    blocks = ["\n".join(lines), _body(msg)]
    attached = _attachments(msg)
    if attached:
        blocks.append("Attachments: " + ", ".join(name for name, _ in attached))
    return "\n\n".join(b for b in blocks if b.strip())


def headers(msg: EmailMessage) -> dict[str, str]:
    """The header lines a message is read with (From, To, Cc, Date, Subject), those it has."""
    return {name: value for name in HEADERS if (value := _header(msg, name))}


class _Allowance:
    """The bytes of attachments a file may still read (a mailbox's are shared by its messages)."""

    def __init__(self, mb: float | None = None):
        self.left = None if mb is None else int(mb * 1024 * 1024)

    def take(self, size: int) -> bool:
        if self.left is None:
            return True
        if size > self.left:
            return False
        self.left -= size
        return True


def _read_attached(msg: EmailMessage, allowance: _Allowance | None = None) -> tuple[list[str], list[Attachment]]:
    """What follows a message's text: a forwarded message (the words of the mail itself),
    and a note for each attachment that could not be read; and the attachments of a type we
    read, each a document of its own."""
    allowance = allowance or _Allowance()
    blocks: list[str] = []
    documents: list[Attachment] = []
    taken: set[str] = set()
    for name, part in _attachments(msg):
        if part.get_content_type() == "message/rfc822":
            inner = part.get_payload()[0] if part.get_payload() else None
            text = message_text(inner) if inner is not None else ""
            if text.strip():
                blocks.append(f"Attached message:\n\n{text[:ATTACHMENT_CHARS]}")
            continue
        try:
            found = _attachment(name, part, allowance)
        except NoText:  # a photo with no words: nothing to say of it
            continue
        except LoadError as exc:
            blocks.append(f"Attachment: {name} (not read: {one_line(exc)})")
            continue
        except Exception as exc:  # a parser's bug must not cost the message
            blocks.append(f"Attachment: {name} (not read: {type(exc).__name__})")
            continue
        if found is not None:
            data, document = found
            stored = file_name(name, taken)
            taken.add(stored)
            documents.append(Attachment(stored, hashlib.sha256(data).hexdigest(), len(data), document))
    return blocks, documents


def _attachment(name: str, part: EmailMessage, allowance: _Allowance) -> tuple[bytes, LoadedDocument] | None:
    """An attached document's bytes and text; None when it is of no type we read, or empty.
    LoadError, with the reason, when it is too large, unpacks too far, or the file's
    allowance of attachments is spent."""
    suffix = PurePath(name).suffix.lower()
    loader = LOADERS.get(suffix)
    if loader is None or suffix in _NOT_ATTACHED:
        return None
    data = part.get_payload(decode=True) or b""
    if not data:
        return None
    if len(data) > ATTACHMENT_MB * 1024 * 1024:
        raise LoadError(f"larger than {ATTACHMENT_MB} MB, the limit for an attachment")
    unpacked = _unpacked_size(suffix, data)
    if unpacked > ATTACHMENT_UNPACKED_MB * 1024 * 1024 or unpacked > BOMB_RATIO * len(data):
        raise LoadError(f"it unpacks to {unpacked / 1024 / 1024:,.0f} MB from {len(data) / 1024:,.0f} KB, "
                        f"past the limit for an attachment (a zip bomb?)")
    if not allowance.take(len(data)):
        raise LoadError(f"the mailbox's attachments past {MAILBOX_ATTACHMENTS_MB} MB are only named")
    document = loader(data)
    if not document.text.strip():
        return None
    document.text = document.text[:ATTACHMENT_CHARS]
    document.pages = [p for p in document.pages if p[1] < len(document.text)]
    document.title = document.title or name
    return data, document


_NOT_IN_A_NAME = re.compile(r"[/\\\x00-\x1f\x7f]")


def file_name(name: str, taken: set[str] = frozenset()) -> str:
    """The name an attachment is indexed under, after its message's path: one path step
    (a "/" sent in a name becomes "_", so "../x" stays inside its message), not in `taken`
    ("notes.pdf", then "notes (2).pdf"), its suffix kept (it says how the file is read)."""
    clean = _NOT_IN_A_NAME.sub("_", name).strip()
    if clean.strip(".") == "":
        clean = "attachment"
    path = PurePath(clean)
    stem, suffix = (path.stem, path.suffix) if path.stem else (clean, "")
    unique, n = clean, 2
    while unique in taken:
        unique, n = f"{stem} ({n}){suffix}", n + 1
    return unique


def _unpacked_size(suffix: str, data: bytes) -> int:
    """What a zip container says its files unpack to (0 for any other file): checked against
    ATTACHMENT_UNPACKED_MB and BOMB_RATIO times its size before it is opened."""
    if suffix not in ZIP_CONTAINERS:
        return 0
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as z:
            return sum(info.file_size for info in z.infolist())
    except (zipfile.BadZipFile, ValueError, EOFError, OSError):
        return 0  # the loader says what is wrong with it


def _message(raw: bytes) -> EmailMessage:
    import email
    from email import policy

    return email.message_from_bytes(raw, policy=policy.default)


def _parse(data: bytes) -> EmailMessage:
    if looks_binary(data):
        raise ValueError("binary content, not a message")
    msg = _message(data)
    if not any(_header(msg, name) for name in (*HEADERS, "Message-ID")):
        raise ValueError("no message headers (From, To, Date, Subject)")
    return msg


@register("e-mail message", ".eml")
def _load_eml(data: bytes) -> LoadedDocument:
    msg = _parse(data)
    notes, attachments = _read_attached(msg)
    text = normalise("\n\n".join([message_text(msg), *notes]))
    return LoadedDocument(text=text, pages=[], title=_header(msg, "Subject") or None, attachments=attachments)


# A message in an mbox starts at a "From " line at the file's start or after a blank line
# (a "From " line inside a body is written ">From " by the mail program, or would still
# have text right above it).
_SEPARATOR = re.compile(rb"(?:\A|\n\r?\n)From [^\n]*\n")
_ESCAPED_FROM = re.compile(rb"^>(>*From )", re.M)


@register("mailbox", ".mbox")
def _load_mbox(data: bytes) -> LoadedDocument:
    data = data.lstrip(b"\r\n")
    if not data.startswith(b"From "):
        raise ValueError("it does not start with a 'From ' line (not an mbox mailbox)")
    bounds = [m for m in _SEPARATOR.finditer(data)]
    messages, attachments = [], []
    allowance = _Allowance(MAILBOX_ATTACHMENTS_MB)
    for number, (m, after) in enumerate(zip(bounds, bounds[1:] + [None]), start=1):
        raw = _ESCAPED_FROM.sub(rb"\1", data[m.end():after.start() if after else len(data)])
        try:
            msg = _message(raw)
            notes, attached = _read_attached(msg, allowance)
            text = "\n\n".join([message_text(msg), *notes])
        except Exception as exc:  # one broken message does not cost the mailbox
            text, attached = f"(not read: {one_line(exc)})", []
        messages.append(f"Message {number} of {len(bounds)}\n{text}")
        # Each under its message: "message 3/minutes.pdf" (names are unique per message).
        attachments += [replace(a, name=f"message {number}/{a.name}") for a in attached]
    text, pages = join_pages(messages)
    return LoadedDocument(text=text, pages=pages, title=None, attachments=attachments)


# --- calendars --------------------------------------------------------------------


def _day(d: dt.date) -> str:
    return f"{d:%A} {d.day} {d:%B %Y}"


def _clock(t: dt.datetime) -> str:
    zone = t.tzname() if t.tzinfo is not None else None
    return f"{t:%H:%M}" + (f" ({zone})" if zone else "")


def when(start: dt.date | None, end: dt.date | None) -> str:
    """A start and an end as a person says them: "Tuesday 5 March 2024, 09:30 to 10:15"."""
    if not isinstance(start, dt.date):  # none, or a value the library left unparsed
        return ""
    if not isinstance(end, dt.date):
        end = None
    if not isinstance(start, dt.datetime):  # an all-day event: its end is the day after it
        last = end - dt.timedelta(days=1) if isinstance(end, dt.date) and not isinstance(end, dt.datetime) else None
        return _day(start) if last is None or last <= start else f"{_day(start)} to {_day(last)}"
    if not isinstance(end, dt.datetime) or end == start:
        return f"{_day(start)}, {_clock(start)}"
    if end.date() == start.date():
        if end.tzname() == start.tzname():  # the zone said once: "09:30 to 10:15 (GMT)"
            return f"{_day(start)}, {start:%H:%M} to {_clock(end)}"
        return f"{_day(start)}, {_clock(start)} to {_clock(end)}"
    return f"{_day(start)}, {_clock(start)} to {_day(end)}, {_clock(end)}"


def _decoded(component, name: str):
    try:
        return component.decoded(name) if name in component else None
    except Exception:  # a date the library cannot read: the event is kept without it
        return None


def _event_text(component) -> str:
    kind = ENTRY_KINDS[1] if component.name == "VTODO" else ENTRY_KINDS[0]
    summary = " ".join(str(component.get("SUMMARY", "")).split()) or "(no title)"
    start = _decoded(component, "DTSTART")
    end = _decoded(component, "DTEND") or _decoded(component, "DUE")
    duration = _decoded(component, "DURATION")
    if end is None and isinstance(start, dt.date) and isinstance(duration, dt.timedelta):
        end = start + duration
    parts = [entry_opening(kind, summary), when(start, end)]
    location = " ".join(str(component.get("LOCATION", "")).split())
    if location:
        parts.append(f"at {location}")
    lines = [", ".join(p for p in parts if p) + "."]
    rule = component.get("RRULE")
    if rule and rule.get("FREQ"):
        lines.append(f"Repeats {str(rule['FREQ'][0]).lower()}.")
    if str(component.get("STATUS", "")).upper() == "CANCELLED":
        lines.append("Cancelled.")
    description = str(component.get("DESCRIPTION", "")).strip()
    if description:
        lines.append(description)
    return "\n".join(lines)


def _stamp(value) -> str | None:
    """A start or end as kept: ISO, local wall-clock time (no offset), "date" for a day."""
    if isinstance(value, dt.datetime):
        return value.replace(tzinfo=None).isoformat(timespec="minutes")
    return value.isoformat() if isinstance(value, dt.date) else None


def event_record(component, text: str) -> dict | None:
    """An event as a question computes over it (answer/computed/events.py): its start and
    end in the wall-clock time of its zone (a weekly 17:00 stays 17:00 across a daylight-
    saving change), the zone's name, the recurrence rule and its exceptions as iCalendar
    writes them, and the first line of its text (the sentence its citations point at)."""
    start = _decoded(component, "DTSTART")
    if not isinstance(start, dt.date) or component.name != "VEVENT":
        return None
    end = _decoded(component, "DTEND")
    duration = _decoded(component, "DURATION")
    if not isinstance(end, dt.date) and isinstance(duration, dt.timedelta):
        end = start + duration
    zone = getattr(start, "tzinfo", None)
    rule = component.get("RRULE")
    exdates = []
    for group in component.get("EXDATE", []) if isinstance(component.get("EXDATE"), list) else [component.get("EXDATE")]:
        for d in getattr(group, "dts", []) or []:
            exdates.append(_stamp(d.dt))
    return {
        "kind": "event", "summary": " ".join(str(component.get("SUMMARY", "")).split()) or "(no title)",
        "start": _stamp(start), "end": _stamp(end) if isinstance(end, dt.date) else None,
        "all_day": not isinstance(start, dt.datetime), "zone": str(getattr(zone, "key", "") or (zone.tzname(start) if zone else "")),
        "rule": rule.to_ical().decode() if rule else None, "exdates": [e for e in exdates if e],
        "location": " ".join(str(component.get("LOCATION", "")).split()),
        "cancelled": str(component.get("STATUS", "")).upper() == "CANCELLED",
        "opening": text.split("\n", 1)[0],
    }


# Each event is a unit to parse and embed, as a table's row is (table_text.MAX_ROWS).
MAX_EVENTS = 10_000


@register("iCalendar", ".ics")
def _load_ics(data: bytes) -> LoadedDocument:
    calendar, dropped = _calendar(data)
    entries = (c for c in calendar.walk() if c.name in ("VEVENT", "VTODO"))
    kept, events, records = [], [], []
    for c in itertools.islice(entries, MAX_EVENTS):
        try:  # one event the library read but cannot give back (a BYDAY of "XX") costs only itself
            text = _event_text(c)
            record = event_record(c, text)
        except Exception as exc:
            dropped.append(f"event “{_summary(c)}” ({one_line(str(exc))[:120]})")
            continue
        kept.append(c)
        events.append(text)
        records += [record] if record else []
    more = sum(1 for _ in entries)
    if more:
        dropped.append(f"events past {MAX_EVENTS:,} ({more:,} more), over the limit of {MAX_EVENTS:,} a calendar")
    title = " ".join(str(calendar.get("X-WR-CALNAME", "")).split()) or None
    return LoadedDocument(text=normalise("\n\n".join(events)), pages=[], title=title,
                          left_out="; ".join(dropped) or None, records=records)


def _summary(component) -> str:
    try:
        return " ".join(str(component.get("SUMMARY", "")).split())[:80] or "(no title)"
    except Exception:
        return "(no title)"


def _calendar(data: bytes):
    """The calendar, and a line for each part left out. icalendar refuses the whole file
    for one malformed VTIMEZONE (or any property of a part that is not an event): then
    each part is read on its own, and those it refuses are dropped and named."""
    import icalendar

    try:
        return icalendar.Calendar.from_ical(data), []
    except ValueError as whole:
        head, blocks = _blocks(decode_bytes(data))
        if not blocks:
            raise whole
    good, dropped = [], []
    for block in blocks:  # each on its own: a part's parse does not depend on the others'
        try:
            icalendar.Calendar.from_ical(_wrapped(head, [block]))
            good.append(block)
        except ValueError as exc:
            dropped.append(f"{_part_name(block)} ({one_line(str(exc))[:120]})")
    return icalendar.Calendar.from_ical(_wrapped(head, good)), dropped


def _blocks(text: str) -> tuple[list[str], list[str]]:
    """A calendar's own lines, and its parts (each a VTIMEZONE, VEVENT... with what it
    holds), time zones first as a calendar writes them; lines unfolded (RFC 5545 3.1)."""
    lines = re.sub(r"\r?\n[ \t]", "", text).splitlines()
    head: list[str] = []
    blocks: list[list[str]] = []
    depth = 0
    for line in lines:
        key = line.strip().upper()
        if key in ("BEGIN:VCALENDAR", "END:VCALENDAR"):
            continue
        if key.startswith("BEGIN:") and depth == 0:
            blocks.append([])
        depth += key.startswith("BEGIN:") - key.startswith("END:")
        (blocks[-1] if blocks and (depth > 0 or key.startswith("END:")) else head).append(line)
        depth = max(depth, 0)
    zones_first = sorted(blocks, key=lambda b: not b[0].strip().upper().startswith("BEGIN:VTIMEZONE"))
    return head, ["\r\n".join(b) for b in zones_first]


def _wrapped(head: list[str], blocks: list[str]) -> str:
    return "\r\n".join(["BEGIN:VCALENDAR", *head, *blocks, "END:VCALENDAR", ""])


def _part_name(block: str) -> str:
    """"time zone Europe/Paris", "event “Piano lesson”": a part as a person finds it."""
    kind = block.split("\r\n", 1)[0].split(":", 1)[-1].strip().upper()
    field = "TZID" if kind == "VTIMEZONE" else "SUMMARY"
    m = re.search(rf"^{field}[^:\r\n]*:(.*)$", block, re.MULTILINE | re.IGNORECASE)
    name = m.group(1).strip()[:80] if m else ""
    if kind == "VTIMEZONE":
        return f"time zone {name or '(no TZID)'}"
    return f"{'event' if kind == 'VEVENT' else kind.lower()} “{name or '(no title)'}”"

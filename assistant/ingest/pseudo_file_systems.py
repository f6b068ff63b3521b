"""The kernel's and the devices' file systems (/proc, /sys, ...), known by their mount
points' device numbers: nothing on them is ever read as a document or an ignore file."""

from __future__ import annotations

import functools
import os
import re

# The kernel's and the devices' file systems: their "regular" files are interfaces
# (/proc/self/pagemap has size 0 and reads for minutes), never documents.
PSEUDO_FILE_SYSTEMS = frozenset({
    "proc", "sysfs", "devtmpfs", "devpts", "debugfs", "tracefs", "securityfs", "cgroup", "cgroup2",
    "pstore", "bpf", "configfs", "efivarfs", "fusectl", "mqueue", "hugetlbfs", "rpc_pipefs", "nsfs",
    "selinuxfs",
})
PSEUDO_PREFIXES = ("/proc/", "/sys/")


def pseudo_devices() -> frozenset[int]:
    """The device numbers of the kernel's file systems mounted here (/proc, /sys, ...)."""
    points = ["/proc", "/sys"]
    try:
        with open("/proc/self/mounts", encoding="utf-8", errors="replace") as f:
            for line in f:
                fields = line.split()
                if len(fields) >= 3 and fields[2] in PSEUDO_FILE_SYSTEMS:
                    # The mount table writes a space, a tab, a newline and a backslash in octal.
                    points.append(re.sub(r"\\([0-7]{3})", lambda m: chr(int(m.group(1), 8)), fields[1]))
    except OSError:
        pass
    devices = set()
    for point in points:
        try:
            devices.add(os.stat(point).st_dev)
        except OSError:
            pass
    return frozenset(devices)


@functools.lru_cache(maxsize=1)
def pseudo_devices_cached() -> frozenset[int]:
    return pseudo_devices()

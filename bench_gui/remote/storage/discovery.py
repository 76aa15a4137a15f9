"""Discovery: the block devices of a host and what uses them, read without changing anything.

:func:`discover` lists the host's block devices (``lsblk -J``, parsed by the inventory's
parser) with the evidence of every current use, each from where it was read: mounts
(``/proc/self/mountinfo`` by major:minor and source), the root and boot filesystems' devices
(through ``slaves``/``holders`` and partition parents), ``/proc/swaps``, ``/proc/mdstat``,
non-empty ``/sys/class/block/*/holders``, signatures probed with ``blkid -p`` one device at a
time (filesystems, partition tables, RAID, LVM, ZFS and LUKS members, members of a mounted
multi-device btrfs: one ``blkid -p`` over several devices stops at the first that has none,
util-linux 2.38, so the devices after it would look empty), an ``O_EXCL`` open run on the host,
which the kernel refuses for any device something holds exclusively, and finally a process scan
run as root (parsed by :mod:`bench_gui.core.open_handles`): every process's open files and
memory maps, so a device merely held open (``exec 3</dev/sdb``, a ``dd`` reading it) is refused
with the pid and command that hold it. A scan that could not read every process is itself a
refusal, unless the user accepts it explicitly.

Every command is an argument list run through the session (SSH, or :class:`LocalShell` for
this machine), so it lands in the command log and never passes through a shell with user data
in it: the two fixed scripts here take device names as arguments (``"$@"``), never as text.
"""

from __future__ import annotations

import json
import time
from typing import Any, Final

from bench_gui.core.open_handles import HandleScan, failed_scan, parse_handle_scan
from bench_gui.remote.errors import CommandTimeout, NoSudo
from bench_gui.remote.inventory import parse_lsblk_json
from bench_gui.remote.storage.devices import CANDIDATE_TYPES, Discovery
from bench_gui.remote.storage.errors import StorageError
from bench_gui.remote.storage.evidence import analyse
from bench_gui.remote.storage.parsers import parse_blkid_export, parse_blkid_probes, parse_excl
from bench_gui.remote.storage.runner import Runner

LSBLK_COLUMNS: Final = (
    "NAME,KNAME,PATH,TYPE,SIZE,MODEL,SERIAL,ROTA,TRAN,REV,FSTYPE,MOUNTPOINTS,PKNAME,MAJ:MIN,RO"
)
# util-linux before 2.37 has MOUNTPOINT (one) instead of MOUNTPOINTS.
LSBLK_FALLBACK: Final = (
    "NAME,KNAME,PATH,TYPE,SIZE,MODEL,SERIAL,ROTA,TRAN,REV,FSTYPE,MOUNTPOINT,PKNAME,MAJ:MIN,RO"
)
TOOLS: Final = (
    "mdadm",
    "mkfs.xfs",
    "mkfs.ext4",
    "mkfs.btrfs",
    "btrfs",
    "blkdiscard",
    "wipefs",
    "blkid",
    "blockdev",
    "nvme",
    "sg_sanitize",
    "hdparm",
    "rsync",
    "python3",
    "perl",
)

# Everything about the host but lsblk and blkid in one round trip: a fixed script, no data
# of ours in it. Sections start with "@@name"; sysfs facts are "key device value" lines.
_FACTS_SCRIPT: Final = r"""
printf '@@mountinfo\n'; cat /proc/self/mountinfo 2>/dev/null
printf '@@swaps\n'; cat /proc/swaps 2>/dev/null
if [ -r /proc/mdstat ]; then printf '@@mdstat\n'; cat /proc/mdstat; fi
printf '@@rootdev\n'; stat -c '%d' / 2>/dev/null
printf '@@hostname\n'; uname -n
printf '@@sysfs\n'
for d in /sys/class/block/*; do
  [ -e "$d" ] || continue
  n=${d##*/}
  printf 'dev %s %s\n' "$n" "$(cat "$d/dev" 2>/dev/null)"
  if [ -e "$d/partition" ]; then
    p=$(readlink -f "$d"); p=${p%/*}; printf 'parent %s %s\n' "$n" "${p##*/}"
  fi
  for h in "$d"/holders/*; do [ -e "$h" ] && printf 'holder %s %s\n' "$n" "${h##*/}"; done
  for s in "$d"/slaves/*; do [ -e "$s" ] && printf 'slave %s %s\n' "$n" "${s##*/}"; done
  [ -r "$d/queue/scheduler" ] && printf 'scheduler %s %s\n' "$n" "$(cat "$d/queue/scheduler")"
  for f in discard_max_bytes write_zeroes_max_bytes read_ahead_kb rotational; do
    [ -r "$d/queue/$f" ] && printf '%s %s %s\n' "$f" "$n" "$(cat "$d/queue/$f")"
  done
  [ -r "$d/ro" ] && printf 'ro %s %s\n' "$n" "$(cat "$d/ro")"
  [ -e "$d/device/scsi_device" ] && printf 'scsi %s 1\n' "$n"
done
printf '@@tools\n'
for t do command -v "$t" >/dev/null 2>&1 && printf '%s\n' "$t"; done
printf '@@end\n'
"""
# Signatures, each device probed on its own (one blkid over several stops at the first device
# without any). blkid's output goes straight out; its exit status (0 found, 2 nothing found,
# anything else: it could not tell) and first error line follow each device's.
_BLKID_SCRIPT: Final = r"""
exec 3>&1
for d do
  printf '@@dev %s\n' "$d"
  err=$(LC_ALL=C blkid -p -o export -- "$d" 2>&1 >&3); rc=$?
  printf '\n@@rc %s %s\n' "$rc" "$(printf '%s' "$err" | head -n 1)"
done
printf '@@end\n'
"""
# The exclusive-open test: O_EXCL on a block device fails (EBUSY) while anything holds it.
_EXCL_PYTHON: Final = r"""
import os, sys
for d in sys.argv[1:]:
    try:
        fd = os.open(d, os.O_RDONLY | os.O_EXCL | os.O_NONBLOCK)
    except OSError as e:
        print(d, e.errno, e.strerror)
    else:
        os.close(fd)
        print(d, "ok")
"""
_EXCL_PERL: Final = r"""
use Fcntl;
for my $d (@ARGV) {
  if (sysopen(my $fh, $d, O_RDONLY | O_EXCL | O_NONBLOCK)) { close($fh); print "$d ok\n"; }
  else { printf "%s %d %s\n", $d, $! + 0, "$!"; }
}
"""
# Who holds a device open without holding it exclusively (parsed by core.open_handles): every
# process's open files that point into /dev (their device numbers, by stat through the magic
# link: no file is opened, and nothing outside /dev is stat'ed, so a hung network mount cannot
# hang it), the memory maps that name one of the devices given as arguments, the commands of
# those processes, and device-mapper's open counts. Errors stay in their section (2>&1).
_HANDLES_SCRIPT: Final = r"""
export LC_ALL=C
printf '@@uid\n'; id -u
fds=$(find /proc/[0-9]*/fd -mindepth 1 -maxdepth 1 -lname '/dev/*' \
  -exec stat -L -c '%n %f %t %T' -- {} + 2>&1)
maps=
if [ "$#" -gt 0 ]; then
  pat=$(for d do printf ' %s\n' "$d"; done)
  maps=$(grep -H -F -e "$pat" /proc/[0-9]*/maps 2>&1)
fi
printf '@@fds\n%s\n@@maps\n%s\n@@comm\n' "$fds" "$maps"
for p in $(printf '%s\n%s\n' "$fds" "$maps" | sed -n 's#^[^/]*/proc/\([0-9][0-9]*\)/.*#\1#p' \
  | sort -un); do
  c=$(cat "/proc/$p/comm" 2>/dev/null) && printf '%s %s\n' "$p" "$c"
done
printf '@@dmopen\n'
if command -v dmsetup >/dev/null 2>&1; then
  dmsetup info -c --noheadings -o devno,open --separator ' ' 2>/dev/null
fi
printf '@@end\n'
"""


def _sections(text: str) -> dict[str, str]:
    out: dict[str, list[str]] = {}
    current: list[str] | None = None
    for line in text.splitlines():
        if line.startswith("@@"):
            current = out.setdefault(line[2:].strip(), [])
            continue
        if current is not None:
            current.append(line)
    return {k: "\n".join(v) + ("\n" if v else "") for k, v in out.items()}


def _flatten_lsblk(raw_doc: dict[str, Any]) -> list[dict[str, Any]]:
    """Every node of ``lsblk -J`` (children included), parents first; PKNAME filled in."""
    out: list[dict[str, Any]] = []
    parsed = parse_lsblk_json(json.dumps(raw_doc))

    def walk(parsed_nodes: list[dict[str, Any]], raw_nodes: list[Any], parent: str) -> None:
        raws = [r for r in raw_nodes if isinstance(r, dict)]
        for node, raw in zip(parsed_nodes, raws, strict=False):
            entry = dict(node)
            entry.pop("children", None)
            entry["kname"] = str(raw.get("kname") or raw.get("name") or "")
            entry["dev"] = str(raw.get("maj:min") or "")
            entry["pkname"] = str(raw.get("pkname") or "") or parent
            entry["ro"] = raw.get("ro") in (True, 1, "1")
            out.append(entry)
            walk(node.get("children") or [], raw.get("children") or [], entry["kname"])

    walk(parsed, raw_doc.get("blockdevices") or [], "")
    return out


def _lsblk(runner: Runner, notes: list[str]) -> dict[str, Any]:
    last = ""
    for columns in (LSBLK_COLUMNS, LSBLK_FALLBACK):
        result = runner.run(["lsblk", "-J", "-b", "-o", columns], timeout=60)
        if result.ok:
            try:
                doc = json.loads(result.stdout)
            except ValueError as exc:
                raise StorageError(f"lsblk -J printed something else than JSON: {exc}") from None
            return doc if isinstance(doc, dict) else {}
        last = result.first_error_line()
        if result.exit_status == 127:
            break
    raise StorageError(f"cannot list the block devices of {runner.label}: lsblk: {last}")


def _signatures(runner: Runner, paths: list[str], notes: list[str]) -> dict[str, dict[str, str]]:
    """``blkid -p`` of every device on its own; a device it could not probe gets
    ``PROBE_ERROR`` (the evidence refuses it as one that may hold data)."""
    try:
        result = runner.run(["sh", "-c", _BLKID_SCRIPT, "sh", *paths], sudo=True, timeout=120)
    except NoSudo as exc:
        notes.append(f"blkid -p needs root: {exc}")
        return {p: {"PROBE_ERROR": "blkid -p needs root"} for p in paths}
    out: dict[str, dict[str, str]] = {}
    for path, (text, status, error) in parse_blkid_probes(result.stdout).items():
        found = parse_blkid_export(text).get(path, {})
        if status not in ("0", "2"):
            found["PROBE_ERROR"] = f"blkid -p exit status {status}" + (
                f": {error}" if error else ""
            )
        out[path] = found
    for path in paths:
        if path not in out:
            error = result.first_error_line() or "no answer"
            out[path] = {"PROBE_ERROR": f"blkid -p did not report on it ({error})"}
    return out


def _excl_test(
    runner: Runner, paths: list[str], tools: list[str], notes: list[str]
) -> dict[str, str]:
    if not paths:
        return {}
    if "python3" in tools:
        argv = ["python3", "-c", _EXCL_PYTHON, *paths]
    elif "perl" in tools:
        argv = ["perl", "-e", _EXCL_PERL, *paths]
    else:
        notes.append("no python3 or perl on the host: the exclusive-open test could not run")
        return {p: "untested: no python3 or perl on the host" for p in paths}
    try:
        result = runner.run(argv, sudo=True, timeout=60)
    except NoSudo as exc:
        notes.append(f"the exclusive-open test needs root: {exc}")
        return {p: "untested: no root access" for p in paths}
    found = parse_excl(result.stdout)
    if not result.ok and not found:
        notes.append(f"exclusive-open test failed: {result.first_error_line()}")
    return {p: found.get(p, f"untested: {result.first_error_line()}") for p in paths}


def _handle_scan(runner: Runner, paths: list[str], notes: list[str]) -> HandleScan:
    """Read, as root where possible, which processes hold the host's devices open."""
    argv = ["sh", "-c", _HANDLES_SCRIPT, "sh", *paths]
    try:
        try:
            result = runner.run(argv, sudo=True, timeout=60)
        except NoSudo as exc:
            notes.append(f"the process scan needs root to see every process: {exc}")
            result = runner.run(argv, timeout=60)
        if "@@end" not in result.stdout and result.exit_status == 127:  # no sudo at all here
            result = runner.run(argv, timeout=60)
    except CommandTimeout:
        return failed_scan("the process scan did not finish in 60 s")
    if "@@end" not in result.stdout:
        return failed_scan(f"the process scan failed: {result.first_error_line()}")
    scan = parse_handle_scan(result.stdout)
    if not scan.complete:
        notes.append(f"open handles: {scan.problem()}")
    return scan


def discover(runner: Runner, *, exclusive_test: bool = True) -> Discovery:
    """The host's block devices with the evidence of their use (read-only: changes nothing).

    ``exclusive_test`` also runs the open tests: the ``O_EXCL`` open and the process scan.
    """
    notes: list[str] = []
    doc = _lsblk(runner, notes)
    facts = runner.run(["sh", "-c", _FACTS_SCRIPT, "sh", *TOOLS], timeout=60)
    if "@@end" not in facts.stdout:
        raise StorageError(
            f"cannot read the block device facts of {runner.label}: {facts.first_error_line()}"
        )
    sections = _sections(facts.stdout)
    tools = sections.get("tools", "").split()
    nodes = _flatten_lsblk(doc)
    probe = [
        str(n["path"])
        for n in nodes
        if n.get("type") in CANDIDATE_TYPES and (n.get("size_bytes") or 0) > 0 and n.get("path")
    ]
    signatures: dict[str, dict[str, str]] = {}
    if probe and "blkid" in tools:
        signatures = _signatures(runner, probe, notes)
    elif probe:
        notes.append("blkid is missing: signatures come from lsblk only")
    excl = _excl_test(runner, probe, tools, notes) if exclusive_test else {}
    handles = None
    if exclusive_test:
        names = [str(n["path"]) for n in nodes if n.get("path")]
        names += [f"/dev/{n['kname']}" for n in nodes if n.get("kname")]
        handles = _handle_scan(runner, list(dict.fromkeys(names)), notes)
    disc = analyse(
        nodes,
        sections,
        signatures,
        excl,
        tools,
        host=(sections.get("hostname", "").strip() or runner.host),
        notes=notes,
        handles=handles,
    )
    disc.collected_at = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    return disc

#!/usr/bin/env bash
# Runs one command in a fresh Linux guest (QEMU, software emulation) that has an emulated NVMe ZNS
# namespace, and exits with the command's exit code. See docs/guest.md.
#
#   scripts/guest/run-in-guest.sh [--repo DIR] [--results DIR] [--timeout SECONDS] -- COMMAND...
#
# The guest sees the host's root file system read-only (so the host's JDK and the repository's
# build output run unchanged), chroots into it, cds into DIR (default: this repository) and runs
# COMMAND with bash. The results dir (default DIR/build/guest) is shared writable at the same path.
# Exit codes: COMMAND's own; 124 when the timeout (default 600 s) ended the guest; 125 when the
# guest could not start or died before COMMAND finished.
# Environment: ZKV_GUEST_MEM (default 2G), ZKV_GUEST_CPUS (default 2), ZKV_GUEST_ACCEL (default tcg;
# KVM does not work on the machines this was written on), ZKV_GUEST_CACHE (see build-guest.sh).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
results=""
timeout_s=600
usage() {
  sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 2
}
while [ $# -gt 0 ]; do
  case "$1" in
    --repo) repo=$(cd "$2" && pwd) && shift 2 ;;
    --results) results=$2 && shift 2 ;;
    --timeout) timeout_s=$2 && shift 2 ;;
    --) shift && break ;;
    *) usage ;;
  esac
done
[ $# -gt 0 ] || usage
results=${results:-$repo/build/guest}
mkdir -p "$results"
results=$(cd "$results" && pwd)

cache=$("$here/build-guest.sh")
kernel=$cache/vmlinux
[ -f "$kernel" ] || kernel=$cache/vmlinuz

# Per-boot scratch: the namespace's backing image and the control share. /dev/shm keeps the image
# in memory; QEMU does not persist zone state across boots anyway.
scratch_parent=/dev/shm
[ -w "$scratch_parent" ] || scratch_parent=${TMPDIR:-/tmp}
scratch=$(mktemp -d "$scratch_parent/zkv-guest.XXXXXX")
trap 'rm -rf "$scratch"' EXIT
mkdir "$scratch/ctl"
# The agreed geometries (docs/guest.md), 4 KiB LBAs: namespace 1, 32 zones of 4 MiB with 3 MiB
# capacity; namespace 2, 16 zones of 4 MiB with capacity equal to size (QEMU's and null_blk's
# default, where the next zone starts right where a zone's writable space ends).
truncate -s 128M "$scratch/zns.img"
truncate -s 64M "$scratch/zns2.img"
# Namespaces 3-6: the NVM Sets of a drive, one namespace each, for a plmarray: (docs/plm.md).
for ns in 3 4 5 6; do truncate -s 64M "$scratch/zns$ns.img"; done

# busybox sh reads env: single-quote the values.
squote() { printf "'%s'" "${1//\'/\'\\\'\'}"; }
{
  echo "ZKV_REPO=$(squote "$repo")"
  echo "ZKV_RESULTS=$(squote "$results")"
} >"$scratch/ctl/env"
# bash runs command.sh inside the chroot, so printf %q quoting is safe there.
{
  echo "export PATH=$(printf %q "$PATH") HOME=$(printf %q "$HOME") LANG=C.UTF-8 TERM=dumb"
  echo "export ZKV_GUEST=1 ZKV_GUEST_RESULTS=$(printf %q "$results")"
  echo "cd $(printf %q "$repo") || exit 127"
  printf 'exec'
  printf ' %q' "$@"
  echo
} >"$scratch/ctl/command.sh"

if [ "${ZKV_GUEST_ACCEL:-tcg}" = kvm ]; then
  accel=(-accel kvm -cpu host)
else
  # thread=single: one host thread emulates both vCPUs in turn. With QEMU's default multi-threaded
  # TCG, a JVM in the guest crashed now and then (SIGSEGV right after HotSpot patched a method
  # entry: about 5 in 60 runs, none with one thread); the guest still has 2 CPUs, so concurrent
  # appends still race.
  accel=(-accel tcg,thread=single -cpu max)
fi
p9=(security_model=none multidevs=remap)
# loglevel=3: the console shows critical kernel messages only; the tests' deliberate invalid
# commands log I/O errors that would read like failures (the whole log is saved, see init).
# -nic none: the tests need no network. multidevs=remap: the host root spans several file systems;
# without it 9p inode numbers collide and the guest fails to load the JDK's shared libraries.
# qboot (from qemu-system-data) is a minimal firmware: it boots faster than SeaBIOS and prints nothing.
firmware=()
[ -f /usr/share/qemu/qboot.rom ] && firmware=(-bios qboot.rom)
qemu=(qemu-system-x86_64 "${firmware[@]}" "${accel[@]}" -machine q35 -smp "${ZKV_GUEST_CPUS:-2}" -m "${ZKV_GUEST_MEM:-2G}"
  -nographic -no-reboot -nic none
  -kernel "$kernel" -initrd "$cache/initramfs.cpio.gz"
  -append "console=ttyS0 panic=-1 quiet loglevel=3"
  -device "nvme,id=nvme0,serial=zkv0,zoned.zasl=5"
  -drive "file=$scratch/zns.img,id=zns,format=raw,if=none"
  -device "nvme-ns,drive=zns,bus=nvme0,nsid=1,logical_block_size=4096,physical_block_size=4096,zoned=true,zoned.zone_size=4M,zoned.zone_capacity=3M,zoned.max_open=4,zoned.max_active=6"
  -drive "file=$scratch/zns2.img,id=zns2,format=raw,if=none"
  -device "nvme-ns,drive=zns2,bus=nvme0,nsid=2,logical_block_size=4096,physical_block_size=4096,zoned=true,zoned.zone_size=4M,zoned.zone_capacity=0,zoned.max_open=4,zoned.max_active=6"
  -drive "file=$scratch/zns3.img,id=zns3,format=raw,if=none"
  -device "nvme-ns,drive=zns3,bus=nvme0,nsid=3,logical_block_size=4096,physical_block_size=4096,zoned=true,zoned.zone_size=4M,zoned.zone_capacity=0,zoned.max_open=14,zoned.max_active=16"
  -drive "file=$scratch/zns4.img,id=zns4,format=raw,if=none"
  -device "nvme-ns,drive=zns4,bus=nvme0,nsid=4,logical_block_size=4096,physical_block_size=4096,zoned=true,zoned.zone_size=4M,zoned.zone_capacity=0,zoned.max_open=14,zoned.max_active=16"
  -drive "file=$scratch/zns5.img,id=zns5,format=raw,if=none"
  -device "nvme-ns,drive=zns5,bus=nvme0,nsid=5,logical_block_size=4096,physical_block_size=4096,zoned=true,zoned.zone_size=4M,zoned.zone_capacity=0,zoned.max_open=14,zoned.max_active=16"
  -drive "file=$scratch/zns6.img,id=zns6,format=raw,if=none"
  -device "nvme-ns,drive=zns6,bus=nvme0,nsid=6,logical_block_size=4096,physical_block_size=4096,zoned=true,zoned.zone_size=4M,zoned.zone_capacity=0,zoned.max_open=14,zoned.max_active=16"
  -virtfs "local,path=/,mount_tag=hostroot,readonly=on,$(IFS=,; echo "${p9[*]}")"
  -virtfs "local,path=$results,mount_tag=results,$(IFS=,; echo "${p9[*]}")"
  -virtfs "local,path=$scratch/ctl,mount_tag=ctl,$(IFS=,; echo "${p9[*]}")")

echo "run-in-guest: booting $(basename "$kernel") (${ZKV_GUEST_ACCEL:-tcg}) for: $*" >&2
start=$SECONDS
qemu_rc=0
timeout -k 10 "$timeout_s" "${qemu[@]}" </dev/null || qemu_rc=$?
if [ "$qemu_rc" -eq 124 ] || [ "$qemu_rc" -eq 137 ]; then
  echo "run-in-guest: timed out after ${timeout_s}s" >&2
  exit 124
fi
if [ ! -s "$scratch/ctl/rc" ]; then
  echo "run-in-guest: the guest stopped before the command finished (qemu exit $qemu_rc)" >&2
  exit 125
fi
rc=$(cat "$scratch/ctl/rc")
echo "run-in-guest: exit $rc, $((SECONDS - start))s from QEMU start to power-off" >&2
exit "$rc"

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# boot.sh VMLINUZ MODDIR OUTDIR -- CMD [ARGS...]: boots VMLINUZ under QEMU
# (KVM where it answers, else TCG) with the host's root filesystem shared
# read-only over 9p (virtme style: no disk image) as its root, this
# checkout shared read-write at its own path, and runs CMD there as root
# (pid 1), in the checkout, with /proc, /sys, /dev (and /dev/shm), bpffs,
# tracefs, debugfs, a fresh /tmp, HOME in it, /usr/lib/debug writable
# over the host's (overlayfs) and the loopback interface up. The guest's
# console goes to OUTDIR/console.log; CMD's exit status is this script's
# (125 if the guest never said it).
# MODDIR holds the kernel's modules (for a kernel with 9p and virtio as
# modules, as Debian's); "-" for a kernel with them built in.
set -euo pipefail
vmlinuz=$1 moddir=$2 out=$3
shift 3
[ "${1:-}" = -- ] && shift
repo=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$out"
out=$(cd "$out" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# the initramfs: busybox, the modules 9p needs, and /init
ir=$work/ir
mkdir -p "$ir/bin" "$ir/modules" "$ir/root"
cp /bin/busybox "$ir/bin/busybox"
for a in sh mount mkdir insmod switch_root poweroff echo cat sleep ip; do
	ln -s busybox "$ir/bin/$a"
done
mods=
if [ "$moddir" != - ]; then
	kver=$(basename "$moddir")
	n=0
	base=${moddir%/lib/modules/*}
	for m in $(modprobe --show-depends -S "$kver" -d "${base:-/}" \
			-a virtio_pci 9pnet_virtio 9p overlay 2>/dev/null | awk '$1 == "insmod" { print $2 }'); do
		case " $mods " in *" $(basename "$m") "*) continue ;; esac
		n=$((n + 1))
		cp "$m" "$ir/modules/$(printf '%02d' $n)-$(basename "$m")"
		mods="$mods $(basename "$m")"
	done
fi
printf '%q ' "$@" > "$ir/cmd"
cat > "$ir/init" <<INIT
#!/bin/sh
mount -t proc proc /proc 2>/dev/null || { mkdir -p /proc; mount -t proc proc /proc; }
mkdir -p /sys /dev; mount -t sysfs sys /sys; mount -t devtmpfs dev /dev
for m in /modules/*.ko; do [ -e "\$m" ] && insmod "\$m"; done
r=/root
mount -t 9p -o trans=virtio,version=9p2000.L,ro,cache=loose hostroot \$r || { echo "MW_VM_RC=125 (no 9p root)"; poweroff -f; }
mount -t 9p -o trans=virtio,version=9p2000.L,cache=none repo \$r$repo
mount -t proc proc \$r/proc
mount -t sysfs sys \$r/sys
mount -t devtmpfs dev \$r/dev
mkdir -p \$r/dev/shm \$r/dev/pts; mount -t tmpfs shm \$r/dev/shm; mount -t devpts pts \$r/dev/pts
mount -t tmpfs tmp \$r/tmp
mount -t tmpfs run \$r/run
mount -t bpf bpf \$r/sys/fs/bpf
mount -t tracefs tracefs \$r/sys/kernel/tracing 2>/dev/null
mount -t debugfs debugfs \$r/sys/kernel/debug 2>/dev/null
mount -t cgroup2 cgroup2 \$r/sys/fs/cgroup 2>/dev/null
ip link set lo up	# the tests' servers listen on 127.0.0.1
# the debug files' directory writable over the host's (tests install a
# build-id debug file)
mkdir -p /ovl; mount -t tmpfs ovl /ovl; mkdir -p /ovl/u /ovl/w
mount -t overlay overlay -o lowerdir=\$r/usr/lib/debug,upperdir=/ovl/u,workdir=/ovl/w \$r/usr/lib/debug || echo "memwatch-vm: /usr/lib/debug stays read-only"
echo "MW_VM_UP \$(cat /proc/version)"
# the shared root becomes the root (switch_root, not chroot: a mount
# namespace then sees a root as on a real machine), CMD runs as pid 1
exec switch_root \$r /bin/busybox sh -c "cd $repo && mkdir -p /tmp/home && export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/tmp/home && \$(cat /cmd); echo MW_VM_RC=\\\$?; /bin/busybox poweroff -f"
INIT
chmod +x "$ir/init"
(cd "$ir" && find . | cpio -o -H newc --quiet | gzip -1) > "$work/initramfs.gz"

accel=tcg
[ -w /dev/kvm ] && [ "${MEMWATCH_VM_KVM:-0}" = 1 ] && accel=kvm
timeout "${MEMWATCH_VM_TIMEOUT:-3600}" qemu-system-x86_64 -accel "$accel" -m "${MEMWATCH_VM_MEM:-4G}" \
	-smp "${MEMWATCH_VM_CPUS:-2}" -cpu max -nographic -no-reboot \
	-kernel "$vmlinuz" -initrd "$work/initramfs.gz" \
	-append "console=ttyS0 panic=-1 quiet" \
	-fsdev local,id=hostroot,path=/,security_model=none,readonly=on,multidevs=remap \
	-device virtio-9p-pci,fsdev=hostroot,mount_tag=hostroot \
	-fsdev local,id=repo,path="$repo",security_model=passthrough \
	-device virtio-9p-pci,fsdev=repo,mount_tag=repo \
	< /dev/null > "$out/console.log" 2>&1 || true
rc=$(sed -n 's/.*MW_VM_RC=\([0-9]*\).*/\1/p' "$out/console.log" | tail -1)
exit "${rc:-125}"

#!/bin/bash
# timeout: 600
# boot: SMP=2 NUMA=2
# A bdi's flushers keep to the CPUs of its device's NUMA node (two nodes
# of one CPU each, as the test kernel has NR_CPUS=2; null_blk disks with
# home_node 0 and 1), within the
# writeback workqueue's CPUs; a device without a node gets them all. A
# per-device mask wins over the node; with the node's CPUs offline the
# flusher uses the workqueue's CPUs, and returns when they come back.
. "$(dirname "$0")/../guest/lib.sh"
require_scratch 1
require_knob '/sys/class/bdi/*/flusher_cpumask'
n0=$(cat /sys/devices/system/node/node0/cpulist 2>/dev/null)
n1=$(cat /sys/devices/system/node/node1/cpulist 2>/dev/null)
[ -n "$n0" ] && [ -n "$n1" ] && [ "$n1" != 0 ] ||
	fail "no two NUMA nodes with CPUs: node0 '$n0', node1 '$n1'"
wq=$(mask_list "$(cat $WQ_DIR/cpumask)")
[ "$wq" = "$(cat /sys/devices/system/cpu/online)" ] || fail "writeback workqueue CPUs $wq"
# node 1's CPUs, one per word (cpulist "1" or "2-3")
n1_cpus=$(seq "${n1%-*}" "${n1#*-}")
set_node1() { for c in $n1_cpus; do echo "$1" > "/sys/devices/system/cpu/cpu$c/online" || return 1; done; }
on_exit "set_node1 1"
disk() {	# disk NODE: a null_blk disk /dev/numaNODE on NODE, written to
	local nb=/sys/kernel/config/nullb/numa$1
	mkdir $nb && echo 64 > $nb/size && echo 1 > $nb/memory_backed &&
		echo "$1" > $nb/home_node && echo 1 > $nb/power || fail "null_blk on node $1"
	on_exit "echo 0 > $nb/power; rmdir $nb"
	wait_until 5 test -b /dev/numa$1 || fail "no /dev/numa$1"
	dd if=/dev/zero of=/dev/numa$1 bs=1M count=4 status=none || fail "write numa$1"
}
disk 0; disk 1
b0=$(bdi_of /dev/numa0) b1=$(bdi_of /dev/numa1) bv=$(bdi_of "$(scratch 0)")
dd if=/dev/zero of="$(scratch 0)" bs=1M count=4 status=none
sync	# queues work for every bdi: their flushers start
flusher_cpus() {	# flusher_cpus BDI WANT: its flusher runs and has WANT
	local p
	p=$(threads "flush-$1")
	[ -n "$p" ] && [ "$(cpus_of "$p")" = "$2" ]
}
expect() {	# expect BDI CPULIST WHAT
	wait_thread 10 "flush-$1" || fail "$3: no flusher for $1"
	wait_until 2 flusher_cpus "$1" "$2" ||
		fail "$3: flusher of $1 allowed on '$(cpus_of "$(threads "flush-$1")")', want $2"
}
expect "$b0" "$n0" "node 0"
expect "$b1" "$n1" "node 1"
expect "$bv" "$wq" "virtio disk without a node"
say "node 0: $(placement "$(threads "flush-$b0")"); node 1: $(placement "$(threads "flush-$b1")")"

echo 1 > "/sys/class/bdi/$b1/flusher_cpumask" || fail "mask 1 refused"
expect "$b1" 0 "mask 1 on the node-1 disk"
echo default > "/sys/class/bdi/$b1/flusher_cpumask"
expect "$b1" "$n1" "back to default"

say "node 1 offline"
set_node1 0 || fail "cannot offline CPUs $n1"
expect "$b1" "$wq" "node 1 offline"
dd if=/dev/zero of=/dev/numa1 bs=1M count=4 conv=fsync status=none || fail "write with node 1 offline"
set_node1 1 || fail "cannot online CPUs $n1"
expect "$b1" "$n1" "node 1 back"

#!/bin/sh
# Runs one command alone on CPU 0 while every other process of the machine is moved to the other CPUs,
# then prints the CPU time the command and everything it started used ("cgroup cpu <s>"). For
# side-by-side benchmarks on a shared machine (docs/benchmarks.md). Needs root and cgroup v1's cpuset
# and cpuacct hierarchies; everything is moved back at the end.
set -u
CS=/sys/fs/cgroup/cpuset
CA=/sys/fs/cgroup/cpuacct
if [ ! -f "$CS/cgroup.procs" ] || [ ! -f "$CA/cgroup.procs" ]; then
  echo "bench-alone: needs cgroup v1 cpuset and cpuacct at /sys/fs/cgroup (and root)" >&2
  exit 2
fi
others=$(awk -F- '{ print ($2 == "" ? $1 : "1-" $2) }' "$CS/cpuset.cpus")
[ "$others" = "0" ] && { echo "bench-alone: one CPU only" >&2; exit 2; }
mkdir -p "$CS/bench-alone" "$CS/bench-others" "$CA/bench-alone"
echo 0 > "$CS/bench-alone/cpuset.cpus"; cat "$CS/cpuset.mems" > "$CS/bench-alone/cpuset.mems"
echo "$others" > "$CS/bench-others/cpuset.cpus"; cat "$CS/cpuset.mems" > "$CS/bench-others/cpuset.mems"
for p in $(cat "$CS/cgroup.procs"); do echo "$p" > "$CS/bench-others/cgroup.procs" 2>/dev/null; done
echo 0 > "$CA/bench-alone/cpuacct.usage"
sh -c 'echo $$ > "$1/bench-alone/cgroup.procs"; echo $$ > "$2/bench-alone/cgroup.procs"; shift 2; exec "$@"' sh "$CS" "$CA" "$@"
rc=$?
echo "cgroup cpu $(awk '{ printf "%.2f", $1 / 1e9 }' "$CA/bench-alone/cpuacct.usage") s"
for p in $(cat "$CA/bench-alone/cgroup.procs"); do echo "$p" > "$CA/cgroup.procs" 2>/dev/null; done
for g in bench-others bench-alone; do for p in $(cat "$CS/$g/cgroup.procs"); do echo "$p" > "$CS/cgroup.procs" 2>/dev/null; done; done
exit $rc

//go:build linux

package main

import (
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// cpuTime is the user+system CPU time this process has used so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// clockTicks is USER_HZ, the unit of /proc/<pid>/stat times; 100 on every
// Linux the bench runs on (the standard library cannot ask sysconf).
const clockTicks = 100

// processCPU is the user+system CPU time process pid has used so far
// (ok false when /proc cannot tell).
func processCPU(pid int) (time.Duration, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, false
	}
	// The command name (field 2) may contain spaces; fields after its ')'.
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0, false
	}
	f := strings.Fields(s[i+1:])
	// f[0] is field 3 (state); utime and stime are fields 14 and 15.
	if len(f) < 13 {
		return 0, false
	}
	ut, err1 := strconv.ParseInt(f[11], 10, 64)
	st, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, false
	}
	return time.Duration(ut+st) * time.Second / clockTicks, true
}

// containerCPU is the CPU time docker container id has used so far, from
// its cgroup: v1 (cpuacct.usage, in ns) or v2 (cpu.stat's usage_usec), with
// the cgroupfs or the systemd driver.
func containerCPU(id string) (time.Duration, bool) {
	for _, p := range []string{
		"/sys/fs/cgroup/cpuacct/docker/" + id + "/cpuacct.usage",
		"/sys/fs/cgroup/cpu,cpuacct/docker/" + id + "/cpuacct.usage",
		"/sys/fs/cgroup/cpuacct/system.slice/docker-" + id + ".scope/cpuacct.usage",
		"/sys/fs/cgroup/system.slice/docker-" + id + ".scope/cpu.stat",
		"/sys/fs/cgroup/docker/" + id + "/cpu.stat",
	} {
		b, err := os.ReadFile(p)
		v, unit := string(b), time.Nanosecond
		if strings.HasSuffix(p, "/cpu.stat") {
			_, v, _ = strings.Cut(v, "usage_usec ")
			v, _, _ = strings.Cut(v, "\n")
			unit = time.Microsecond
		}
		if n, perr := strconv.ParseInt(strings.TrimSpace(v), 10, 64); err == nil && perr == nil {
			return time.Duration(n) * unit, true
		}
	}
	return 0, false
}

//go:build linux

package load

import (
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/prometheus/procfs"
)

// SelfCPU is the user+system CPU time this process has used so far.
func SelfCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// ProcessCPU is the user+system CPU time process pid has used so far
// (ok false when /proc cannot tell).
func ProcessCPU(pid int) (time.Duration, bool) {
	p, err := procfs.NewProc(pid)
	if err != nil {
		return 0, false
	}
	st, err := p.Stat()
	if err != nil {
		return 0, false
	}
	return time.Duration(st.CPUTime() * float64(time.Second)), true
}

// ContainerCPU is the CPU time docker container id has used so far, from
// its cgroup: v1 (cpuacct.usage, in ns) or v2 (cpu.stat's usage_usec), with
// the cgroupfs or the systemd driver.
func ContainerCPU(id string) (time.Duration, bool) {
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

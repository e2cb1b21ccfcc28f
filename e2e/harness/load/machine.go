package load

import (
	"os"
	"runtime"
	"strings"
)

// Machine describes where figures come from.
type Machine struct {
	NumCPU           int
	GOOS, GOARCH, Go string
	CPUModel         string
	LoadAvg          string // the 1, 5 and 15 minute load averages when it was read
}

// ThisMachine describes the machine now; what Linux's /proc cannot tell
// is left empty.
func ThisMachine() Machine {
	m := Machine{NumCPU: runtime.NumCPU(), GOOS: runtime.GOOS, GOARCH: runtime.GOARCH, Go: runtime.Version(), LoadAvg: LoadAvg()}
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for line := range strings.SplitSeq(string(b), "\n") {
			if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
				m.CPUModel = strings.TrimSpace(v)
				break
			}
		}
	}
	return m
}

// LoadAvg is the 1, 5 and 15 minute load averages ("" where unknown).
func LoadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if fs := strings.Fields(string(b)); err == nil && len(fs) >= 3 {
		return strings.Join(fs[:3], " ")
	}
	return ""
}

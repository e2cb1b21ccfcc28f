//go:build !linux

package load

import "time"

// SelfCPU, ProcessCPU and ContainerCPU read Linux's /proc and cgroups;
// elsewhere they cannot tell.
func SelfCPU() time.Duration { return 0 }

func ProcessCPU(int) (time.Duration, bool) { return 0, false }

func ContainerCPU(string) (time.Duration, bool) { return 0, false }

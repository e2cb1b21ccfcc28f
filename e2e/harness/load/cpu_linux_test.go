package load

import (
	"os"
	"testing"
	"time"
)

func TestProcessCPUReadsThisProcess(t *testing.T) {
	// Spin until this process has used 50 ms of CPU by its own count;
	// /proc must then tell at least 40 ms (its unit is 10 ms).
	for SelfCPU() < 50*time.Millisecond {
	}
	got, ok := ProcessCPU(os.Getpid())
	if !ok || got < 40*time.Millisecond || got > SelfCPU()+20*time.Millisecond {
		t.Fatalf("ProcessCPU(self) = %v, %v; SelfCPU %v", got, ok, SelfCPU())
	}
	if _, ok := ProcessCPU(-1); ok {
		t.Fatal("a process that does not exist has a CPU time")
	}
}

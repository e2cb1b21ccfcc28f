//go:build !linux

package main

import "time"

// The CPU columns are measured on Linux only; elsewhere they say n/a.

func cpuTime() time.Duration { return 0 }

func processCPU(int) (time.Duration, bool) { return 0, false }

func containerCPU(string) (time.Duration, bool) { return 0, false }

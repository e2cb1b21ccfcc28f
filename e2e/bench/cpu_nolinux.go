//go:build !linux

package main

import "time"

func processCPU(int) (time.Duration, bool) { return 0, false }

func containerCPU(string) (time.Duration, bool) { return 0, false }

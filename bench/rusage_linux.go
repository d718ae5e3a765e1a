package main

import (
	"os"
	"syscall"
)

// maxRSS is the peak resident set size of a finished process, in bytes.
func maxRSS(ps *os.ProcessState) int64 {
	if ru, ok := ps.SysUsage().(*syscall.Rusage); ok {
		return ru.Maxrss * 1024 // Linux reports kilobytes
	}
	return 0
}

//go:build !linux

package main

import "os"

// maxRSS is unknown here: the unit of Rusage.Maxrss differs between
// systems and only Linux's is relied on.
func maxRSS(*os.ProcessState) int64 { return 0 }

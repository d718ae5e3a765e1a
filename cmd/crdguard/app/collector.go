package app

import (
	"os"
	"runtime/debug"
)

// The collector's paces (GOGC). gcPercent trades memory for CPU:
// crdguard allocates heavily and keeps little alive, so collecting less
// often is much cheaper. checkGCPercent is validate's while it checks
// objects: at gcPercent the heap of a long run would grow to five times
// its live size; at 200 it stays within three times, however many objects
// a run reads, for the same CPU per object. Being relative to the live
// heap, the pace makes the same run collect as often every time.
const (
	gcPercent      = 400
	checkGCPercent = 200
)

// paceCollector sets the collector's pace to percent, unless GOGC is set:
// the user's choice wins. The returned function restores the previous
// pace.
func paceCollector(percent int) (restore func()) {
	if os.Getenv("GOGC") != "" {
		return func() {}
	}
	previous := debug.SetGCPercent(percent)
	return func() { debug.SetGCPercent(previous) }
}

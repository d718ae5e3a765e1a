package app

import (
	"os"
	"runtime/debug"
)

// checkGCPercent paces the collector while validate checks objects. At
// gcPercent (see main.go) the heap of a long run would grow to five times
// its live size; at 200 it stays within three times, however many objects
// a run reads, for the same CPU per object. Being relative to the live
// heap, the pace makes the same run collect as often every time.
const checkGCPercent = 200

// paceChecking sets the collector's pace for checking objects, unless GOGC
// is set. The returned function restores the previous pace.
func paceChecking() (restore func()) {
	if os.Getenv("GOGC") != "" {
		return func() {}
	}
	previous := debug.SetGCPercent(checkGCPercent)
	return func() { debug.SetGCPercent(previous) }
}

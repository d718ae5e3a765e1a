package app

import (
	"os"
	"runtime/debug"
)

// checkGCPercent paces the collector while validate checks objects.
// Loading CRDs runs at gcPercent (see main.go); checking keeps less alive
// for longer, and at 200 the heap stays within three times its live size
// however many objects a run reads. Being relative to the live heap, the
// pace makes the same run collect as often every time.
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

package gcpace

import (
	"runtime"
	"runtime/debug"
	"testing"
	"time"
)

// gcPercent is GOGC now.
func gcPercent() int {
	percent := debug.SetGCPercent(100)
	debug.SetGCPercent(percent)
	return percent
}

// collectUntil runs a collection and waits for its cleanups until GOGC is
// want.
func collectUntil(t *testing.T, what string, want func() int) {
	t.Helper()
	runtime.GC()
	for end := time.Now().Add(10 * time.Second); gcPercent() != want(); {
		if time.Now().After(end) {
			t.Fatalf("%s: GOGC %d, want %d", what, gcPercent(), want())
		}
		time.Sleep(time.Millisecond)
	}
}

// TestKeepHeadroom: a small live heap gets the headroom, a live heap
// larger than it GOGC 100, and stopping restores the pace from before.
func TestKeepHeadroom(t *testing.T) {
	const headroom = 32 << 20
	before := gcPercent()
	stop := KeepHeadroom(headroom)
	defer stop()
	collectUntil(t, "a small live heap", func() int { return int(headroom * 100 / liveHeap()) })
	if gcPercent() <= 400 {
		t.Errorf("a live heap of %d bytes: GOGC %d, want the headroom's %d MiB", liveHeap(), gcPercent(), headroom>>20)
	}

	ballast := make([]byte, 2*headroom)
	collectUntil(t, "a live heap twice the headroom", func() int { return 100 })
	runtime.KeepAlive(ballast)

	collectUntil(t, "the large live heap gone", func() int { return int(headroom * 100 / liveHeap()) })
	stop()
	if gcPercent() != before {
		t.Errorf("stopped: GOGC %d, want %d as before", gcPercent(), before)
	}
	runtime.GC()
	time.Sleep(50 * time.Millisecond) // the cleanups of that cycle
	if gcPercent() != before {
		t.Errorf("a collection after stopping: GOGC %d, want %d", gcPercent(), before)
	}
}

// TestKeepHeadroomLeavesTheUsersGOGC: with GOGC set, the pace is the
// user's.
func TestKeepHeadroomLeavesTheUsersGOGC(t *testing.T) {
	t.Setenv("GOGC", "150")
	debug.SetGCPercent(150)
	defer debug.SetGCPercent(100)
	stop := KeepHeadroom(32 << 20)
	runtime.GC()
	time.Sleep(50 * time.Millisecond) // the cleanups of that cycle
	if gcPercent() != 150 {
		t.Errorf("GOGC=150: GOGC is %d after a collection", gcPercent())
	}
	stop()
	if gcPercent() != 150 {
		t.Errorf("GOGC=150: GOGC is %d after stopping", gcPercent())
	}
}

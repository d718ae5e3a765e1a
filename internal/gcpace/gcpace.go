// Package gcpace paces the Go garbage collector for crdguard's processes,
// which keep little alive and allocate much for every object or request.
package gcpace

import (
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
)

// cycleMarker is an object whose cleanup tells that a collection ran. It
// holds a pointer so that the allocator never packs it with others.
type cycleMarker struct{ _ *byte }

// EachCycle calls f after every collection from now on, for as long as f
// returns true: the runtime runs an unreachable marker's cleanup once a
// cycle has found it so, and f then marks the next cycle.
func EachCycle(f func() bool) {
	runtime.AddCleanup(new(cycleMarker), func(f func() bool) {
		if f() {
			EachCycle(f)
		}
	}, f)
}

// liveHeap is the heap the last collection marked, in bytes.
func liveHeap() uint64 {
	sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(sample)
	if sample[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return sample[0].Value.Uint64()
}

// KeepHeadroom lets the heap grow at least headroom bytes over its live
// size before the next collection, and as far as GOGC=100 would let it
// when that is more: after each collection, GOGC is set to the percentage
// of the live heap that headroom is, and to 100 at least. A server that
// keeps a few MiB alive and allocates for every request then collects
// every headroom bytes rather than every few MiB, while a live heap that
// grows large is paced as by default. GOGC set by the user is left as it
// is: the returned function does nothing then, and otherwise restores the
// pace from before.
func KeepHeadroom(headroom uint64) (stop func()) {
	if os.Getenv("GOGC") != "" {
		return func() {}
	}
	k := &headroomPacer{headroom: headroom}
	k.previous = debug.SetGCPercent(k.percentFor(liveHeap()))
	EachCycle(k.adjust)
	return k.stop
}

// headroomPacer is KeepHeadroom's state.
type headroomPacer struct {
	headroom uint64
	mu       sync.Mutex
	previous int
	stopped  bool
}

// percentFor is the GOGC that gives a heap of live bytes its headroom.
func (k *headroomPacer) percentFor(live uint64) int {
	return int(max(100, k.headroom*100/max(live, 1)))
}

// adjust sets GOGC for the live heap now; false once stopped.
func (k *headroomPacer) adjust() bool {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.stopped {
		return false
	}
	debug.SetGCPercent(k.percentFor(liveHeap()))
	return true
}

func (k *headroomPacer) stop() {
	k.mu.Lock()
	defer k.mu.Unlock()
	if !k.stopped {
		k.stopped = true
		debug.SetGCPercent(k.previous)
	}
}

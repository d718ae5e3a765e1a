package app

import (
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync/atomic"
)

// Names of the runtime metrics boundMemory reads.
const (
	metricTotal    = "/memory/classes/total:bytes"
	metricReleased = "/memory/classes/heap/released:bytes"
	metricLive     = "/gc/heap/live:bytes"
)

// boundMemory caps the memory the rest of a run may use at what the process
// holds now, once its CRDs are loaded: checking objects then needs no more
// memory than loading their CRDs did, however many objects there are. The
// CLI collects garbage rarely (see main.go), so without a cap the heap would
// grow to five times what is live. The cap is raised to twice the live heap
// whenever that is more, so that a run whose live heap outgrows it is paced
// as with GOGC=100 instead of collecting back to back. An explicit
// GOMEMLIMIT wins. The returned function lifts the cap.
func boundMemory() (lift func()) {
	if os.Getenv("GOMEMLIMIT") != "" {
		return func() {}
	}
	samples := []metrics.Sample{{Name: metricTotal}, {Name: metricReleased}}
	metrics.Read(samples)
	floor := samples[0].Value.Uint64() - samples[1].Value.Uint64()
	previous := debug.SetMemoryLimit(int64(floor))
	var lifted atomic.Bool
	var afterGC func()
	afterGC = func() {
		if lifted.Load() {
			return
		}
		live := []metrics.Sample{{Name: metricLive}}
		metrics.Read(live)
		debug.SetMemoryLimit(int64(max(floor, 2*live[0].Value.Uint64())))
		onNextGC(afterGC)
	}
	onNextGC(afterGC)
	return func() {
		lifted.Store(true)
		debug.SetMemoryLimit(previous)
	}
}

// onNextGC calls f after the next garbage collection, from the goroutine
// that runs cleanups.
func onNextGC(f func()) {
	// The sentinel is larger than the tiny allocator's blocks, so it is
	// freed alone, by the first collection after this call.
	sentinel := new([16]byte)
	runtime.AddCleanup(sentinel, func(struct{}) { f() }, struct{}{})
}

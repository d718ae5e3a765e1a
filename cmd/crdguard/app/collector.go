package app

import (
	"math"
	"os"
	"runtime/debug"
	"runtime/metrics"
	"sync"

	"github.com/crdguard/crdguard/internal/gcpace"
)

// The collector's paces. crdguard allocates heavily and keeps little
// alive, so collecting less often is much cheaper.
const (
	// loadGCPercent is GOGC while a command loads its CRDs and policies.
	loadGCPercent = 400
	// compileGCPercent is GOGC while validate compiles kinds in
	// parallel, whose garbage would otherwise pile up GOMAXPROCS times.
	compileGCPercent = 200
	// checkGCPercent is validate's GOGC while it checks objects: high, so
	// that the memory limit paced from the load, not GOGC, decides when
	// the heap is collected.
	checkGCPercent = 800
	// floorGCPercent is how far over its live size the heap may always
	// grow while validate checks objects, however low the limit: a live
	// heap that outgrows the load's (a huge document) raises the limit
	// rather than having the collector run without pause.
	floorGCPercent = 100
	// loadPeakHeadroom is the share of the memory reached by loading that
	// the limit adds to it, so that the pace does not hinge on what the
	// runtime happened to return to the system before it was measured.
	loadPeakHeadroom = 0.25
)

// userPaced tells whether the user set the collector's pace: then it is
// theirs, and crdguard changes neither GOGC nor the memory limit.
func userPaced() bool {
	return os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != ""
}

// paceCollector sets the collector's pace to percent, unless the user set
// it. The returned function restores the previous pace.
func paceCollector(percent int) (restore func()) {
	if userPaced() {
		return func() {}
	}
	previous := debug.SetGCPercent(percent)
	return func() { debug.SetGCPercent(previous) }
}

// paceFromLoad paces the collector for checking objects once loading and
// compiling are done, unless the user set the pace: a soft memory limit at
// the memory the process reached (with loadPeakHeadroom) and GOGC
// checkGCPercent, so that the heap grows into the memory the load already
// used and no further. After every collection the limit is raised to let
// the heap grow floorGCPercent over its live size, and lowered back as
// that shrinks: the limit is soft, and a document whose live heap
// outgrows it is still validated, with the collector paced as GOGC
// floorGCPercent would pace it. The returned function restores the
// previous pace; one run paces the process at a time.
func paceFromLoad() (restore func()) {
	if userPaced() {
		return func() {}
	}
	m := readMemory()
	p := &loadPacer{base: uint64(float64(m.footprint()) * (1 + loadPeakHeadroom))}
	p.previousPercent = debug.SetGCPercent(checkGCPercent)
	p.previousLimit = debug.SetMemoryLimit(int64(min(p.base, math.MaxInt64)))
	p.limit = p.base
	p.adjust(m)
	p.watch()
	return p.stop
}

// loadPacer keeps validate's memory limit at base, or higher when the
// live heap needs it.
type loadPacer struct {
	base            uint64
	previousPercent int
	previousLimit   int64
	mu              sync.Mutex
	limit           uint64
	stopped         bool
}

// limitFor is the memory limit for m: base, or what lets the live heap
// grow floorGCPercent besides the memory that is not heap.
func (p *loadPacer) limitFor(m memoryUse) uint64 {
	return max(p.base, m.nonHeap()+m.live*(100+floorGCPercent)/100)
}

// adjust sets the limit for m, unless stopped.
func (p *loadPacer) adjust(m memoryUse) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if limit := p.limitFor(m); !p.stopped && limit != p.limit {
		p.limit = limit
		debug.SetMemoryLimit(int64(min(limit, math.MaxInt64)))
	}
}

// watch adjusts the limit after each collection.
func (p *loadPacer) watch() {
	gcpace.EachCycle(func() bool {
		p.mu.Lock()
		stopped := p.stopped
		p.mu.Unlock()
		if !stopped {
			p.adjust(readMemory())
		}
		return !stopped
	})
}

// stop restores the pace from before paceFromLoad.
func (p *loadPacer) stop() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.stopped {
		return
	}
	p.stopped = true
	debug.SetMemoryLimit(p.previousLimit)
	debug.SetGCPercent(p.previousPercent)
}

// memoryUse is what the runtime reports of the process's memory, in bytes.
type memoryUse struct {
	// total is all the runtime maps, released what of it was returned
	// to the system.
	total, released uint64
	// heap is the heap's spans in use or free to reuse, live the heap
	// the last collection marked.
	heap, live uint64
}

// memoryMetrics are the runtime/metrics memory reads.
var memoryMetrics = []string{
	"/memory/classes/total:bytes",
	"/memory/classes/heap/released:bytes",
	"/memory/classes/heap/objects:bytes",
	"/memory/classes/heap/unused:bytes",
	"/memory/classes/heap/free:bytes",
	"/gc/heap/live:bytes",
}

func readMemory() memoryUse {
	samples := make([]metrics.Sample, len(memoryMetrics))
	for i, name := range memoryMetrics {
		samples[i].Name = name
	}
	metrics.Read(samples)
	v := func(i int) uint64 {
		if samples[i].Value.Kind() != metrics.KindUint64 {
			return 0
		}
		return samples[i].Value.Uint64()
	}
	return memoryUse{total: v(0), released: v(1), heap: v(2) + v(3) + v(4), live: v(5)}
}

// footprint is the memory the memory limit counts: all the runtime maps
// but what it returned.
func (m memoryUse) footprint() uint64 { return m.total - min(m.released, m.total) }

// nonHeap is the footprint besides the heap: stacks, the runtime's
// metadata and buffers.
func (m memoryUse) nonHeap() uint64 { return m.footprint() - min(m.heap, m.footprint()) }

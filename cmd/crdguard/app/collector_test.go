package app

import (
	"math"
	"runtime"
	"runtime/debug"
	"testing"
	"time"
)

// pace reads the collector's GOGC.
func pace() int {
	p := debug.SetGCPercent(-1)
	debug.SetGCPercent(p)
	return p
}

// memoryLimit reads the runtime's soft memory limit.
func memoryLimit() int64 { return debug.SetMemoryLimit(-1) }

func TestPaceCollector(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(123))
	for _, tc := range []struct {
		env, value string
		want       int
	}{
		{env: "GOGC", value: "", want: loadGCPercent},
		{env: "GOGC", value: "150", want: 123},        // the user's pace stays
		{env: "GOMEMLIMIT", value: "1GiB", want: 123}, // so does a pace with the user's limit
	} {
		t.Run(tc.env+"="+tc.value, func(t *testing.T) {
			t.Setenv(tc.env, tc.value)
			restore := paceCollector(loadGCPercent)
			if got := pace(); got != tc.want {
				t.Errorf("while paced: GOGC %d, want %d", got, tc.want)
			}
			restore()
			if got := pace(); got != 123 {
				t.Errorf("after: GOGC %d, want the previous 123", got)
			}
		})
	}
}

// paceFromLoad limits the memory to what the process reached, with
// headroom, at a high GOGC, and restores both after.
func TestPaceFromLoad(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(123))
	t.Setenv("GOGC", "")
	t.Setenv("GOMEMLIMIT", "")
	reached := readMemory().footprint()
	restore := paceFromLoad()
	if got := pace(); got != checkGCPercent {
		t.Errorf("while paced: GOGC %d, want %d", got, checkGCPercent)
	}
	limit := memoryLimit()
	if low := int64(float64(reached) * (1 + loadPeakHeadroom)); limit < low || limit == math.MaxInt64 {
		t.Errorf("while paced: memory limit %d MiB, want at least %d MiB: what the process reached, with %v headroom", limit>>20, low>>20, loadPeakHeadroom)
	}
	restore()
	if got, limit := pace(), memoryLimit(); got != 123 || limit != math.MaxInt64 {
		t.Errorf("after: GOGC %d and memory limit %d, want the previous 123 and none", got, limit)
	}
}

// The user's GOGC or GOMEMLIMIT wins: paceFromLoad changes neither pace
// nor limit.
func TestPaceFromLoadLeavesTheUsersPace(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(123))
	for _, env := range [][2]string{{"GOGC", "150"}, {"GOMEMLIMIT", "1GiB"}} {
		t.Run(env[0], func(t *testing.T) {
			t.Setenv(env[0], env[1])
			restore := paceFromLoad()
			defer restore()
			if got, limit := pace(), memoryLimit(); got != 123 || limit != math.MaxInt64 {
				t.Errorf("GOGC %d and memory limit %d, want the runtime's 123 and none", got, limit)
			}
		})
	}
}

// A live heap that outgrows the load's raises the limit, so that the
// heap may grow floorGCPercent over it, and the limit comes back down
// once that heap is gone: a huge document is validated without the
// collector running without pause.
func TestPaceFromLoadFloor(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(123))
	t.Setenv("GOGC", "")
	t.Setenv("GOMEMLIMIT", "")
	restore := paceFromLoad()
	defer restore()
	base := memoryLimit()

	huge := make([]*[1 << 20]byte, base>>20) // a live heap as large as the whole limit
	for i := range huge {
		huge[i] = new([1 << 20]byte)
	}
	runtime.GC()
	m := readMemory()
	floor := int64(m.live * (100 + floorGCPercent) / 100)
	// The cleanup that follows a collection raises the limit. Each wait
	// collects again: a cleanup re-arms its marker only after adjusting,
	// and the marker of a collection that ran before it waits for the next.
	for deadline := time.Now().Add(time.Minute); memoryLimit() < floor && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
		runtime.GC()
	}
	if limit := memoryLimit(); limit < floor {
		t.Errorf("with a live heap of %d MiB: memory limit %d MiB, want at least %d MiB (GOGC %d over it)", m.live>>20, limit>>20, floor>>20, floorGCPercent)
	}
	runtime.KeepAlive(huge) // and no further: the next collection frees it

	for deadline := time.Now().Add(time.Minute); memoryLimit() != base && time.Now().Before(deadline); {
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
	}
	if limit := memoryLimit(); limit != base {
		t.Errorf("with the huge heap gone: memory limit %d MiB, want the load's %d MiB again", limit>>20, base>>20)
	}
}

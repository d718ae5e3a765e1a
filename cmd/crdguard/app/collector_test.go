package app

import (
	"runtime/debug"
	"testing"
)

// pace reads the collector's GOGC.
func pace() int {
	p := debug.SetGCPercent(-1)
	debug.SetGCPercent(p)
	return p
}

func TestPaceCollector(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(123))
	for _, tc := range []struct {
		gogc string
		want int
	}{
		{gogc: "", want: checkGCPercent},
		{gogc: "150", want: 123}, // GOGC set: the runtime's pace stays
	} {
		t.Run("GOGC="+tc.gogc, func(t *testing.T) {
			t.Setenv("GOGC", tc.gogc)
			restore := paceCollector(checkGCPercent)
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

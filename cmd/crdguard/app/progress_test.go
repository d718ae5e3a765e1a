package app

import (
	"bytes"
	"io"
	"os"
	"strings"
	"sync"
	"testing"
	"time"
)

// lockedBuffer is a buffer the progress goroutine and the test share.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func TestProgressShowsAndClearsItsLine(t *testing.T) {
	var out lockedBuffer
	p := showProgress(&out, time.Millisecond, func(time.Duration) string { return "loading" })
	for !strings.Contains(out.String(), "loading") {
		time.Sleep(time.Millisecond)
	}
	p.stop()
	got := out.String()
	// Each redraw clears the line first; stop clears it for the report.
	if !strings.HasPrefix(got, "\r\033[Kloading") || !strings.HasSuffix(got, "loading\r\033[K") {
		t.Errorf("output %q", got)
	}
}

// TestProgressOnlyOnTerminals: pipes and CI logs never see it, however long
// the run.
func TestProgressOnlyOnTerminals(t *testing.T) {
	pipeReader, pipe, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer pipeReader.Close()
	defer pipe.Close()
	for name, w := range map[string]io.Writer{"a buffer": &bytes.Buffer{}, "a pipe": pipe} {
		t.Run(name, func(t *testing.T) {
			p := startProgress(w, loadingStatus)
			if p.quit != nil {
				t.Error("progress started")
			}
			p.stop()
		})
	}
}

// TestProgressAfterTheDelay: a run shorter than the delay shows nothing and
// clears nothing.
func TestProgressAfterTheDelay(t *testing.T) {
	var out lockedBuffer
	showProgress(&out, time.Hour, loadingStatus).stop()
	if got := out.String(); got != "" {
		t.Errorf("wrote %q", got)
	}
}

func TestLoadingStatus(t *testing.T) {
	want := "loading Go packages (first run compiles dependencies; later runs take seconds)… 41s"
	if got := loadingStatus(41*time.Second + 900*time.Millisecond); got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

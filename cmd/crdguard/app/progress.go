package app

import (
	"fmt"
	"io"
	"os"
	"time"

	"golang.org/x/term"
)

// progressDelay keeps short runs quiet: progress appears only when a run
// takes long enough for a person to wonder.
const progressDelay = 2 * time.Second

// progressInterval is how often the line is redrawn.
const progressInterval = 200 * time.Millisecond

// progress keeps a status line on stderr while a long step runs, only when
// stderr is a terminal, so that pipes and CI logs never see it. Each command
// says what its line shows: validate counts objects, lint the time a cold
// package load has taken.
type progress struct {
	quit  chan struct{}
	ended chan struct{}
}

// startProgress shows status, given the time since the start, on w once
// progressDelay has passed, until stop.
func startProgress(w io.Writer, status func(elapsed time.Duration) string) *progress {
	f, ok := w.(*os.File)
	if !ok || !term.IsTerminal(int(f.Fd())) {
		return &progress{}
	}
	return showProgress(f, progressDelay, status)
}

// showProgress is startProgress on any writer, after delay.
func showProgress(w io.Writer, delay time.Duration, status func(elapsed time.Duration) string) *progress {
	p := &progress{quit: make(chan struct{}), ended: make(chan struct{})}
	start := time.Now()
	go func() {
		defer close(p.ended)
		timer := time.NewTimer(delay)
		defer timer.Stop()
		shown := false
		for {
			select {
			case <-p.quit:
				if shown {
					// Leave the terminal as it was: the report follows.
					fmt.Fprint(w, "\r\033[K")
				}
				return
			case <-timer.C:
				shown = true
				fmt.Fprint(w, "\r\033[K"+status(time.Since(start)))
				timer.Reset(progressInterval)
			}
		}
	}()
	return p
}

// stop clears the line, if it was shown, and returns once it is.
func (p *progress) stop() {
	if p.quit != nil {
		close(p.quit)
		<-p.ended
	}
}

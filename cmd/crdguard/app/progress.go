package app

import (
	"fmt"
	"io"
	"os"
	"sync/atomic"
	"time"

	"golang.org/x/term"
)

// progressDelay keeps short runs quiet: progress appears only when a run
// takes long enough for a person to wonder.
const progressDelay = 2 * time.Second

// progress counts validated objects on stderr, only when stderr is a
// terminal, so pipes and CI logs never see it.
type progress struct {
	objects atomic.Int64
	sources atomic.Int64
	quit    chan struct{}
	ended   chan struct{}
}

func startProgress(w io.Writer, totalSources int) *progress {
	p := &progress{}
	f, ok := w.(*os.File)
	if !ok || !term.IsTerminal(int(f.Fd())) {
		return p
	}
	p.quit, p.ended = make(chan struct{}), make(chan struct{})
	go func() {
		defer close(p.ended)
		timer := time.NewTimer(progressDelay)
		defer timer.Stop()
		shown := false
		for {
			select {
			case <-p.quit:
				if shown {
					fmt.Fprint(f, "\r\033[K")
				}
				return
			case <-timer.C:
				shown = true
				fmt.Fprintf(f, "\rvalidated %d objects from %d/%d files", p.objects.Load(), p.sources.Load(), totalSources)
				timer.Reset(200 * time.Millisecond)
			}
		}
	}()
	return p
}

func (p *progress) objectDone() { p.objects.Add(1) }

func (p *progress) sourceDone() { p.sources.Add(1) }

func (p *progress) stop() {
	if p.quit != nil {
		close(p.quit)
		<-p.ended
	}
}

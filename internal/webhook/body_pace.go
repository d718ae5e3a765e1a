package webhook

import (
	"io"
	"maps"
	"slices"
	"sync"
	"time"
)

// A body must arrive at minBodyRate, after bodyGrace for its first bytes.
// kube-apiserver sends a body it already holds, at the network's speed; at
// this rate the largest body arrives in 9 s, within the webhook timeout's
// default of 10 s. A caller slower than that is holding the connection and
// its share of the budget, not sending a review.
const (
	minBodyRate = 1 << 20 // bytes per second
	bodyGrace   = 2 * time.Second
)

// completeWithin is how soon a body read from the reserve for complete
// bodies must have arrived whole. Bytes already sent are read in far
// less; the rest leaves room for a loaded machine's scheduling.
const completeWithin = 500 * time.Millisecond

// bodyPace reads a body within a deadline that grows with the bytes
// received: bodyGrace, then the time minBodyRate needs for each byte, and
// never later than limit. paces checks the deadline; once it passes with
// the body still arriving, the connection's read deadline is set to it,
// which ends the read that waits. Moving the connection's deadline as the
// bytes arrive would cost an HTTP/2 connection a message to its serving
// goroutine for each move; the check touches the connection only once the
// body is late.
type bodyPace struct {
	r io.ReadCloser
	// setDeadline sets the connection's read deadline.
	setDeadline func(time.Time) error

	mu         sync.Mutex
	due, limit time.Time
	// stopped is set once the body is read: checks then set nothing.
	stopped bool
	// expired tells that a check set the connection's deadline.
	expired bool
}

// newBodyPace paces r from now.
func newBodyPace(r io.ReadCloser, setDeadline func(time.Time) error, limit time.Time) *bodyPace {
	p := &bodyPace{r: r, setDeadline: setDeadline, limit: limit, due: time.Now().Add(bodyGrace)}
	paces.add(p)
	return p
}

func (p *bodyPace) Read(b []byte) (int, error) {
	n, err := p.r.Read(b)
	p.mu.Lock()
	defer p.mu.Unlock()
	p.due = p.due.Add(time.Duration(n) * time.Second / minBodyRate)
	p.movedLocked()
	return n, err
}

func (p *bodyPace) Close() error { return p.r.Close() }

// deadline is when the body's next bytes are due.
func (p *bodyPace) deadline() time.Time {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.deadlineLocked()
}

func (p *bodyPace) deadlineLocked() time.Time {
	if p.due.After(p.limit) {
		return p.limit
	}
	return p.due
}

// check sets the connection's deadline once the body's has passed.
func (p *bodyPace) check() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.stopped || p.expired {
		return
	}
	deadline := p.deadlineLocked()
	if time.Now().Before(deadline) {
		return
	}
	p.expired = true
	_ = p.setDeadline(deadline) // a connection that cannot take it is gone
}

// resume gives the body its grace again after a wait for budget: the wait
// was the server's, not the sender's.
func (p *bodyPace) resume() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if grace := time.Now().Add(bodyGrace); grace.After(p.due) {
		p.due = grace
	}
	p.movedLocked()
}

// movedLocked lifts a deadline a check set once the pace's has moved past
// now: a body that waited for budget after its deadline passed, or whose
// last read brought bytes as the check ran, is on time again.
func (p *bodyPace) movedLocked() {
	if p.expired && time.Now().Before(p.deadlineLocked()) {
		p.expired = false
		_ = p.setDeadline(time.Time{}) // as in check
	}
}

// hurry makes the rest of the body due within completeWithin.
func (p *bodyPace) hurry() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if soon := time.Now().Add(completeWithin); soon.Before(p.limit) {
		p.limit = soon
	}
}

// ended stops the checks: the body is read, whole or not. A deadline a
// check set is lifted from a body read whole: net/http reads the
// connection on while the request is handled, to see the client hang up,
// and a deadline left there would cancel the request. One that failed
// keeps it, as the connection read too slowly.
func (p *bodyPace) ended(whole bool) {
	paces.remove(p)
	p.mu.Lock()
	defer p.mu.Unlock()
	p.stopped = true
	if whole && p.expired {
		_ = p.setDeadline(time.Time{}) // as in check
	}
}

// paceTick is how often the bodies being read have their deadlines
// checked: a late body is cut off at most this long after its bytes were
// due.
const paceTick = 100 * time.Millisecond

// paces checks every body being read, each paceTick while there are any.
// One ticker serves them all: arming a timer for each body would wake the
// runtime's network poller on every request, for a deadline that almost
// never passes.
var paces = &paceChecks{watched: map[*bodyPace]struct{}{}}

// paceChecks are the bodies whose deadlines a ticker checks.
type paceChecks struct {
	mu      sync.Mutex
	watched map[*bodyPace]struct{}
	// ticking tells that run is checking; it returns once nothing is
	// watched.
	ticking bool
}

func (c *paceChecks) add(p *bodyPace) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.watched[p] = struct{}{}
	if !c.ticking {
		c.ticking = true
		go c.run()
	}
}

func (c *paceChecks) remove(p *bodyPace) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.watched, p)
}

// run checks the watched bodies each paceTick, outside the lock their
// reads take to start and end.
func (c *paceChecks) run() {
	ticker := time.NewTicker(paceTick)
	defer ticker.Stop()
	var due []*bodyPace
	for range ticker.C {
		c.mu.Lock()
		if len(c.watched) == 0 {
			c.ticking = false
			c.mu.Unlock()
			return
		}
		due = slices.AppendSeq(due[:0], maps.Keys(c.watched))
		c.mu.Unlock()
		for _, p := range due {
			p.check()
		}
		clear(due) // a body read since is not held on to
	}
}

package webhook

import (
	"io"
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
// never later than limit. A timer watches the deadline; once it passes
// with the body still arriving, the connection's read deadline is set to
// it, which ends the read that waits. Moving the connection's deadline as
// the bytes arrive would cost an HTTP/2 connection a message to its
// serving goroutine for each move; the timer costs one time.AfterFunc per
// body and touches the connection only once the body is late.
type bodyPace struct {
	r io.ReadCloser
	// setDeadline sets the connection's read deadline.
	setDeadline func(time.Time) error

	mu         sync.Mutex
	due, limit time.Time
	timer      *time.Timer
	// stopped is set once the body is read: the timer then sets nothing.
	stopped bool
	// expired tells that the timer set the connection's deadline.
	expired bool
}

// newBodyPace paces r from now.
func newBodyPace(r io.ReadCloser, setDeadline func(time.Time) error, limit time.Time) *bodyPace {
	p := &bodyPace{r: r, setDeadline: setDeadline, limit: limit, due: time.Now().Add(bodyGrace)}
	// Held until p.timer is set, which a timer already due reads.
	p.mu.Lock()
	defer p.mu.Unlock()
	p.timer = time.AfterFunc(time.Until(p.deadlineLocked()), p.expire)
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

// expire runs when the timer fires: a deadline that moved on since it was
// set is waited for again; one that passed is the connection's.
func (p *bodyPace) expire() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.stopped {
		return
	}
	deadline := p.deadlineLocked()
	if wait := time.Until(deadline); wait > 0 {
		p.timer.Reset(wait)
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

// movedLocked lifts a deadline the timer set once the pace's has moved
// past now, and has the timer watch the new one: a body that waited for
// budget after its deadline passed, or whose last read brought bytes as
// the timer fired, is on time again.
func (p *bodyPace) movedLocked() {
	if !p.expired {
		return
	}
	if wait := time.Until(p.deadlineLocked()); wait > 0 {
		p.expired = false
		_ = p.setDeadline(time.Time{}) // as in expire
		p.timer.Reset(wait)
	}
}

// hurry makes the rest of the body due within completeWithin.
func (p *bodyPace) hurry() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if soon := time.Now().Add(completeWithin); soon.Before(p.limit) {
		p.limit = soon
		p.timer.Reset(time.Until(p.deadlineLocked()))
	}
}

// ended stops the timer: the body is read, whole or not. A deadline it
// set is lifted from a body read whole: net/http reads the connection on
// while the request is handled, to see the client hang up, and a deadline
// left there would cancel the request. One that failed keeps it, as the
// connection read too slowly.
func (p *bodyPace) ended(whole bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.stopped = true
	p.timer.Stop()
	if whole && p.expired {
		_ = p.setDeadline(time.Time{}) // as in expire
	}
}

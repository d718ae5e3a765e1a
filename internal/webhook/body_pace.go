package webhook

import (
	"io"
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
// received: bodyGrace, then the time minBodyRate needs for each byte. The
// deadline is the connection's read deadline, so a read that is due ends
// there, and never later than limit.
type bodyPace struct {
	r io.ReadCloser
	// setDeadline sets the connection's read deadline.
	setDeadline func(time.Time) error
	due, limit  time.Time
	// applied is the deadline last set: setting it again changes nothing,
	// and costs an HTTP/2 connection a message to its serving goroutine.
	applied time.Time
}

// newBodyPace paces r from now.
func newBodyPace(r io.ReadCloser, setDeadline func(time.Time) error, limit time.Time) *bodyPace {
	p := &bodyPace{r: r, setDeadline: setDeadline, limit: limit}
	p.resume()
	return p
}

func (p *bodyPace) Read(b []byte) (int, error) {
	n, err := p.r.Read(b)
	p.due = p.due.Add(time.Duration(n) * time.Second / minBodyRate)
	p.apply()
	return n, err
}

func (p *bodyPace) Close() error { return p.r.Close() }

// deadline is when the body's next bytes are due.
func (p *bodyPace) deadline() time.Time {
	if p.due.After(p.limit) {
		return p.limit
	}
	return p.due
}

// resume gives the body its grace again after a wait for budget: the wait
// was the server's, not the sender's.
func (p *bodyPace) resume() {
	if grace := time.Now().Add(bodyGrace); grace.After(p.due) {
		p.due = grace
	}
	p.apply()
}

// hurry makes the rest of the body due within completeWithin.
func (p *bodyPace) hurry() {
	if soon := time.Now().Add(completeWithin); soon.Before(p.limit) {
		p.limit = soon
	}
	p.apply()
}

// read lifts the deadline: the body is read. net/http reads the
// connection on while the request is handled, to see the client hang up;
// a deadline left there would cancel the request.
func (p *bodyPace) read() { p.set(time.Time{}) }

func (p *bodyPace) apply() { p.set(p.deadline()) }

func (p *bodyPace) set(deadline time.Time) {
	if deadline.Equal(p.applied) {
		return
	}
	p.applied = deadline
	_ = p.setDeadline(deadline)
}

package webhook

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/sync/semaphore"
	admissionv1 "k8s.io/api/admission/v1"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"
)

// stalling is a body that sends n bytes and then nothing, until closed.
type stalling struct {
	r    io.Reader
	stop chan struct{}
}

func newStalling(n int) *stalling {
	return &stalling{r: bytes.NewReader(bytes.Repeat([]byte{' '}, n)), stop: make(chan struct{})}
}

func (s *stalling) Read(p []byte) (int, error) {
	if n, err := s.r.Read(p); err != io.EOF {
		return n, err
	}
	<-s.stop
	return 0, io.ErrUnexpectedEOF
}

// TestBodyBudget: a large body waits for room for all of it, and while it
// waits, small bodies are still read; a wait ends at the deadline.
func TestBodyBudget(t *testing.T) {
	budget := NewBodyBudget(MinBodyBudget)

	// One large body, read in part: it holds the large half whole.
	first := newStalling(bodyChunk + 1)
	defer close(first.stop)
	go func() { _, _, _ = budget.read(context.Background(), first, maxReviewSize, "192.0.2.1", nil) }()
	time.Sleep(50 * time.Millisecond) // past its first chunk and its grant

	ctx, cancel := context.WithTimeout(t.Context(), 200*time.Millisecond)
	defer cancel()
	if _, _, err := budget.read(ctx, bytes.NewReader(make([]byte, 2*bodyChunk)), 2*bodyChunk, "192.0.2.2", nil); !errors.Is(err, errBodyBudget) {
		t.Fatalf("a second large body: err = %v, want %v", err, errBodyBudget)
	}
	data, release, err := budget.read(t.Context(), strings.NewReader("small"), 5, "192.0.2.2", nil)
	if err != nil || string(data) != "small" {
		t.Fatalf("a small body while a large one holds its half: %q, %v", data, err)
	}
	release()
}

// TestBodyBudgetLargeWaitEndsAtTheLimit: a paced large body waiting for
// room stops waiting at its pace's limit, the request's deadline, though
// the request's context has none.
func TestBodyBudgetLargeWaitEndsAtTheLimit(t *testing.T) {
	budget := NewBodyBudget(MinBodyBudget)
	first := newStalling(bodyChunk + 1)
	defer close(first.stop)
	go func() { _, _, _ = budget.read(context.Background(), first, maxReviewSize, "192.0.2.1", nil) }()
	time.Sleep(50 * time.Millisecond) // past its first chunk and its grant

	// Over the size the reserve for complete bodies takes, so it waits.
	size := 2 * maxCompleteBody
	body := &deadlined{r: bytes.NewReader(make([]byte, size))}
	pace := newBodyPace(body, body.setDeadline, time.Now().Add(200*time.Millisecond))
	defer pace.ended(false)
	done := make(chan error, 1)
	go func() {
		_, _, err := budget.read(context.Background(), body, int64(size), "192.0.2.2", pace)
		done <- err
	}()
	select {
	case err := <-done:
		if !errors.Is(err, errBodyBudget) {
			t.Fatalf("a second large body: err = %v, want %v", err, errBodyBudget)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("a second large body still waits for room 10 s after its 200ms limit")
	}
}

// TestBodyBudgetExactBodies: each body is read whole, at every size
// around the steps of the grants, with its length declared or not, and
// gives all its room back.
func TestBodyBudgetExactBodies(t *testing.T) {
	budget := NewBodyBudget(MinBodyBudget)
	for _, size := range []int{1, firstStep - 1, firstStep, firstStep + 1, bodyChunk - 1, bodyChunk, bodyChunk + 1, 3 * bodyChunk, maxReviewSize} {
		for _, declared := range []bool{true, false} {
			body := bytes.Repeat([]byte{'x'}, size)
			length := int64(-1)
			if declared {
				length = int64(size)
			}
			data, release, err := budget.read(t.Context(), bytes.NewReader(body), length, "192.0.2.1", nil)
			if err != nil || !bytes.Equal(data, body) {
				t.Fatalf("%d bytes, declared %t: %d bytes read, %v", size, declared, len(data), err)
			}
			release()
		}
	}
	if !budget.small.TryAcquire(MinBodyBudget/4) || !budget.complete.TryAcquire(MinBodyBudget/4) || !budget.large.TryAcquire(MinBodyBudget/2) {
		t.Error("the bodies did not give all their room back")
	}
	if len(budget.clients) != 0 {
		t.Errorf("%d addresses still counted", len(budget.clients))
	}
}

// TestSlowSendersHoldWhatTheySent: 600 bodies that each declare 64 KiB
// and send one byte hold 4 KiB each, not what they declared: a small body
// is still read at once. Granted their declared length, 600 such bodies
// held 38 MiB, more than the small half of any budget under 76 MiB.
func TestSlowSendersHoldWhatTheySent(t *testing.T) {
	budget := NewBodyBudget(MinBodyBudget)
	var slow []*stalling
	defer func() {
		for _, s := range slow {
			close(s.stop)
		}
	}()
	for i := range 600 {
		s := newStalling(1)
		slow = append(slow, s)
		// Each from an address of its own, as many callers would.
		go func() {
			_, _, _ = budget.read(context.Background(), s, bodyChunk, fmt.Sprintf("10.0.%d.%d", i/256, i%256), nil)
		}()
	}
	time.Sleep(100 * time.Millisecond) // each past its first byte

	ctx, cancel := context.WithTimeout(t.Context(), time.Second)
	defer cancel()
	data, release, err := budget.read(ctx, strings.NewReader("small"), 5, "192.0.2.1", nil)
	if err != nil || string(data) != "small" {
		t.Fatalf("a small body beside 600 slow ones: %q, %v", data, err)
	}
	release()
}

// TestClientShare: one address's slow large bodies hold at most its share
// of the large half; a large body from another address gets room at
// once.
func TestClientShare(t *testing.T) {
	budget := NewBodyBudget(64 << 20)
	var slow []*stalling
	defer func() {
		for _, s := range slow {
			close(s.stop)
		}
	}()
	for range 5 {
		s := newStalling(bodyChunk + 1)
		slow = append(slow, s)
		go func() { _, _, _ = budget.read(context.Background(), s, maxReviewSize, "192.0.2.66", nil) }()
	}
	time.Sleep(100 * time.Millisecond) // each past its first chunk

	ctx, cancel := context.WithTimeout(t.Context(), time.Second)
	defer cancel()
	body := bytes.Repeat([]byte{'x'}, maxReviewSize)
	for i := range 3 {
		data, release, err := budget.read(ctx, bytes.NewReader(body), maxReviewSize, "192.0.2.1", nil)
		if err != nil || len(data) != maxReviewSize {
			t.Fatalf("large body %d from another address beside 5 slow ones: %d bytes, %v", i, len(data), err)
		}
		defer release()
	}
}

// TestSlowBodies: a body that never finishes is cut off at the read
// deadline, and holds no more memory than what it sent.
func TestSlowBodies(t *testing.T) {
	s := serveReviews(fixedHandler(admission.Allowed("")))
	s.budget, s.readTimeout = NewBodyBudget(MinBodyBudget), 300*time.Millisecond
	server := httptest.NewServer(s)
	defer server.Close()

	conn, err := net.Dial("tcp", server.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	// Declares 7 MiB, sends a few bytes.
	if _, err := io.WriteString(conn, "POST /validate HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: "+strconv.Itoa(maxReviewSize)+"\r\n\r\n{\"apiVersion\""); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("answered after %s, want at the 300ms read deadline", took)
	}
	var review admissionv1.AdmissionReview
	if err := json.NewDecoder(resp.Body).Decode(&review); err != nil || review.Response == nil || review.Response.Allowed || review.Response.Result.Code != http.StatusBadRequest {
		t.Errorf("the slow body's answer: %v %+v, want a 400 review", err, review.Response)
	}

	// A normal review is answered meanwhile.
	body := `{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"1","operation":"CREATE"}}`
	r, err := http.Post(server.URL+ValidatePath, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	r.Body.Close()
	if r.StatusCode != http.StatusOK {
		t.Errorf("a normal review: HTTP %d", r.StatusCode)
	}
}

// TestBodyOverTheBoundUnread: a declared length over the bound is refused
// without reading the body.
func TestBodyOverTheBoundUnread(t *testing.T) {
	req := httptest.NewRequest(http.MethodPost, ValidatePath, newStalling(0))
	req.ContentLength = maxReviewSize + 1
	req.Header.Set("Content-Type", "application/json")
	rec := httptest.NewRecorder()
	serveReviews(fixedHandler(admission.Allowed(""))).ServeHTTP(rec, req)
	var review admissionv1.AdmissionReview
	if err := json.NewDecoder(rec.Body).Decode(&review); err != nil || review.Response.Result.Code != http.StatusRequestEntityTooLarge {
		t.Errorf("answer %v %+v, want 413", err, review.Response)
	}
}

// TestBodyPace: a body that sends a byte now and then is cut off once
// its bytes are overdue, two seconds in rather than at the read timeout;
// a body that arrives at the minimum rate, for longer than the grace, is
// read whole.
func TestBodyPace(t *testing.T) {
	s := serveReviews(fixedHandler(admission.Allowed("")))
	s.budget, s.readTimeout = NewBodyBudget(MinBodyBudget), 20*time.Second
	server := httptest.NewServer(s)
	defer server.Close()

	conn, err := net.Dial("tcp", server.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := io.WriteString(conn, "POST /validate HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	go func() {
		for range 40 {
			time.Sleep(500 * time.Millisecond)
			if _, err := io.WriteString(conn, " "); err != nil {
				return
			}
		}
	}()
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if took := time.Since(start); took < bodyGrace || took > bodyGrace+2*time.Second {
		t.Errorf("a byte every 500ms answered after %s, want at the %s grace", took, bodyGrace)
	}

	// 3.5 MiB at 1.25 MiB/s: 2.8 s, past the grace.
	review := []byte(`{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"1","operation":"CREATE"}}`)
	body := append(review, bytes.Repeat([]byte{' '}, 7*512<<10-len(review))...)
	pr, pw := io.Pipe()
	go func() {
		for chunk := range slices.Chunk(body, 512<<10) {
			time.Sleep(400 * time.Millisecond)
			if _, err := pw.Write(chunk); err != nil {
				return
			}
		}
		pw.Close()
	}()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, server.URL+ValidatePath, pr)
	if err != nil {
		t.Fatal(err)
	}
	req.ContentLength = int64(len(body))
	req.Header.Set("Content-Type", "application/json")
	r, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Body.Close()
	var answer admissionv1.AdmissionReview
	if err := json.NewDecoder(r.Body).Decode(&answer); err != nil || answer.Response == nil || !answer.Response.Allowed {
		t.Errorf("a body at the minimum rate: HTTP %d, %v %+v", r.StatusCode, err, answer.Response)
	}
}

// deadlined is a body that sends r's bytes and then nothing until a read
// deadline set on it passes, as a connection does.
type deadlined struct {
	r        io.Reader
	mu       sync.Mutex
	deadline time.Time
	// setAt is when the deadline was last set.
	setAt time.Time
}

func (d *deadlined) setDeadline(t time.Time) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.deadline, d.setAt = t, time.Now()
	return nil
}

func (d *deadlined) Read(p []byte) (int, error) {
	if n, err := d.r.Read(p); err != io.EOF {
		return n, err
	}
	for {
		d.mu.Lock()
		deadline := d.deadline
		d.mu.Unlock()
		if !deadline.IsZero() && !time.Now().Before(deadline) {
			return 0, os.ErrDeadlineExceeded
		}
		time.Sleep(time.Millisecond)
	}
}

func (d *deadlined) Close() error { return nil }

// paced is body paced as a connection's, with nothing due before limit,
// until the test ends.
func paced(t *testing.T, body io.Reader) *bodyPace {
	d, ok := body.(*deadlined)
	if !ok {
		d = &deadlined{r: body}
	}
	p := newBodyPace(d, d.setDeadline, time.Now().Add(time.Minute))
	t.Cleanup(func() { p.ended(false) })
	return p
}

// TestCompleteBodiesReserve: slow senders from 16 addresses hold the whole
// small pool and one holds the large half, yet a complete small body and a
// complete 1 MiB body are read at once, from the reserve. A slow sender
// that reaches the reserve is cut off with errBodyBudget as soon as its
// rest is due, and gives the reserve back.
func TestCompleteBodiesReserve(t *testing.T) {
	budget := NewBodyBudget(MinBodyBudget)
	var slow []*stalling
	defer func() {
		for _, s := range slow {
			close(s.stop)
		}
	}()
	hold := func(s *stalling, declared int64, address string) {
		slow = append(slow, s)
		go func() { _, _, _ = budget.read(context.Background(), s, declared, address, nil) }()
	}
	fill := func(pool *semaphore.Weighted) {
		for end := time.Now().Add(10 * time.Second); pool.TryAcquire(1); {
			pool.Release(1)
			if time.Now().After(end) {
				t.Fatal("the slow senders did not fill the budget")
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	hold(newStalling(bodyChunk+1), maxReviewSize, "10.0.1.1")
	fill(budget.large)
	// Each holds 64 KiB of the small pool once past its first 32 KiB.
	for i := range 160 {
		hold(newStalling(bodyChunk/2+1), bodyChunk, fmt.Sprintf("10.0.0.%d", i%16))
	}
	fill(budget.small)

	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
	defer cancel()
	for _, size := range []int{60 << 10, 1 << 20} {
		body := bytes.Repeat([]byte{'x'}, size)
		data, release, err := budget.read(ctx, bytes.NewReader(body), int64(size), "192.0.2.1", paced(t, bytes.NewReader(body)))
		if err != nil || !bytes.Equal(data, body) {
			t.Fatalf("a complete body of %d bytes beside the slow senders: %d bytes read, %v", size, len(data), err)
		}
		defer release()
	}

	slowest := &deadlined{r: strings.NewReader("{")}
	start := time.Now()
	if _, _, err := budget.read(ctx, slowest, bodyChunk, "192.0.2.2", paced(t, slowest)); !errors.Is(err, errBodyBudget) {
		t.Fatalf("a slow body in the reserve: err = %v, want %v", err, errBodyBudget)
	}
	if cutAt := slowest.deadline.Sub(start); cutAt >= bodyGrace {
		t.Errorf("the slow body in the reserve was due %s after it started, want %s", cutAt, completeWithin)
	}
	reserved := int64(60<<10+1) + (1<<20 + 1)
	if !budget.complete.TryAcquire(MinBodyBudget/completeShare - reserved) {
		t.Error("the slow body did not give the reserve back")
	}
}

// handlerFunc is a function as an admission.Handler.
type handlerFunc func(context.Context, admission.Request) admission.Response

func (f handlerFunc) Handle(ctx context.Context, req admission.Request) admission.Response {
	return f(ctx, req)
}

// TestBodyPaceEndsWithTheBody: a review handled for longer than the
// body's pace allowed it to arrive keeps its context. net/http reads the
// connection on once the body is read, to see the client hang up, and a
// read deadline left there canceled the request 2 s in: slow CRD
// replays were denied as "context canceled".
func TestBodyPaceEndsWithTheBody(t *testing.T) {
	s := serveReviews(handlerFunc(func(ctx context.Context, _ admission.Request) admission.Response {
		select {
		case <-ctx.Done():
			return admission.Errored(http.StatusInternalServerError, ctx.Err())
		case <-time.After(2 * bodyGrace):
			return admission.Allowed("")
		}
	}))
	s.budget = NewBodyBudget(MinBodyBudget)
	server := httptest.NewServer(s)
	defer server.Close()
	body := `{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"1","operation":"CREATE"}}`
	resp, err := http.Post(server.URL+ValidatePath, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	answer, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Errorf("a review handled for %s: HTTP %d %s", 2*bodyGrace, resp.StatusCode, answer)
	}
}

// TestBodyPaceSetsNoDeadlineOnTime: a body that arrives in time never
// has the connection's deadline set (over HTTP/2 each is a message to the
// connection's goroutine).
func TestBodyPaceSetsNoDeadlineOnTime(t *testing.T) {
	var set []time.Time
	pace := newBodyPace(io.NopCloser(strings.NewReader("a review")), func(d time.Time) error { set = append(set, d); return nil }, time.Now().Add(time.Minute))
	if _, err := io.ReadAll(pace); err != nil {
		t.Fatal(err)
	}
	pace.ended(true)
	if len(set) != 0 {
		t.Errorf("deadlines set: %v, want none", set)
	}
}

// TestBodyPaceCutsALateBody: a body whose bytes stop gets the connection's
// deadline once they are due, not before, which ends the read that waits
// for them; a deadline that moved later meanwhile is waited for.
func TestBodyPaceCutsALateBody(t *testing.T) {
	for _, moved := range []bool{false, true} {
		body := &deadlined{r: strings.NewReader("{")}
		start := time.Now()
		pace := newBodyPace(body, body.setDeadline, start.Add(50*time.Millisecond))
		want := start.Add(50 * time.Millisecond)
		if moved {
			want = start.Add(150 * time.Millisecond)
			pace.mu.Lock()
			pace.limit = want
			pace.mu.Unlock()
		}
		_, err := io.ReadAll(pace)
		pace.ended(false)
		if !errors.Is(err, os.ErrDeadlineExceeded) {
			t.Fatalf("moved %t: err = %v, want %v", moved, err, os.ErrDeadlineExceeded)
		}
		body.mu.Lock()
		deadline, setAt := body.deadline, body.setAt
		body.mu.Unlock()
		if !deadline.Equal(want) || setAt.Before(want) {
			t.Errorf("moved %t: deadline %s after the start, set %s after it; want %s for both", moved, deadline.Sub(start), setAt.Sub(start), want.Sub(start))
		}
	}
}

// TestBodyPaceResumesAfterItsDeadline: a body whose deadline passed while
// it waited for budget is on time again once it resumes: the deadline a
// check set is lifted, and the new one watched.
func TestBodyPaceResumesAfterItsDeadline(t *testing.T) {
	body := &deadlined{r: strings.NewReader("{}")}
	pace := newBodyPace(body, body.setDeadline, time.Now().Add(time.Minute))
	pace.mu.Lock()
	pace.due = time.Now().Add(10 * time.Millisecond)
	pace.mu.Unlock()
	for end := time.Now().Add(10 * time.Second); ; time.Sleep(time.Millisecond) {
		body.mu.Lock()
		set := !body.deadline.IsZero()
		body.mu.Unlock()
		if set {
			break
		}
		if time.Now().After(end) {
			t.Fatal("no deadline was set 10 s after the body was due")
		}
	}
	pace.resume()
	body.mu.Lock()
	deadline := body.deadline
	body.mu.Unlock()
	if !deadline.IsZero() {
		t.Fatalf("resumed: the connection's deadline is still %v", deadline)
	}
	buf := make([]byte, 2)
	if n, err := pace.Read(buf); n != 2 || err != nil {
		t.Errorf("resumed: read %d bytes, %v; want the body's 2", n, err)
	}
	pace.ended(true)
}

// TestBodyPaceLiftsTheDeadlineOfAWholeBody: a deadline set as a body's
// last bytes were read is lifted when it turns out whole, and kept when
// reading it failed.
func TestBodyPaceLiftsTheDeadlineOfAWholeBody(t *testing.T) {
	for _, whole := range []bool{true, false} {
		expired := make(chan struct{})
		var last time.Time
		pace := newBodyPace(io.NopCloser(strings.NewReader("")), func(d time.Time) error {
			if last = d; !d.IsZero() {
				close(expired)
			}
			return nil
		}, time.Now().Add(time.Millisecond))
		<-expired
		pace.ended(whole)
		if last.IsZero() != whole {
			t.Errorf("whole %t: the deadline last set is %v", whole, last)
		}
	}
}

// TestBodyBudgetTakesRoomWithoutWaiting: room there is now is granted
// without the context a wait needs, and a done context or a body already
// due gets none, as when waiting.
func TestBodyBudgetTakesRoomWithoutWaiting(t *testing.T) {
	budget := NewBodyBudget(MinBodyBudget)
	share, done := budget.client("192.0.2.1")
	defer done()
	g := &grant{pool: budget.small, share: share.small}
	if err := g.take(t.Context(), paced(t, strings.NewReader("")), firstStep); err != nil || g.n != firstStep || g.shared != firstStep {
		t.Fatalf("take: %v, holding %d (%d shared), want %d", err, g.n, g.shared, firstStep)
	}
	g.release()
	canceled, cancel := context.WithCancel(t.Context())
	cancel()
	if err := g.take(canceled, nil, firstStep); !errors.Is(err, errBodyBudget) || g.n != 0 || g.shared != 0 {
		t.Errorf("take with a done context: %v, holding %d (%d shared), want errBodyBudget and nothing", err, g.n, g.shared)
	}
	due := paced(t, strings.NewReader(""))
	due.limit = time.Now().Add(-time.Second)
	if err := g.take(t.Context(), due, firstStep); !errors.Is(err, errBodyBudget) || g.n != 0 || g.shared != 0 {
		t.Errorf("take for a body already due: %v, holding %d (%d shared), want errBodyBudget and nothing", err, g.n, g.shared)
	}
}

// TestPaceChecksEndWithTheBodies: a body is checked while it is read and
// forgotten once it ends, and the ticker stops when no body is left, so
// an idle server wakes up for none.
func TestPaceChecksEndWithTheBodies(t *testing.T) {
	pace := newBodyPace(io.NopCloser(strings.NewReader("")), func(time.Time) error { return nil }, time.Now().Add(time.Minute))
	paces.mu.Lock()
	_, watched := paces.watched[pace]
	ticking := paces.ticking
	paces.mu.Unlock()
	if !watched || !ticking {
		t.Fatalf("a body being read: watched %t, ticking %t; want both", watched, ticking)
	}
	pace.ended(true)
	for end := time.Now().Add(10 * time.Second); ; time.Sleep(paceTick / 10) {
		paces.mu.Lock()
		_, watched = paces.watched[pace]
		ticking = paces.ticking
		paces.mu.Unlock()
		if watched {
			t.Fatal("a body read is still watched")
		}
		if !ticking {
			return
		}
		if time.Now().After(end) {
			t.Fatal("the ticker still runs 10 s after the last body ended")
		}
	}
}

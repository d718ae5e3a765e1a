package webhook

import (
	"context"
	"errors"
	"io"
	"sync"
	"time"

	"golang.org/x/sync/semaphore"
)

// bodyChunk is how much of a body is read before it counts as large: most
// reviews fit in one.
const bodyChunk = 64 << 10

// firstStep is the room a body gets for its first bytes; it doubles as
// they arrive, up to bodyChunk.
const firstStep = 4 << 10

// MinBodyBudget is the smallest budget: room for one body of the largest
// size alongside the small ones.
const MinBodyBudget = 2 * maxReviewSize

// clientShare is the part of the small and of the large pool one client
// address may hold with bodies still arriving.
const clientShare = 4

// completeShare is the part of the budget kept for complete bodies, out
// of the half for small ones.
const completeShare = 4

// maxCompleteBody is the largest body the reserve for complete bodies
// takes: every ordinary review and most CRD updates. A larger one may not
// arrive within completeWithin on a loaded node, so it waits for its
// pool.
const maxCompleteBody = 1 << 20

// errBodyBudget is a body that waited until its deadline for room.
var errBodyBudget = errors.New("crdguard is reading too many request bodies at once")

// BodyBudget bounds the bytes of the request bodies being read and handled
// at once. A caller can declare 7 MiB and send it slowly, or send dozens of
// such bodies together: reading each into a buffer of its declared size
// would hold hundreds of megabytes.
//
// The first bodyChunk bytes of a body are granted from the small pool, a
// quarter of the budget, as they arrive: 4 KiB, doubled each time it
// fills. A connection that sends a byte now and then holds 4 KiB, not the
// 64 KiB or the Content-Length it declared. A body larger than that then
// waits for room for all of it (its Content-Length, or the 7 MiB bound) in
// the large pool, the other half, and gives the chunk back. That wait is
// for one grant whole, so large bodies that each hold part of what they
// need never block each other for good, and large bodies waiting for room
// never hold up small ones.
//
// While its bodies arrive, one client address holds at most a quarter of
// each pool (and at least room for one body): slow callers from one
// address leave the rest to the API server. Once a body is read, its bytes
// no longer count against its address. How fast a body must arrive is
// bodyPace's.
//
// The last quarter is kept for complete bodies: slow senders from many
// addresses can fill both pools. A body with a Content-Length of at most
// maxCompleteBody that finds no room in a pool right away takes the rest of its bytes from this
// reserve instead, as they arrive, provided all of them arrive within
// completeWithin: bytes the API server already sent are read at once. A
// slow sender there is cut off with a 503 as soon as they are due, having
// held a few KiB.
type BodyBudget struct {
	small, large *semaphore.Weighted
	// complete is the reserve for complete bodies.
	complete *semaphore.Weighted
	// completeSize is the largest body the reserve takes.
	completeSize int64
	// smallShare and largeShare are what one address may hold of each.
	smallShare, largeShare int64

	mu      sync.Mutex
	clients map[string]*clientBodies
}

// clientBodies is what one address's bodies hold while they arrive.
type clientBodies struct {
	small, large *semaphore.Weighted
	// readers counts the bodies using it; at 0 it is forgotten.
	readers int
}

// NewBodyBudget returns a budget of n bytes, at least MinBodyBudget.
func NewBodyBudget(n int64) *BodyBudget {
	n = max(n, MinBodyBudget)
	complete := n / completeShare
	small, large := n/2-complete, n-n/2
	return &BodyBudget{
		small: semaphore.NewWeighted(small), large: semaphore.NewWeighted(large),
		complete: semaphore.NewWeighted(complete), completeSize: min(complete, maxCompleteBody),
		smallShare: max(small/clientShare, bodyChunk), largeShare: max(large/clientShare, maxReviewSize),
		clients: map[string]*clientBodies{},
	}
}

// client is the share of address, counted as used until done is called.
func (b *BodyBudget) client(address string) (c *clientBodies, done func()) {
	b.mu.Lock()
	defer b.mu.Unlock()
	c = b.clients[address]
	if c == nil {
		c = &clientBodies{small: semaphore.NewWeighted(b.smallShare), large: semaphore.NewWeighted(b.largeShare)}
		b.clients[address] = c
	}
	c.readers++
	return c, func() {
		b.mu.Lock()
		defer b.mu.Unlock()
		if c.readers--; c.readers == 0 {
			delete(b.clients, address)
		}
	}
}

// grant is room taken from a pool and from an address's share of it.
type grant struct {
	pool, share *semaphore.Weighted
	// orComplete is a body that goes to the reserve for complete bodies
	// rather than wait for room in the pool: take then answers
	// errNoRoom.
	orComplete bool
	// n is the room held in the pool; shared the part of it also held in
	// the share.
	n, shared int64
}

// errNoRoom is a pool without room now, for a body that may take it from
// the reserve for complete bodies.
var errNoRoom = errors.New("no room in the pool")

// take adds n to g, waiting for room until ctx is done or, with pace,
// until the body's next bytes are due (dueBy).
func (g *grant) take(ctx context.Context, pace *bodyPace, n int64) error {
	if g.tryTake(ctx, pace, n) {
		return nil
	}
	if pace != nil {
		due, cancel := dueBy(ctx, pace)
		defer cancel()
		ctx = due
	}
	if g.share != nil {
		if err := g.share.Acquire(ctx, n); err != nil {
			return errBodyBudget
		}
		g.shared += n
	}
	if g.orComplete && !g.pool.TryAcquire(n) {
		if g.share != nil {
			g.share.Release(n)
			g.shared -= n
		}
		return errNoRoom
	}
	if !g.orComplete {
		if err := g.pool.Acquire(ctx, n); err != nil {
			return errBodyBudget
		}
	}
	g.n += n
	return nil
}

// tryTake is take when there is room now: it answers as take would,
// without the context and timer a wait needs. false leaves g as it was.
func (g *grant) tryTake(ctx context.Context, pace *bodyPace, n int64) bool {
	// Acquire fails on a done context even when there is room.
	if ctx.Err() != nil || (pace != nil && !time.Now().Before(pace.deadline())) {
		return false
	}
	if g.share != nil && !g.share.TryAcquire(n) {
		return false
	}
	if !g.pool.TryAcquire(n) {
		if g.share != nil {
			g.share.Release(n)
		}
		return false
	}
	if g.share != nil {
		g.shared += n
	}
	g.n += n
	return true
}

// arrived gives the address's share back: the body is read.
func (g *grant) arrived() {
	if g.share != nil {
		g.share.Release(g.shared)
		g.shared = 0
	}
}

func (g *grant) release() {
	g.arrived()
	g.pool.Release(g.n)
	g.n = 0
}

// read reads body within the budget; release gives its bytes back once
// the body is no longer needed. contentLength is -1 when unknown; client
// is the caller's address. pace, when not nil, is how body arrives: waits
// for room for the first chunk end when its next bytes are due, and every
// wait by its limit at the latest. A nil budget bounds nothing.
func (b *BodyBudget) read(ctx context.Context, body io.Reader, contentLength int64, client string, pace *bodyPace) (data []byte, release func(), err error) {
	if b == nil {
		data, err = io.ReadAll(body)
		return data, func() {}, err
	}
	share, done := b.client(client)
	defer done()
	// Only a paced body can be held to arriving at once, and only a
	// declared length says when it has.
	orComplete := pace != nil && contentLength >= 0 && contentLength <= b.completeSize
	small := &grant{pool: b.small, share: share.small, orComplete: orComplete}
	// Room for a declared length within the chunk, and a byte more to see
	// the end without growing.
	limit := int64(bodyChunk)
	if contentLength >= 0 && contentLength < bodyChunk {
		limit = contentLength + 1
	}
	data, eof, err := readGranted(ctx, body, nil, small, limit, pace)
	if errors.Is(err, errNoRoom) {
		if complete, release, err := b.readComplete(ctx, body, data, contentLength, pace, small); !errors.Is(err, errNoRoom) {
			return complete, release, err
		}
		small.orComplete = false
		data, eof, err = readGranted(ctx, body, data, small, limit, pace)
	}
	if err != nil || eof {
		small.arrived()
		if err != nil {
			small.release()
			return nil, nil, err
		}
		return data, small.release, nil
	}
	need := int64(maxReviewSize)
	if contentLength > 0 && contentLength < need {
		need = contentLength
	}
	large := &grant{pool: b.large, share: share.large, orComplete: orComplete}
	// The wait for a large grant is bounded by the request's deadline
	// alone: other bodies' reading is what it waits for.
	largeCtx, cancel := byLimit(ctx, pace)
	defer cancel()
	err = large.take(largeCtx, nil, need)
	if errors.Is(err, errNoRoom) {
		if complete, release, err := b.readComplete(ctx, body, data, contentLength, pace, small); !errors.Is(err, errNoRoom) {
			return complete, release, err
		}
		large.orComplete = false
		err = large.take(largeCtx, nil, need)
	}
	if err != nil {
		large.release()
		small.release()
		return nil, nil, err
	}
	if pace != nil {
		pace.resume()
	}
	data, err = readAll(body, data, need)
	small.release()
	large.arrived()
	if err != nil {
		large.release()
		return nil, nil, err
	}
	return data, large.release, nil
}

// readComplete reads the rest of a body of contentLength bytes, data of
// it read within held, from the reserve for complete bodies, as it
// arrives: all of it must arrive within completeWithin. A body that does
// not is still arriving, and gets no room: errBodyBudget. errNoRoom is a
// reserve without room now, with nothing read: the body waits for its
// pool then.
func (b *BodyBudget) readComplete(ctx context.Context, body io.Reader, data []byte, contentLength int64, pace *bodyPace, held *grant) ([]byte, func(), error) {
	limit := contentLength + 1
	size := nextSize(data, limit)
	if !b.complete.TryAcquire(size - int64(cap(data))) {
		return nil, nil, errNoRoom
	}
	rest := &grant{pool: b.complete, n: size - int64(cap(data))}
	release := func() {
		rest.release()
		held.release()
	}
	held.arrived()
	pace.hurry()
	data, eof, err := readGranted(ctx, body, grow(data, size), rest, limit, pace)
	if err == nil && !eof {
		err = errors.New("request body is longer than its Content-Length")
	}
	if err != nil {
		release()
		return nil, nil, errBodyBudget
	}
	return data, release, nil
}

// readGranted reads body into data, growing it as the bytes arrive by
// doubling from firstStep, each step granted by g, up to limit bytes. eof
// tells whether the body ended within them; errNoRoom returns what was
// read.
func readGranted(ctx context.Context, body io.Reader, data []byte, g *grant, limit int64, pace *bodyPace) (_ []byte, eof bool, err error) {
	for {
		if len(data) == cap(data) {
			if int64(cap(data)) >= limit {
				return data, false, nil
			}
			size := nextSize(data, limit)
			if err := g.take(ctx, pace, size-int64(cap(data))); err != nil {
				// What was read stays held by g, for the reserve.
				return data, false, err
			}
			data = grow(data, size)
		}
		n, err := body.Read(data[len(data):cap(data)])
		data = data[:len(data)+n]
		if err == io.EOF {
			return data, true, nil
		}
		if err != nil {
			return nil, false, err
		}
	}
}

// nextSize is the room data grows to: double, from firstStep, up to
// limit.
func nextSize(data []byte, limit int64) int64 {
	return min(max(2*int64(cap(data)), firstStep), limit)
}

// grow is data with room for size bytes.
func grow(data []byte, size int64) []byte {
	grown := make([]byte, len(data), size)
	copy(grown, data)
	return grown
}

// readAll reads the rest of body into data, grown to size at once. A
// body of more than size bytes is an error: size is its Content-Length,
// which net/http never reads past, or the bound, which
// http.MaxBytesReader reports.
func readAll(body io.Reader, data []byte, size int64) ([]byte, error) {
	data = grow(data, size)
	for {
		if len(data) == cap(data) {
			return data, atEnd(body)
		}
		n, err := body.Read(data[len(data):cap(data)])
		data = data[:len(data)+n]
		if err == io.EOF {
			return data, nil
		}
		if err != nil {
			return nil, err
		}
	}
}

// atEnd is nil when body has nothing more to read.
func atEnd(body io.Reader) error {
	var b [1]byte
	for {
		n, err := body.Read(b[:])
		switch {
		case n > 0:
			return errors.New("request body is longer than its Content-Length")
		case err == io.EOF:
			return nil
		case err != nil:
			return err
		}
	}
}

// byLimit is ctx ending at pace's limit, the request's deadline for its
// body. Every other wait ends by pace's deadline (dueBy), which is never
// later, so the request's context itself needs no deadline.
func byLimit(ctx context.Context, pace *bodyPace) (context.Context, context.CancelFunc) {
	if pace == nil {
		return ctx, func() {}
	}
	return context.WithDeadline(ctx, pace.limit)
}

// dueBy is ctx ending when pace says the body's next bytes are due: a
// body that cannot get room for its first bytes by then answers 503
// rather than hold what it has.
func dueBy(ctx context.Context, pace *bodyPace) (context.Context, context.CancelFunc) {
	if pace == nil {
		return ctx, func() {}
	}
	return context.WithDeadline(ctx, pace.deadline())
}

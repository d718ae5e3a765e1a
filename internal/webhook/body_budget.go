package webhook

import (
	"context"
	"errors"
	"io"
	"sync"

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

// clientShare is the part of each half one client address may hold with
// bodies still arriving.
const clientShare = 4

// errBodyBudget is a body that waited until its deadline for room.
var errBodyBudget = errors.New("crdguard is reading too many request bodies at once")

// BodyBudget bounds the bytes of the request bodies being read and handled
// at once. A caller can declare 7 MiB and send it slowly, or send dozens of
// such bodies together: reading each into a buffer of its declared size
// would hold hundreds of megabytes.
//
// The first bodyChunk bytes of a body are granted from one half of the
// budget as they arrive: 4 KiB, doubled each time it fills. A connection
// that sends a byte now and then holds 4 KiB, not the 64 KiB or the
// Content-Length it declared. A body larger than that then waits for room
// for all of it (its Content-Length, or the 7 MiB bound) in the other
// half, and gives the chunk back. That wait is for one grant whole, so
// large bodies that each hold part of what they need never block each
// other for good, and large bodies waiting for room never hold up small
// ones.
//
// While its bodies arrive, one client address holds at most a quarter of
// each half (and at least room for one body): slow callers from one
// address leave the rest to the API server. Once a body is read, its bytes
// no longer count against its address. How fast a body must arrive is
// bodyPace's.
type BodyBudget struct {
	small, large *semaphore.Weighted
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
	small, large := n/2, n-n/2
	return &BodyBudget{
		small: semaphore.NewWeighted(small), large: semaphore.NewWeighted(large),
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

// grant is room taken from a half and from an address's share of it.
type grant struct {
	pool, share *semaphore.Weighted
	// n is the room held in the pool; shared the part of it also held in
	// the share.
	n, shared int64
}

// take adds n to g, waiting until ctx is done for room.
func (g *grant) take(ctx context.Context, n int64) error {
	if g.share != nil {
		if err := g.share.Acquire(ctx, n); err != nil {
			return errBodyBudget
		}
		g.shared += n
	}
	if err := g.pool.Acquire(ctx, n); err != nil {
		return errBodyBudget
	}
	g.n += n
	return nil
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
// for room for the first chunk end when its next bytes are due. A nil
// budget bounds nothing.
func (b *BodyBudget) read(ctx context.Context, body io.Reader, contentLength int64, client string, pace *bodyPace) (data []byte, release func(), err error) {
	if b == nil {
		data, err = io.ReadAll(body)
		return data, func() {}, err
	}
	share, done := b.client(client)
	defer done()
	small := &grant{pool: b.small, share: share.small}
	// Room for a declared length within the chunk, and a byte more to see
	// the end without growing.
	limit := int64(bodyChunk)
	if contentLength >= 0 && contentLength < bodyChunk {
		limit = contentLength + 1
	}
	data, eof, err := readGranted(ctx, body, nil, small, limit, pace)
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
	large := &grant{pool: b.large, share: share.large}
	// The wait for a large grant is bounded by the request's deadline
	// alone: other bodies' reading is what it waits for.
	if err := large.take(ctx, need); err != nil {
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

// readGranted reads body into data, growing it as the bytes arrive by
// doubling from firstStep, each step granted by g, up to limit bytes. eof
// tells whether the body ended within them.
func readGranted(ctx context.Context, body io.Reader, data []byte, g *grant, limit int64, pace *bodyPace) (_ []byte, eof bool, err error) {
	for {
		if len(data) == cap(data) {
			if int64(cap(data)) >= limit {
				return data, false, nil
			}
			size := min(max(2*int64(cap(data)), firstStep), limit)
			due, cancel := dueBy(ctx, pace)
			err := g.take(due, size-int64(cap(data)))
			cancel()
			if err != nil {
				return nil, false, err
			}
			grown := make([]byte, len(data), size)
			copy(grown, data)
			data = grown
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

// readAll reads the rest of body into data, grown to size at once. A
// body of more than size bytes is an error: size is its Content-Length,
// which net/http never reads past, or the bound, which
// http.MaxBytesReader reports.
func readAll(body io.Reader, data []byte, size int64) ([]byte, error) {
	grown := make([]byte, len(data), size)
	copy(grown, data)
	data = grown
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

// dueBy is ctx ending when pace says the body's next bytes are due: a
// body that cannot get room for its first bytes by then answers 503
// rather than hold what it has.
func dueBy(ctx context.Context, pace *bodyPace) (context.Context, context.CancelFunc) {
	if pace == nil {
		return ctx, func() {}
	}
	return context.WithDeadline(ctx, pace.deadline())
}

package webhook

import (
	"bytes"
	"context"
	"errors"
	"io"

	"golang.org/x/sync/semaphore"
)

// bodyChunk is how much of a body is read before it counts as large: most
// reviews fit in one.
const bodyChunk = 64 << 10

// MinBodyBudget is the smallest budget: room for one body of the largest
// size alongside the small ones.
const MinBodyBudget = 2 * maxReviewSize

// errBodyBudget is a body that waited until its deadline for room.
var errBodyBudget = errors.New("crdguard is reading too many request bodies at once")

// BodyBudget bounds the bytes of the request bodies being read and handled
// at once. A caller can declare 7 MiB and send it slowly, or send dozens of
// such bodies together: reading each into a buffer of its declared size
// would hold hundreds of megabytes.
//
// Bodies are read as they arrive, so memory grows with the bytes
// received. The first bodyChunk bytes are granted from one half of the
// budget; a body larger than that then waits for room for all of it (its
// Content-Length, or the 7 MiB bound) in the other half, and gives the
// chunk back. Each wait is for one grant whole, so bodies that each hold
// part of what they need never block each other for good, and large
// bodies waiting for room never hold up small ones. A grant waits until
// the request's deadline.
type BodyBudget struct {
	small, large *semaphore.Weighted
}

// NewBodyBudget returns a budget of n bytes, at least MinBodyBudget.
func NewBodyBudget(n int64) *BodyBudget {
	n = max(n, MinBodyBudget)
	return &BodyBudget{small: semaphore.NewWeighted(n / 2), large: semaphore.NewWeighted(n - n/2)}
}

// read reads body within the budget; release gives its bytes back once
// the body is no longer needed. contentLength is -1 when unknown. A nil
// budget bounds nothing.
func (b *BodyBudget) read(ctx context.Context, body io.Reader, contentLength int64) (data []byte, release func(), err error) {
	release = func() {}
	if b != nil {
		if err := b.small.Acquire(ctx, bodyChunk); err != nil {
			return nil, nil, errBodyBudget
		}
		release = func() { b.small.Release(bodyChunk) }
	}
	// Room for a declared length within the chunk, and the bytes.MinRead
	// that ReadFrom wants free to see the end without growing.
	buf := bytes.NewBuffer(make([]byte, 0, min(max(contentLength, 0), bodyChunk)+bytes.MinRead))
	n, err := buf.ReadFrom(io.LimitReader(body, bodyChunk))
	if err != nil || n < bodyChunk {
		if err != nil {
			release()
			return nil, nil, err
		}
		return buf.Bytes(), release, nil
	}
	if b != nil {
		release()
		need := int64(maxReviewSize)
		if contentLength > 0 && contentLength < need {
			need = contentLength
		}
		if err := b.large.Acquire(ctx, need); err != nil {
			return nil, nil, errBodyBudget
		}
		release = func() { b.large.Release(need) }
	}
	if _, err := buf.ReadFrom(body); err != nil {
		release()
		return nil, nil, err
	}
	return buf.Bytes(), release, nil
}

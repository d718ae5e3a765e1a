package cluster

import (
	"context"
	"time"

	"github.com/crdguard/crdguard/internal/webhook"
)

// followEngines calls sync after every engine build and at least once per
// resync, sooner (after retry) when it failed, until ctx is done. A failure
// goes to onError with the wait before the next try; one caused by ctx
// ending does not. A zero resync is a minute, a zero retry five seconds.
func followEngines(ctx context.Context, engines *webhook.EngineHolder, resync, retry time.Duration, sync func(context.Context) error, onError func(err error, retryIn time.Duration)) {
	if resync <= 0 {
		resync = time.Minute
	}
	if retry <= 0 {
		retry = 5 * time.Second
	}
	for {
		// Taken before sync, so a build during sync is not missed.
		changed := engines.Changed()
		wait := resync
		if err := sync(ctx); err != nil && ctx.Err() == nil {
			onError(err, retry)
			wait = retry
		}
		timer := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			timer.Stop()
			return
		case <-changed:
		case <-timer.C:
		}
		timer.Stop()
	}
}

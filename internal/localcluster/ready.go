package localcluster

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
)

// WaitReady polls http://probe/readyz until it answers 200, for at most a
// minute, and fails early when the server stops first: exited is closed
// then, or carries how it stopped (Run's error, or the process's exit),
// a value sent back on exited, which must be buffered, for whoever waits
// for it next.
func WaitReady[T any](ctx context.Context, probe string, exited chan T) error {
	return wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		select {
		case res, open := <-exited:
			if open {
				exited <- res
			}
			return false, fmt.Errorf("it stopped before it was ready: %v", res)
		default:
		}
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+probe+"/readyz", nil)
		if err != nil {
			return false, err
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return false, nil
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK, nil
	})
}

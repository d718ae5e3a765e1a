package localwebhook

import (
	"errors"
	"strings"
	"testing"

	"github.com/crdguard/crdguard/cmd/crdguard-webhook/app"
)

// TestStartRefuses: an error from configure, or options the binary would
// refuse, stop Start before anything runs. (The e2e, self-signed TLS and
// reliability suites start it for real.)
func TestStartRefuses(t *testing.T) {
	boom := errors.New("boom")
	if _, err := Start(t.Context(), func(*app.Options) error { return boom }); !errors.Is(err, boom) {
		t.Errorf("configure's error: got %v, want %v", err, boom)
	}
	_, err := Start(t.Context(), func(o *app.Options) error {
		o.CertDir = ""
		o.TLSMode = "carrier-pigeon"
		return nil
	})
	if err == nil || !strings.Contains(err.Error(), "carrier-pigeon") {
		t.Errorf("invalid options: got %v, want an error naming the bad value", err)
	}
}

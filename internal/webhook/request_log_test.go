package webhook

import (
	"errors"
	"path/filepath"
	"testing"

	"github.com/go-logr/zapr"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"
	admissionv1 "k8s.io/api/admission/v1"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"
)

// TestRequestLogger: a line carries the request's identity, the values
// added later and the caller's own file; a disabled level writes nothing.
func TestRequestLogger(t *testing.T) {
	core, lines := observer.New(zapcore.InfoLevel)
	base := zapr.NewLogger(zap.New(core, zap.AddCaller())).WithName("admission")
	req := request(admissionv1.Create, bob, example(t, "good.yaml"), nil)

	log := requestLogger(base, &req).WithValues("kind", "MySQLCluster")
	log.V(1).Info("Allowed")
	log.WithName("validate").Info("Denied", "causes", 2)
	log.Error(errors.New("boom"), "Cannot evaluate the request")

	entries := lines.All()
	if len(entries) != 2 {
		t.Fatalf("got %d lines, want 2 (the V(1) line is disabled): %v", len(entries), entries)
	}
	denied := entries[0]
	if denied.LoggerName != "admission.validate" || denied.Message != "Denied" {
		t.Errorf("line %q from %q, want Denied from admission.validate", denied.Message, denied.LoggerName)
	}
	fields := denied.ContextMap()
	for key, want := range map[string]any{
		"namespace": req.Namespace, "name": req.Name, "user": bob.Username,
		"requestID": req.UID, "kind": "MySQLCluster", "causes": int64(2),
	} {
		if got := fields[key]; got != want {
			t.Errorf("%s = %#v, want %#v", key, got, want)
		}
	}
	for _, key := range []string{"object", "resource"} {
		if _, ok := fields[key]; !ok {
			t.Errorf("no %s in %v", key, fields)
		}
	}
	for _, e := range entries {
		if file := filepath.Base(e.Caller.File); file != "request_log_test.go" {
			t.Errorf("%q: caller %s, want this test", e.Message, e.Caller)
		}
	}
	if entries[1].Level != zapcore.ErrorLevel || entries[1].ContextMap()["error"] != "boom" {
		t.Errorf("error line %+v, want the error", entries[1])
	}
}

// TestRequestLoggerWithoutRequest: a review that could not be read has no
// request to name.
func TestRequestLoggerWithoutRequest(t *testing.T) {
	core, lines := observer.New(zapcore.InfoLevel)
	requestLogger(zapr.NewLogger(zap.New(core)), (*admission.Request)(nil)).Info("no request")
	if entries := lines.All(); len(entries) != 1 || len(entries[0].Context) != 0 {
		t.Errorf("got %v, want one line without values", entries)
	}
}

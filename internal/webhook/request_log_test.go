package webhook

import (
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	logf "sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/go-logr/zapr"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"
	admissionv1 "k8s.io/api/admission/v1"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	"github.com/crdguard/crdguard/internal/mysqlexample"
)

// TestRequestLogger: a line carries the request's identity, the values
// added later and the caller's own file; a disabled level writes nothing.
func TestRequestLogger(t *testing.T) {
	core, lines := observer.New(zapcore.InfoLevel)
	base := zapr.NewLogger(zap.New(core, zap.AddCaller())).WithName("admission")
	req := request(admissionv1.Create, bob, mysqlexample.JSON(t, "good.yaml"), nil)

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

// TestDecisionLog: a denial is logged at the default level with the
// request's kind, operation, policies and number of causes; an allow only
// at V(1), and then with whether an approval lifted anything and the
// number of warnings.
func TestDecisionLog(t *testing.T) {
	v := &Validator{Engines: engines(t)}
	for _, tt := range []struct {
		object string
		level  zapcore.Level
		want   map[string]any // the one line's message and fields; nil: no line
	}{
		{"unsafe.yaml", zapcore.InfoLevel, map[string]any{"msg": "Denied", "causes": int64(2)}},
		{"good.yaml", zapcore.InfoLevel, nil},
		{"good.yaml", zapcore.DebugLevel, map[string]any{"msg": "Allowed", "approval": false, "warnings": int64(0)}},
	} {
		core, lines := observer.New(tt.level)
		ctx := logf.IntoContext(t.Context(), zapr.NewLogger(zap.New(core)))
		v.Handle(ctx, request(admissionv1.Create, bob, mysqlexample.JSON(t, tt.object), nil))
		entries := lines.All()
		if tt.want == nil {
			if len(entries) != 0 {
				t.Errorf("%s at %s: logged %v, want nothing", tt.object, tt.level, entries)
			}
			continue
		}
		if len(entries) != 1 || entries[0].Message != tt.want["msg"] {
			t.Fatalf("%s at %s: logged %v, want one %s line", tt.object, tt.level, entries, tt.want["msg"])
		}
		fields := entries[0].ContextMap()
		if fields["kind"] != "MySQLCluster" || fmt.Sprint(fields["operation"]) != "CREATE" || fmt.Sprint(fields["policies"]) != "[mysql-safety]" {
			t.Errorf("%s: fields %v, want kind MySQLCluster, operation CREATE, policies [mysql-safety]", tt.object, fields)
		}
		for key, want := range tt.want {
			if key != "msg" && fields[key] != want {
				t.Errorf("%s: %s = %#v, want %#v", tt.object, key, fields[key], want)
			}
		}
	}
}

// TestLogLinesAreBounded: a value taken from the request reaches a log
// line cut to maxLoggedValue, never whole: a 6 MiB apiVersion, a 1 MiB
// name or kind.
func TestLogLinesAreBounded(t *testing.T) {
	core, lines := observer.New(zapcore.InfoLevel)
	base := zapr.NewLogger(zap.New(core))
	huge := strings.Repeat("v", 6<<20)

	body := `{"apiVersion":"` + huge + `","kind":"AdmissionReview","request":{"uid":"1","operation":"CREATE"}}`
	req := httptest.NewRequest(http.MethodPost, ValidatePath, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	serveReviews(fixedHandler(admission.Allowed(""))).ServeHTTP(httptest.NewRecorder(), req.WithContext(logf.IntoContext(req.Context(), base)))

	review := request(admissionv1.Create, bob, mysqlexample.JSON(t, "good.yaml"), nil)
	review.Name = strings.Repeat("n", 1<<20)
	log := requestLogger(base, &review).WithValues("kind", strings.Repeat("k", 1<<20))
	log.Info("Denied", "policies", []string{strings.Repeat("p", 1<<20)})
	log.Error(errors.New(huge), "Cannot evaluate the request")

	entries := lines.All()
	if len(entries) != 3 {
		t.Fatalf("got %d lines, want 3", len(entries))
	}
	for _, e := range entries {
		size := len(fmt.Sprint(e.ContextMap()))
		if size > 8*maxLoggedValue {
			t.Errorf("%q: %d bytes of values, want at most %d", e.Message, size, 8*maxLoggedValue)
		}
	}
	if got, _ := entries[0].ContextMap()["error"].(string); !strings.HasPrefix(got, `the body is a "AdmissionReview" of "vvv`) || !strings.HasSuffix(got, "bytes)") {
		t.Errorf("error = %.200q…, want the reason with the apiVersion cut", got)
	}
}

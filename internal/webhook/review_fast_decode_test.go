package webhook

import (
	"bytes"
	"errors"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"

	kjson "sigs.k8s.io/json"
)

// fastReviews are bodies the fast decoder must read itself, with what
// sigs.k8s.io/json makes of them.
var fastReviews = map[string]string{
	"as the API server sends it": `{"kind":"AdmissionReview","apiVersion":"admission.k8s.io/v1","request":{"uid":"705ab4f5","kind":{"group":"db.example.io","version":"v1","kind":"MySQLCluster"},` +
		`"resource":{"group":"db.example.io","version":"v1","resource":"mysqlclusters"},"requestKind":{"group":"db.example.io","version":"v1","kind":"MySQLCluster"},` +
		`"requestResource":{"group":"db.example.io","version":"v1","resource":"mysqlclusters"},"subResource":"","requestSubResource":"","name":"prod","namespace":"shop","operation":"CREATE",` +
		`"userInfo":{"username":"bob","uid":"42","groups":["system:authenticated"],"extra":{"scopes":["a","b"]}},"object":{"apiVersion":"db.example.io/v1","kind":"MySQLCluster"},` +
		`"oldObject":null,"dryRun":false,"options":{"apiVersion":"meta.k8s.io/v1","kind":"CreateOptions"}}}`,
	"white space everywhere": " \t\r\n{ \"request\" :\n{ \"operation\" : \"CREATE\" , \"object\" : { \"a\" : [ 1 , { } , [ ] ] } , \"options\" : [ 1 , 2 ] } } \n",
	"nulls":                  `{"apiVersion":null,"request":{"uid":null,"requestKind":null,"requestResource":null,"userInfo":{"groups":null,"extra":null},"object":null,"dryRun":null,"options":null}}`,
	"null request":           `{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":null}`,
	"empty":                  `{}`,
	"empty members":          `{"request":{"userInfo":{"groups":[],"extra":{}},"object":{},"kind":{}}}`,
	"numbers": `{"request":{"object":{"n":[0,-0,7,-12,1.5,-0.25,1e3,1E-2,2e+2,1.0,9223372036854775807,-9223372036854775808,` +
		`9223372036854775808,-9223372036854775809,123456789012345678901234567890,1.7976931348623157e308]}}}`,
	"options":  `{"request":{"options":{"a":[1,-2.5e3,"x\"y",{"b":null,"c":[]},{}],"d":true,"e":false,"f":"é"}}}`,
	"literals": `{"request":{"dryRun":true,"object":{"t":true,"f":false,"n":null}}}`,
	"escapes":  `{"request":{"name":"a\"b","object":{"k\\ey":"\"q\" \\ \/ \b\f\n\r\t","annotation":"{\"spec\":{\"x\":1}}\n"}}}`,
	"unicode":  `{"request":{"name":"héllo ✓","object":{"ключ":"值 😀","del":"` + "\x7f" + `"}}}`,
	// Inside an object's content the last of a repeated key wins, as in
	// encoding/json.
	"a key repeated in an object": `{"request":{"object":{"a":1,"b":{"c":2},"a":"x","b":{"d":3}}}}`,
	"deep but within the bound":   `{"request":{"object":{"a":` + strings.Repeat("[", 500) + strings.Repeat("]", 500) + `}}}`,
}

// slowReviews are bodies the fast decoder leaves to sigs.k8s.io/json.
var slowReviews = map[string]string{
	"null":                            `null`,
	"an array":                        `[]`,
	"a \\u escape":                    `{"request":{"object":{"a":"\u00e9"}}}`,
	"a \\u escape in a key":           `{"request":{"object":{"\u0061":1}}}`,
	"an unknown escape":               `{"request":{"object":{"a":"\x"}}}`,
	"invalid UTF-8":                   "{\"request\":{\"object\":{\"a\":\"\xff\"}}}",
	"a UTF-8 surrogate":               "{\"request\":{\"name\":\"\xed\xa0\x80\"}}",
	"a control character":             "{\"request\":{\"name\":\"a\tb\"}}",
	"a repeated request":              `{"request":{"uid":"1"},"request":{"operation":"CREATE"}}`,
	"a repeated object":               `{"request":{"object":{"a":1},"object":{"b":2}}}`,
	"a repeated user":                 `{"request":{"userInfo":{"username":"a"},"userInfo":{"groups":["g"]}}}`,
	"an unknown key":                  `{"request":{"uid":"1"},"response":{"allowed":true}}`,
	"a key in another case":           `{"request":{"UID":"1"}}`,
	"a number for a string":           `{"request":{"uid":5}}`,
	"a null group":                    `{"request":{"userInfo":{"groups":[null]}}}`,
	"a null extra":                    `{"request":{"userInfo":{"extra":{"a":null}}}}`,
	"an object that is an array":      `{"request":{"object":[]}}`,
	"a string for dryRun":             `{"request":{"dryRun":"true"}}`,
	"a null kind":                     `{"request":{"kind":null}}`,
	"an overflowing float":            `{"request":{"object":{"a":1e400}}}`,
	"a leading zero":                  `{"request":{"object":{"a":01}}}`,
	"a bare minus":                    `{"request":{"object":{"a":-}}}`,
	"a dot without digits":            `{"request":{"object":{"a":1.}}}`,
	"an exponent without digits":      `{"request":{"object":{"a":1e}}}`,
	"a plus sign":                     `{"request":{"object":{"a":+1}}}`,
	"a misspelled literal":            `{"request":{"object":{"a":nul}}}`,
	"a trailing comma":                `{"request":{"object":{"a":1,}}}`,
	"something after the review":      `{"request":{}} x`,
	"a second review":                 `{}{}`,
	"a byte order mark":               "\xef\xbb\xbf{}",
	"an unterminated string":          `{"request":{"name":"a`,
	"an escape at the end":            `{"request":{"name":"a\`,
	"too deep":                        `{"request":{"object":{"a":` + strings.Repeat("[", 600) + strings.Repeat("]", 600) + `}}}`,
	"truncated":                       `{"request":{"object":{"a":[1,2`,
	"a missing colon":                 `{"request" {}}`,
	"an options value cut short":      `{"request":{"options":{"a":}}}`,
	"a \\u escape in options":         `{"request":{"options":{"a":"\u00e9"}}}`,
	"an overflowing float in options": `{"request":{"options":[1e400]}}`,
	"invalid UTF-8 in options":        "{\"request\":{\"options\":{\"\xff\":1}}}",
	"options too deep":                `{"request":{"options":` + strings.Repeat("[", 600) + strings.Repeat("]", 600) + `}}`,
	"an extra that is not strings":    `{"request":{"userInfo":{"extra":{"a":[1]}}}}`,
}

// TestFastDecodeReview checks that the fast decoder reads what the API
// server sends exactly as sigs.k8s.io/json does, and leaves the rest to
// it.
func TestFastDecodeReview(t *testing.T) {
	for _, seed := range admissionReviewSeeds(t)[:7] {
		fastReviews["the fuzzer's seed "+string(seed[:min(len(seed), 120)])] = string(seed)
	}
	for name, body := range fastReviews {
		t.Run(name, func(t *testing.T) {
			fast, err := fastDecodeReview([]byte(body))
			if err != nil {
				t.Fatalf("fastDecodeReview: %v, want it decoded", err)
			}
			sameAsSlow(t, []byte(body), fast)
		})
	}
	for name, body := range slowReviews {
		t.Run(name, func(t *testing.T) {
			if _, err := fastDecodeReview([]byte(body)); !errors.Is(err, errNotFast) {
				t.Fatalf("fastDecodeReview: %v, want %v", err, errNotFast)
			}
		})
	}
}

// TestFastDecodeReviewTypes checks the Go types numbers get, which
// reflect.DeepEqual tells apart: an int64 for an integer that fits, else
// a float64.
func TestFastDecodeReviewTypes(t *testing.T) {
	fast, err := fastDecodeReview([]byte(fastReviews["numbers"]))
	if err != nil {
		t.Fatal(err)
	}
	want := []any{int64(0), int64(0), int64(7), int64(-12), 1.5, -0.25, 1000.0, 0.01, 200.0, 1.0, int64(9223372036854775807), int64(-9223372036854775808),
		9223372036854775808.0, -9223372036854775809.0, 123456789012345678901234567890.0, 1.7976931348623157e308}
	if got := fast.Request.Object["n"]; !reflect.DeepEqual(got, want) {
		t.Errorf("numbers decoded as %#v, want %#v", got, want)
	}
}

// sameAsSlow fails unless sigs.k8s.io/json decodes body as fast.
func sameAsSlow(t *testing.T, body []byte, fast *objectsReview) {
	t.Helper()
	slow := &objectsReview{}
	if err := kjson.UnmarshalCaseSensitivePreserveInts(body, slow); err != nil {
		t.Fatalf("the fast decoder read %q, which sigs.k8s.io/json refuses: %v", body, err)
	}
	if !reflect.DeepEqual(fast, slow) {
		t.Fatalf("%q decodes as\n%#v\nwith the fast decoder, as\n%#v\nwith sigs.k8s.io/json", body, fast, slow)
	}
}

// FuzzFastDecodeReview checks that every body the fast decoder reads is
// one sigs.k8s.io/json reads the same.
func FuzzFastDecodeReview(f *testing.F) {
	for _, seed := range admissionReviewSeeds(f) {
		f.Add(seed)
	}
	for _, bodies := range []map[string]string{fastReviews, slowReviews} {
		for _, body := range bodies {
			f.Add([]byte(body))
		}
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		if fast, err := fastDecodeReview(body); err == nil {
			sameAsSlow(t, body, fast)
		}
	})
}

// TestVerifyFastDecode checks that --verify-fast-paths answers a 500 when
// the fast decoder and sigs.k8s.io/json disagree, and the same verdict as
// without it when they agree.
func TestVerifyFastDecode(t *testing.T) {
	hook := verifiesFastPaths(true, webhooks(Config{Engines: engines(t)})[ValidatePath])
	review := exampleReview(t)
	serve := func() *httptest.ResponseRecorder {
		req := httptest.NewRequestWithContext(t.Context(), http.MethodPost, ValidatePath, bytes.NewReader(review))
		req.Header.Set("Content-Type", "application/json")
		rec := httptest.NewRecorder()
		hook.ServeHTTP(rec, req)
		return rec
	}
	if rec := serve(); rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), `"allowed":true`) {
		t.Fatalf("agreeing decoders: HTTP %d %s, want the review allowed", rec.Code, rec.Body)
	}
	t.Cleanup(func() { fastReviewDecoder = fastDecodeReview })
	fastReviewDecoder = func(body []byte) (*objectsReview, error) {
		review, err := fastDecodeReview(body)
		if err == nil {
			review.Request.Object["spec"] = nil
		}
		return review, err
	}
	rec := serve()
	if rec.Code != http.StatusInternalServerError || !strings.Contains(rec.Body.String(), errFastDecodeMismatch.Error()) {
		t.Fatalf("disagreeing decoders: HTTP %d %s, want a 500 saying %q", rec.Code, rec.Body, errFastDecodeMismatch)
	}
}

package webhook

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

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
	go func() { _, _, _ = budget.read(context.Background(), first, maxReviewSize) }()
	time.Sleep(50 * time.Millisecond) // past its first chunk and its grant

	ctx, cancel := context.WithTimeout(t.Context(), 200*time.Millisecond)
	defer cancel()
	if _, _, err := budget.read(ctx, bytes.NewReader(make([]byte, 2*bodyChunk)), 2*bodyChunk); !errors.Is(err, errBodyBudget) {
		t.Fatalf("a second large body: err = %v, want %v", err, errBodyBudget)
	}
	data, release, err := budget.read(t.Context(), strings.NewReader("small"), 5)
	if err != nil || string(data) != "small" {
		t.Fatalf("a small body while a large one holds its half: %q, %v", data, err)
	}
	release()
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

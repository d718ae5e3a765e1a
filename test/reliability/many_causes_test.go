package reliability

import (
	"bytes"
	"fmt"
	"net/http"
	"sync"
	"testing"
	"time"

	admissionv1 "k8s.io/api/admission/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// manyCauses is how many users TestManyCauses removes: each is a finding
// of the example's NoRemoval rule on spec.users.
const manyCauses = 10000

// TestManyCauses sends an UPDATE that removes 10,000 users (a 460 KB
// review no API server sends: the CRD allows 32, but anyone who reaches
// the port can), alone and four at once, to crdguard-webhook as its own
// process. Each is denied in well under a second with the first causes
// and a count of the rest, the answer is under 1 MiB, and four at once
// leave the process's memory under half the chart's limit.
func TestManyCauses(t *testing.T) {
	p := startWebhook(t)
	body := manyCausesReview(t)
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: trustingClientTLS(), MaxIdleConnsPerHost: 4}}
	defer client.CloseIdleConnections()
	// The first request pays for the connection and the lazily built
	// pools; it is not what is measured.
	if _, err := post(t.Context(), client, p.addr, "/validate", "application/json", bytes.NewReader(body)); err != nil {
		t.Fatal(err)
	}
	rssBefore := peakRSS(t, p.Cmd.Process.Pid)

	start := time.Now()
	a, err := post(t.Context(), client, p.addr, "/validate", "application/json", bytes.NewReader(body))
	took := time.Since(start)
	checkManyCauses(t, a, err)
	t.Logf("%d byte review answered in %v with %d bytes", len(body), took, len(a.body))
	if took >= time.Second {
		t.Errorf("answered in %v, want well under a second", took)
	}

	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			a, err := post(t.Context(), client, p.addr, "/validate", "application/json", bytes.NewReader(body))
			checkManyCauses(t, a, err)
		})
	}
	wg.Wait()
	peak := peakRSS(t, p.Cmd.Process.Pid)
	t.Logf("peak RSS %d MiB, %d MiB before the four at once", peak>>20, rssBefore>>20)
	if peak >= chartMemoryLimit/2 {
		t.Errorf("peak RSS %d MiB, want under half the chart's %d MiB limit", peak>>20, chartMemoryLimit>>20)
	}
}

// manyCausesReview is the review of an UPDATE of good.yaml that removes
// manyCauses users.
func manyCausesReview(t *testing.T) []byte {
	t.Helper()
	old := example(t, "good.yaml")
	old.SetNamespace(shopNamespace)
	users := make([]any, manyCauses)
	for i := range users {
		users[i] = map[string]any{"name": fmt.Sprintf("user-%d", i), "privileges": []any{"SELECT"}}
	}
	if err := unstructured.SetNestedSlice(old.Object, users, "spec", "users"); err != nil {
		t.Fatal(err)
	}
	obj := example(t, "good.yaml")
	obj.SetNamespace(shopNamespace)
	unstructured.RemoveNestedField(obj.Object, "spec", "users")
	return review("many-causes", admissionv1.Update, obj, old)
}

// checkManyCauses checks the answer to manyCausesReview: a denial whose
// last cause counts the users not named.
func checkManyCauses(t *testing.T, a answer, err error) {
	t.Helper()
	if err != nil {
		t.Error(err)
		return
	}
	r := a.response()
	if a.status != http.StatusOK || r == nil || r.Allowed || a.code() != http.StatusUnprocessableEntity || r.Result.Details == nil {
		t.Errorf("got %s, want a 422 denial", a)
		return
	}
	causes := r.Result.Details.Causes
	last := metav1.StatusCause{Type: "FieldValueForbidden", Field: "spec.users", Message: fmt.Sprintf("Forbidden: %d more findings not shown, %d in all", manyCauses-9, manyCauses)}
	if len(causes) != 10 || causes[9] != last {
		t.Errorf("%d causes, the last %+v; want 10, the last %+v", len(causes), causes[len(causes)-1], last)
	}
	if len(a.body) >= 1<<20 {
		t.Errorf("the answer is %d bytes, want under 1 MiB", len(a.body))
	}
}

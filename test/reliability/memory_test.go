package reliability

import (
	"bufio"
	"bytes"
	"crypto/tls"
	"fmt"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	admissionv1 "k8s.io/api/admission/v1"
)

// chartMemoryLimit is the chart's default container memory limit.
const chartMemoryLimit = 512 << 20

// TestBodiesWithinMemory: 100 callers that each declare a 7 MiB body and
// send it slowly, and 48 that send 7 MiB reviews at once, leave the
// webhook's peak RSS under the chart's memory limit, and normal reviews
// are answered all along.
func TestBodiesWithinMemory(t *testing.T) {
	p := startWebhook(t)
	good := example(t, "good.yaml")
	good.SetNamespace(shopNamespace)
	normal := review("normal", admissionv1.Create, good, nil)
	big := bigReview(t, maxReview-1024)

	// The slow ones hold their connections until the test ends.
	var slow []*tls.Conn
	defer func() {
		for _, c := range slow {
			c.Close()
		}
	}()
	for i := range 100 {
		c, err := tls.Dial("tcp", p.addr, trustingClientTLS())
		if err != nil {
			t.Fatalf("slow caller %d: %v", i, err)
		}
		slow = append(slow, c)
		fmt.Fprintf(c, "POST /validate HTTP/1.1\r\nHost: crdguard\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", len(big), big[:4096])
	}

	client := &http.Client{Transport: &http.Transport{TLSClientConfig: trustingClientTLS(), MaxIdleConnsPerHost: 64}}
	defer client.CloseIdleConnections()
	var wg sync.WaitGroup
	failures := make(chan string, 64)
	for i := range 48 {
		wg.Go(func() {
			a, err := post(t.Context(), client, p.addr, "/validate", "application/json", bytes.NewReader(big))
			if err != nil || a.status != http.StatusOK || a.response() == nil || !a.response().Allowed {
				failures <- fmt.Sprintf("large review %d: %v %s", i, err, a)
			}
		})
	}
	deadline := time.Now().Add(5 * time.Second)
	for n := 0; time.Now().Before(deadline) || n < 10; n++ {
		a, err := post(t.Context(), client, p.addr, "/validate", "application/json", bytes.NewReader(normal))
		if err != nil || a.status != http.StatusOK || a.response() == nil || !a.response().Allowed {
			t.Fatalf("normal review %d while hostile bodies are read: %v %s", n, err, a)
		}
	}
	wg.Wait()
	close(failures)
	for f := range failures {
		t.Error(f)
	}
	peak := peakRSS(t, p.Cmd.Process.Pid)
	t.Logf("peak RSS %d MiB with 100 slow and 48 large bodies", peak>>20)
	if peak >= chartMemoryLimit {
		t.Errorf("peak RSS %d MiB, want under the chart's %d MiB limit", peak>>20, chartMemoryLimit>>20)
	}
}

// bigReview is a review of the example object with an annotation that
// makes it size bytes.
func bigReview(t *testing.T, size int) []byte {
	t.Helper()
	good := example(t, "good.yaml")
	good.SetNamespace(shopNamespace)
	base := review("large", admissionv1.Create, good, nil)
	good.SetAnnotations(map[string]string{"example.io/padding": strings.Repeat("x", size-len(base)-64)})
	return review("large", admissionv1.Create, good, nil)
}

// peakRSS is the process's peak resident set size (VmHWM), in bytes.
func peakRSS(t *testing.T, pid int) int64 {
	t.Helper()
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		if rest, ok := strings.CutPrefix(s.Text(), "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			return kb << 10
		}
	}
	t.Fatal("no VmHWM in /proc/status")
	return 0
}

package reliability

import (
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/client"
)

// slowSenderAddress is where the slow senders connect from: an address of
// their own, as a pod's, apart from the API server's 127.0.0.1.
const slowSenderAddress = "127.0.0.2"

// TestSlowSenders: 600 connections that send a body one byte every 5 s,
// and five that send the first 64 KiB of a 7 MiB body and then a byte
// every 5 s, each connecting again as soon as it is cut off. Meanwhile
// every small MySQLCluster and every one over 64 KiB (most CRD updates
// are) that the API server sends to the webhook is answered in time.
func TestSlowSenders(t *testing.T) {
	ctx, stop := context.WithCancel(t.Context())
	var senders sync.WaitGroup
	var cut atomic.Int64
	for i := range 605 {
		declared, first := int64(bodyChunk), 1
		if i >= 600 {
			declared, first = maxReview, bodyChunk+1
		}
		senders.Go(func() { sendSlowly(ctx, declared, first, &cut) })
	}
	defer func() {
		stop()
		senders.Wait()
	}()
	time.Sleep(3 * time.Second) // every sender connected and holding

	large, err := readExample("good.yaml")
	if err != nil {
		t.Fatal(err)
	}
	large.SetNamespace(shopNamespace)
	large.SetAnnotations(map[string]string{"example.io/padding": strings.Repeat("x", 100<<10)})
	var small, big []time.Duration
	for end := time.Now().Add(20 * time.Second); time.Now().Before(end); {
		start := time.Now()
		if err := dryRunCreate(t.Context(), "good.yaml"); err != nil {
			t.Errorf("a small object beside the slow senders: %v", err)
		}
		small = append(small, time.Since(start))
		start = time.Now()
		if err := cluster.client.Create(t.Context(), large.DeepCopy(), client.DryRunAll); err != nil {
			t.Errorf("an object over 64 KiB beside the slow senders: %v", err)
		}
		big = append(big, time.Since(start))
		time.Sleep(200 * time.Millisecond)
	}
	t.Logf("%d slow connections cut off; small objects: %s; over 64 KiB: %s", cut.Load(), latencies(small), latencies(big))
}

// bodyChunk is the webhook's: a body over it is large.
const bodyChunk = 64 << 10

// sendSlowly connects to the shared webhook, declares a body of declared
// bytes, sends first of them and then one every 5 s, and connects again
// once the webhook cuts it off, until ctx is done.
func sendSlowly(ctx context.Context, declared int64, first int, cut *atomic.Int64) {
	dialer := &tls.Dialer{NetDialer: &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(slowSenderAddress)}}, Config: trustingClientTLS()}
	for ctx.Err() == nil {
		conn, err := dialer.DialContext(ctx, "tcp", cluster.webhookAddr)
		if err != nil {
			time.Sleep(100 * time.Millisecond)
			continue
		}
		stop := context.AfterFunc(ctx, func() { conn.Close() })
		go func() {
			_, _ = fmt.Fprintf(conn, "POST /validate HTTP/1.1\r\nHost: crdguard\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", declared, strings.Repeat(" ", first))
			for {
				select {
				case <-ctx.Done():
					return
				case <-time.After(5 * time.Second):
				}
				if _, err := io.WriteString(conn, " "); err != nil {
					return
				}
			}
		}()
		// Whatever the webhook answers, it ends with the connection.
		_, _ = io.Copy(io.Discard, conn)
		stop()
		conn.Close()
		if ctx.Err() == nil {
			cut.Add(1)
		}
	}
}

// latencies is the median and the maximum of ds.
func latencies(ds []time.Duration) string {
	if len(ds) == 0 {
		return "none"
	}
	slices.Sort(ds)
	return fmt.Sprintf("%d, median %s, max %s", len(ds), ds[len(ds)/2].Round(time.Millisecond), ds[len(ds)-1].Round(time.Millisecond))
}

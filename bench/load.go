package main

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"slices"
	"sync"
	"time"

	admissionv1 "k8s.io/api/admission/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"

	"github.com/crdguard/crdguard/internal/localcluster"
)

// A body is an AdmissionReview v1 the load generator POSTs.
type body struct {
	name string
	data []byte
}

// exampleObject reads examples/mysql/good.yaml, the example CR.
func exampleObject(root string) (map[string]any, error) {
	obj, err := localcluster.ReadObject(filepath.Join(root, "examples", "mysql", "good.yaml"), "")
	if err != nil {
		return nil, err
	}
	return obj.Object, nil
}

// largeObject is the example CR grown the ways real objects grow, still
// valid and allowed: the 32 users the CRD allows, labels, and the
// last-applied-configuration and other annotations tools leave (about
// 70 KiB in all).
func largeObject(example map[string]any) map[string]any {
	obj := runtime.DeepCopyJSON(example)
	spec := obj["spec"].(map[string]any)
	users := make([]any, 32)
	for i := range users {
		users[i] = map[string]any{"name": fmt.Sprintf("user%02d", i), "privileges": []any{"SELECT", "INSERT", "UPDATE", "DELETE"}}
	}
	spec["users"] = users
	meta := obj["metadata"].(map[string]any)
	labels := map[string]any{}
	annotations := map[string]any{}
	for i := range 20 {
		labels[fmt.Sprintf("example.io/label-%02d", i)] = fmt.Sprintf("value-%02d", i)
	}
	applied, _ := json.Marshal(obj)
	annotations["kubectl.kubernetes.io/last-applied-configuration"] = string(applied)
	for i := 0; len(applied)*(i+1) < 56<<10; i++ {
		annotations[fmt.Sprintf("example.io/config-%02d", i)] = string(applied)
	}
	meta["labels"], meta["annotations"] = labels, annotations
	return obj
}

// review wraps obj in an AdmissionReview v1 CREATE, as kube-apiserver sends
// it.
func review(obj map[string]any) ([]byte, error) {
	raw, err := json.Marshal(obj)
	if err != nil {
		return nil, err
	}
	meta := obj["metadata"].(map[string]any)
	namespace, _ := meta["namespace"].(string)
	gvk := metav1.GroupVersionKind{Group: "db.example.io", Version: "v1", Kind: "MySQLCluster"}
	gvr := metav1.GroupVersionResource{Group: "db.example.io", Version: "v1", Resource: "mysqlclusters"}
	dryRun := false
	r := admissionv1.AdmissionReview{
		TypeMeta: metav1.TypeMeta{APIVersion: "admission.k8s.io/v1", Kind: "AdmissionReview"},
		Request: &admissionv1.AdmissionRequest{
			UID: types.UID("705ab4f5-6393-11e8-b7cc-42010a800002"), Kind: gvk, Resource: gvr,
			RequestKind: &gvk, RequestResource: &gvr,
			Name: meta["name"].(string), Namespace: namespace, Operation: admissionv1.Create,
			UserInfo: authenticationv1.UserInfo{Username: "system:serviceaccount:shop:deployer", Groups: []string{"system:serviceaccounts", "system:serviceaccounts:shop", "system:authenticated"}},
			Object:   runtime.RawExtension{Raw: raw},
			DryRun:   &dryRun,
			Options:  runtime.RawExtension{Raw: []byte(`{"apiVersion":"meta.k8s.io/v1","kind":"CreateOptions","fieldManager":"kubectl-client-side-apply"}`)},
		},
	}
	return json.Marshal(r)
}

// newClient is a keep-alive HTTPS client speaking only HTTP/2 or only
// HTTP/1.1, with a connection per worker for HTTP/1.1 (HTTP/2 multiplexes
// one, as kube-apiserver's client does).
func newClient(pool *x509.CertPool, http2 bool, workers int) *http.Client {
	var protocols http.Protocols
	protocols.SetHTTP1(!http2)
	protocols.SetHTTP2(http2)
	return &http.Client{
		Transport: &http.Transport{
			TLSClientConfig:     &tls.Config{RootCAs: pool},
			Protocols:           &protocols,
			MaxIdleConns:        workers,
			MaxIdleConnsPerHost: workers,
			IdleConnTimeout:     time.Minute,
		},
		Timeout: 30 * time.Second,
	}
}

// answer is what a server must answer: an allowed AdmissionReview for the
// request's uid, or the request body itself.
type answer int

const (
	answerReview answer = iota
	answerEcho
)

// A load is concurrent POSTs of one body to one URL for a while.
type load struct {
	client      *http.Client
	url         string
	body        body
	http2       bool
	answer      answer
	concurrency int
	duration    time.Duration
}

// run POSTs for duration with l.concurrency workers and returns every
// request's latency, sorted, and the time it took.
func (l load) run(ctx context.Context, duration time.Duration) ([]time.Duration, time.Duration, error) {
	return closedLoop(ctx, l.concurrency, duration, l.post)
}

// closedLoop runs op in a loop on each of workers goroutines for
// duration, each starting its next op when the last one returned, and
// returns every op's latency, sorted, and the time it took. The first
// error stops every worker and is the one returned.
func closedLoop(ctx context.Context, workers int, duration time.Duration, op func(context.Context) error) ([]time.Duration, time.Duration, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var wg sync.WaitGroup
	latencies := make([][]time.Duration, workers)
	var stop sync.Once
	var firstErr error
	start := time.Now()
	deadline := start.Add(duration)
	for w := range workers {
		wg.Go(func() {
			for time.Now().Before(deadline) {
				t := time.Now()
				if err := op(ctx); err != nil {
					stop.Do(func() { firstErr = err; cancel() })
					return
				}
				latencies[w] = append(latencies[w], time.Since(t))
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	if firstErr != nil {
		return nil, 0, firstErr
	}
	all := slices.Concat(latencies...)
	slices.Sort(all)
	return all, elapsed, nil
}

func (l load) post(ctx context.Context) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, l.url, bytes.NewReader(l.body.data))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := l.client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("POST %s: %s: %.300s", l.url, resp.Status, data)
	}
	if want := map[bool]int{true: 2, false: 1}[l.http2]; resp.ProtoMajor != want {
		return fmt.Errorf("POST %s: answered over %s, want HTTP/%d", l.url, resp.Proto, want)
	}
	switch l.answer {
	case answerEcho:
		if !bytes.Equal(data, l.body.data) {
			return fmt.Errorf("POST %s: the echo differs from the request", l.url)
		}
	case answerReview:
		var r admissionv1.AdmissionReview
		if err := json.Unmarshal(data, &r); err != nil {
			return fmt.Errorf("POST %s: %w", l.url, err)
		}
		if r.Response == nil || r.Response.UID != "705ab4f5-6393-11e8-b7cc-42010a800002" || !r.Response.Allowed {
			return fmt.Errorf("POST %s: not an allowed review for the request: %.300s", l.url, data)
		}
	}
	return nil
}

// measure warms the connections up, then runs l against s and returns the
// rate, latency percentiles and s's CPU time per request.
func (l load) measure(ctx context.Context, s *server) (sample, error) {
	if _, _, err := l.run(ctx, max(l.duration/10, 100*time.Millisecond)); err != nil {
		return sample{}, fmt.Errorf("%s: %w", s.name, err)
	}
	cpu0, err := s.cpu()
	if err != nil {
		return sample{}, err
	}
	latencies, elapsed, err := l.run(ctx, l.duration)
	if err != nil {
		return sample{}, fmt.Errorf("%s: %w", s.name, err)
	}
	cpu1, err := s.cpu()
	if err != nil {
		return sample{}, err
	}
	n := len(latencies)
	return sample{
		rate: float64(n) / elapsed.Seconds(),
		p50:  percentile(latencies, 0.50),
		p99:  percentile(latencies, 0.99),
		cpu:  (cpu1 - cpu0) / time.Duration(max(n, 1)),
	}, nil
}

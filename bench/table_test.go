package main

import (
	"strings"
	"testing"
	"time"
)

func TestMedian(t *testing.T) {
	r := row{samples: []sample{
		{rate: 30, p50: 3 * time.Millisecond, memory: 300},
		{rate: 10, p50: 1 * time.Millisecond, memory: 100},
		{rate: 20, p50: 5 * time.Millisecond, memory: 200},
	}}
	// Field by field: the median rate and the median p50 come from
	// different rounds.
	if got, want := r.median(), (sample{rate: 20, p50: 3 * time.Millisecond, memory: 200}); got != want {
		t.Errorf("odd count: got %+v, want %+v", got, want)
	}
	r.samples = r.samples[:2]
	if got, want := r.median(), (sample{rate: 20, p50: 2 * time.Millisecond, memory: 200}); got != want {
		t.Errorf("even count: got %+v, want %+v", got, want)
	}
	if got := (&row{}).median(); got != (sample{}) {
		t.Errorf("no samples: got %+v, want zeros", got)
	}
}

func TestRoundRatios(t *testing.T) {
	a := &row{samples: []sample{{p50: 110}, {p50: 103}, {p50: 120}}}
	b := &row{samples: []sample{{p50: 100}, {p50: 100}, {p50: 100}}}
	if got, want := roundRatios(a, b, p50), "rounds 1.10×, 1.03–1.20×"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	// A round b measured nothing in is left out; no round at all is n/a.
	b.samples[2].p50 = 0
	if got, want := roundRatios(a, b, p50), "rounds 1.06×, 1.03–1.10×"; got != want {
		t.Errorf("zero in b: got %q, want %q", got, want)
	}
	if got, want := roundRatios(a, &row{}, rate), "rounds n/a"; got != want {
		t.Errorf("no rounds: got %q, want %q", got, want)
	}
}

func TestPercentile(t *testing.T) {
	var sorted []time.Duration
	for i := 1; i <= 200; i++ {
		sorted = append(sorted, time.Duration(i))
	}
	for _, tt := range []struct {
		p    float64
		want time.Duration
	}{{0.5, 100}, {0.99, 198}, {1, 200}, {0, 1}} {
		if got := percentile(sorted, tt.p); got != tt.want {
			t.Errorf("percentile(1..200, %v) = %v, want %v", tt.p, got, tt.want)
		}
	}
	if got := percentile(nil, 0.5); got != 0 {
		t.Errorf("percentile(nil) = %v, want 0", got)
	}
}

func TestAlternate(t *testing.T) {
	cases := []string{"a", "b", "c"}
	if got := strings.Join(alternate(cases, 0), ""); got != "abc" {
		t.Errorf("round 0: %s, want abc", got)
	}
	if got := strings.Join(alternate(cases, 1), ""); got != "cba" {
		t.Errorf("round 1: %s, want cba", got)
	}
	if got := strings.Join(cases, ""); got != "abc" {
		t.Errorf("alternate changed its argument: %s", got)
	}
}

func TestSelectFamilies(t *testing.T) {
	got, err := selectFamilies("cli,webhook")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range got {
		names = append(names, f.name())
	}
	// The table's order, not the flag's.
	if strings.Join(names, ",") != "webhook,cli" {
		t.Errorf("got %v, want [webhook cli]", names)
	}
	if _, err := selectFamilies("webhook,nope"); err == nil || !strings.Contains(err.Error(), `"nope"`) {
		t.Errorf("an unknown family: got %v, want an error naming it", err)
	}
}

func TestWriteTable(t *testing.T) {
	var b strings.Builder
	writeTable(&b, []*row{
		{family: "webhook", name: "(a) no-op, c=1", rateUnit: "req/s", samples: []sample{{rate: 5000.4, p50: 170500 * time.Nanosecond, p99: 2500 * time.Microsecond, cpu: 130 * time.Microsecond}}},
		{family: "scale", name: "start-up, 500 CRDs", samples: []sample{{p50: 1480 * time.Millisecond, memory: 173 << 20}}, vs: "start-up 14.05× | 1 CRD"},
	})
	want := `| family | case | rate | p50 / time | p99 | CPU per op | memory | compared |
|---|---|---:|---:|---:|---:|---:|---|
| webhook | (a) no-op, c=1 | 5000 req/s | 170.5 µs | 2.50 ms | 130.0 µs | – | – |
| scale | start-up, 500 CRDs | – | 1.48 s | – | – | 173 MiB | start-up 14.05× \| 1 CRD |
`
	if got := b.String(); got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
}

func TestSignedDuration(t *testing.T) {
	for d, want := range map[time.Duration]string{
		1200 * time.Microsecond:  "+1.20 ms",
		-1200 * time.Microsecond: "-1.20 ms",
		-300 * time.Microsecond:  "-300.0 µs",
	} {
		if got := signedDuration(d); got != want {
			t.Errorf("signedDuration(%v) = %q, want %q", d, got, want)
		}
	}
}

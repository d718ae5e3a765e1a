package main

import (
	"image/png"
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestWritePlot(t *testing.T) {
	file := filepath.Join(t.TempDir(), "latency.png")
	rows := []*row{
		{family: "webhook", name: "a", latency: true, samples: []sample{{p50: time.Millisecond, p99: 3 * time.Millisecond}}},
		{family: "webhook", name: "b", latency: true, samples: []sample{{p50: 2 * time.Millisecond, p99: 4 * time.Millisecond}}},
		{family: "endtoend", name: "c", latency: true, samples: []sample{{p50: 3 * time.Millisecond, p99: 9 * time.Millisecond}}},
		{family: "cli", name: "not plotted", samples: []sample{{p50: time.Second}}},
	}
	if err := writePlot(file, rows); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("not a PNG: %v", err)
	}
	// Two panels (webhook, endtoend) of 2 and 1 rows, at the default
	// 96 dpi of vgimg.
	wantHeight := int(((2*plotMargin + 3*plotRowHeight).Points() / 72 * 96) + 0.5)
	if b := img.Bounds(); b.Dx() != int(plotWidth.Points()/72*96+0.5) || b.Dy() != wantHeight {
		t.Errorf("image is %dx%d, want %dx%d", b.Dx(), b.Dy(), int(plotWidth.Points()/72*96+0.5), wantHeight)
	}

	// No latency rows: no plot, and none left from before.
	if err := writePlot(file, rows[3:]); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(file); !os.IsNotExist(err) {
		t.Errorf("a plot without latency rows is there: %v", err)
	}
}

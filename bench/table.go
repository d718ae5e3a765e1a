package main

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"
)

// A sample is what one round measured of one case; a field a case does not
// measure stays zero.
type sample struct {
	rate     float64       // requests or objects per second
	p50, p99 time.Duration // per request; for a one-off (start-up, a CLI run) p50 is its time
	cpu      time.Duration // server (or tool) CPU per request or object
	memory   int64         // bytes: RSS of the server after start-up, or the tool's peak
}

// A row of the results table: one case, the medians of its samples over
// the rounds, and how it compares.
type row struct {
	family, name string
	rateUnit     string // "req/s", "objects/s"; "" when rate is not measured
	samples      []sample
	// vs compares the case with others of its family, in words with the
	// numbers ("1.04× (a) p50"); filled in once every round has run.
	vs string
	// latency marks rows whose p50 and p99 are request latencies, the ones
	// plotted.
	latency bool
}

// median of the rounds' samples, field by field.
func (r *row) median() sample {
	return sample{
		rate:   medianOf(r.samples, func(s sample) float64 { return s.rate }),
		p50:    time.Duration(medianOf(r.samples, func(s sample) float64 { return float64(s.p50) })),
		p99:    time.Duration(medianOf(r.samples, func(s sample) float64 { return float64(s.p99) })),
		cpu:    time.Duration(medianOf(r.samples, func(s sample) float64 { return float64(s.cpu) })),
		memory: int64(medianOf(r.samples, func(s sample) float64 { return float64(s.memory) })),
	}
}

// medianOf f over samples: the middle value, or the mean of the middle two.
func medianOf(samples []sample, f func(sample) float64) float64 {
	if len(samples) == 0 {
		return 0
	}
	values := make([]float64, len(samples))
	for i, s := range samples {
		values[i] = f(s)
	}
	slices.Sort(values)
	mid := len(values) / 2
	if len(values)%2 == 0 {
		return (values[mid-1] + values[mid]) / 2
	}
	return values[mid]
}

// percentile p (0..1) of sorted latencies, nearest rank.
func percentile(sorted []time.Duration, p float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	i := int(p*float64(len(sorted))+0.5) - 1
	return sorted[min(max(i, 0), len(sorted)-1)]
}

// ratio of a to b as "1.23×", or "n/a" when b is zero.
func ratio(a, b float64) string {
	if b == 0 {
		return "n/a"
	}
	return fmt.Sprintf("%.2f×", a/b)
}

// roundRatios is the median and range of a's value over b's, round by round
// ("rounds 1.08×, 1.03–1.12×"). On a noisy machine a round's ratio drifts
// less than the ratio of the medians: both cases ran under the same load.
// Rounds are paired by index; every case runs once per round.
func roundRatios(a, b *row, value func(sample) float64) string {
	return "rounds " + pairedRatios(a, b, value)
}

// pairedRatios is the median and range of a's value over b's, sample by
// sample ("1.08×, 1.03–1.12×"), or "n/a" when no pair has a value in b.
func pairedRatios(a, b *row, value func(sample) float64) string {
	var ratios []sample
	for i := range min(len(a.samples), len(b.samples)) {
		if d := value(b.samples[i]); d != 0 {
			ratios = append(ratios, sample{rate: value(a.samples[i]) / d})
		}
	}
	if len(ratios) == 0 {
		return "n/a"
	}
	slices.SortFunc(ratios, func(x, y sample) int { return cmp.Compare(x.rate, y.rate) })
	return fmt.Sprintf("%.2f×, %.2f–%.2f×", medianOf(ratios, rate), ratios[0].rate, ratios[len(ratios)-1].rate)
}

// p50, rate and cpu are the sample values roundRatios compares.
func p50(s sample) float64  { return float64(s.p50) }
func rate(s sample) float64 { return s.rate }
func cpu(s sample) float64  { return float64(s.cpu) }

// writeTable writes rows as one markdown table.
func writeTable(w io.Writer, rows []*row) {
	fmt.Fprintln(w, "| family | case | rate | p50 / time | p99 | CPU per op | memory | compared |")
	fmt.Fprintln(w, "|---|---|---:|---:|---:|---:|---:|---|")
	for _, r := range rows {
		m := r.median()
		rate := "–"
		if r.rateUnit != "" {
			rate = fmt.Sprintf("%.0f %s", m.rate, r.rateUnit)
		}
		vs := r.vs
		if vs == "" {
			vs = "–"
		}
		fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %s | %s | %s |\n",
			r.family, escapeCell(r.name), rate, duration(m.p50), duration(m.p99), duration(m.cpu), mebibytes(m.memory), escapeCell(vs))
	}
}

// escapeCell keeps a pipe from splitting a markdown cell.
func escapeCell(s string) string {
	return strings.ReplaceAll(s, "|", `\|`)
}

// duration in a unit that keeps three significant digits; "–" for zero.
func duration(d time.Duration) string {
	switch {
	case d == 0:
		return "–"
	case d < time.Millisecond:
		return fmt.Sprintf("%.1f µs", float64(d)/float64(time.Microsecond))
	case d < time.Second:
		return fmt.Sprintf("%.2f ms", float64(d)/float64(time.Millisecond))
	default:
		return fmt.Sprintf("%.2f s", d.Seconds())
	}
}

// signedDuration is d with its sign, "+1.20 ms" or "-0.30 ms".
func signedDuration(d time.Duration) string {
	if d < 0 {
		return "-" + duration(-d)
	}
	return "+" + duration(d)
}

func mebibytes(b int64) string {
	if b <= 0 {
		return "–"
	}
	return fmt.Sprintf("%.0f MiB", float64(b)/(1<<20))
}

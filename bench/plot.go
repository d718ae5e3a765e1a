package main

import (
	"fmt"
	"image/color"
	"os"
	"slices"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

// Plot geometry: a panel per family, as tall as its rows need, so the
// sub-millisecond webhook latencies and the milliseconds through
// kube-apiserver each get their own scale.
const (
	plotWidth     = 13 * vg.Inch
	plotRowHeight = 0.24 * vg.Inch
	plotMargin    = 1.1 * vg.Inch // title, axis and legend of a panel
	plotBarWidth  = 6.5           // points, per bar
)

// writePlot draws the p50 and p99 latencies of the latency rows as
// horizontal bars, one panel per family, into a PNG file; without latency
// rows it removes file.
func writePlot(file string, rows []*row) error {
	var families []string
	byFamily := map[string][]*row{}
	for _, r := range rows {
		if !r.latency {
			continue
		}
		if _, ok := byFamily[r.family]; !ok {
			families = append(families, r.family)
		}
		byFamily[r.family] = append(byFamily[r.family], r)
	}
	if len(families) == 0 {
		// No plot rather than one from an earlier run beside this table.
		if err := os.Remove(file); err != nil && !os.IsNotExist(err) {
			return err
		}
		return nil
	}
	var panels []*plot.Plot
	var heights []vg.Length
	var total vg.Length
	for _, family := range families {
		p, err := latencyPanel(family, byFamily[family])
		if err != nil {
			return err
		}
		h := plotMargin + plotRowHeight*vg.Length(len(byFamily[family]))
		panels, heights, total = append(panels, p), append(heights, h), total+h
	}
	img := vgimg.New(plotWidth, total)
	dc := draw.New(img)
	top := total
	for i, p := range panels {
		p.Draw(draw.Canvas{Canvas: dc, Rectangle: vg.Rectangle{Min: vg.Point{X: 0, Y: top - heights[i]}, Max: vg.Point{X: plotWidth, Y: top}}})
		top -= heights[i]
	}
	f, err := os.Create(file)
	if err != nil {
		return err
	}
	if _, err := (vgimg.PngCanvas{Canvas: img}).WriteTo(f); err != nil {
		f.Close()
		return fmt.Errorf("writing %s: %w", file, err)
	}
	return f.Close()
}

// latencyPanel is one family's bars, its first row at the top.
func latencyPanel(family string, rows []*row) (*plot.Plot, error) {
	rows = slices.Clone(rows)
	slices.Reverse(rows) // the Y axis counts from the bottom
	var p50, p99 plotter.Values
	var names []string
	var longest float64
	for _, r := range rows {
		m := r.median()
		p50 = append(p50, float64(m.p50)/1e6)
		p99 = append(p99, float64(m.p99)/1e6)
		names = append(names, r.name)
		longest = max(longest, float64(m.p99)/1e6)
	}
	p := plot.New()
	p.Title.Text = family + ": request latency, median of the rounds"
	p.X.Label.Text = "ms"
	p.X.Min = 0
	p.X.Max = longest * 1.12 // room for the legend
	p.Y.Tick.Label.Font.Size = vg.Points(8)
	p.Add(plotter.NewGrid())
	for i, b := range []struct {
		name   string
		values plotter.Values
		color  color.Color
	}{
		{"p50", p50, color.RGBA{R: 31, G: 119, B: 180, A: 255}},
		{"p99", p99, color.RGBA{R: 255, G: 127, B: 14, A: 255}},
	} {
		bars, err := plotter.NewBarChart(b.values, vg.Points(plotBarWidth))
		if err != nil {
			return nil, fmt.Errorf("%s %s: %w", family, b.name, err)
		}
		bars.Horizontal = true
		bars.Color = b.color
		bars.LineStyle.Width = 0
		// p99 above p50 on each row.
		bars.Offset = vg.Points(plotBarWidth * (float64(i) - 0.5))
		p.Add(bars)
		p.Legend.Add(b.name, bars)
	}
	p.Legend.Top = true
	p.NominalY(names...)
	return p, nil
}

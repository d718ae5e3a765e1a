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
)

// writePlot draws the p50 and p99 latencies of the latency rows, one
// panel per family, into a PNG file; without latency
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

// latencyPanel is one family's latencies on a log scale, so a 100 µs
// request and a 100 ms one both show: a dot at p50 and a triangle at p99,
// joined, one row per case, its first row at the top.
func latencyPanel(family string, rows []*row) (*plot.Plot, error) {
	rows = slices.Clone(rows)
	slices.Reverse(rows) // the Y axis counts from the bottom
	var p50, p99 plotter.XYs
	var names []string
	p := plot.New()
	p.Title.Text = family + ": request latency, median of the rounds (log scale)"
	p.X.Label.Text = "ms"
	p.X.Scale = plot.LogScale{}
	p.X.Tick.Marker = plot.LogTicks{Prec: -1}
	p.Y.Tick.Label.Font.Size = vg.Points(8)
	p.Add(plotter.NewGrid())
	for i, r := range rows {
		m := r.median()
		if m.p50 <= 0 || m.p99 <= 0 {
			return nil, fmt.Errorf("%s %s: no latency to plot", family, r.name)
		}
		y := float64(i)
		p50 = append(p50, plotter.XY{X: float64(m.p50) / 1e6, Y: y})
		p99 = append(p99, plotter.XY{X: float64(m.p99) / 1e6, Y: y})
		names = append(names, r.name)
		span, err := plotter.NewLine(plotter.XYs{p50[i], p99[i]})
		if err != nil {
			return nil, err
		}
		span.Color = color.Gray{Y: 160}
		p.Add(span)
	}
	for _, m := range []struct {
		name   string
		points plotter.XYs
		shape  draw.GlyphDrawer
		color  color.Color
	}{
		{"p50", p50, draw.CircleGlyph{}, color.RGBA{R: 31, G: 119, B: 180, A: 255}},
		{"p99", p99, draw.TriangleGlyph{}, color.RGBA{R: 255, G: 127, B: 14, A: 255}},
	} {
		points, err := plotter.NewScatter(m.points)
		if err != nil {
			return nil, fmt.Errorf("%s %s: %w", family, m.name, err)
		}
		points.Shape, points.Color, points.Radius = m.shape, m.color, vg.Points(4)
		p.Add(points)
		p.Legend.Add(m.name, points)
	}
	p.Legend.Top = true
	p.NominalY(names...)
	return p, nil
}

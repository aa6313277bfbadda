package sweep

import (
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/dcsim/dcsim/analysis"
)

// Plot draws the groups into one figure, written to w as "png" or "svg":
// the p50 and the p99 slowdown per flow-size bucket against the bucket's
// largest size (log x, and log y where it spans more than a factor), the
// CDF of slowdown (log x), the mean and p99 slowdown per group (log y),
// the mean and p99 iteration time per group when any group has training
// runs, and one legend, in a panel of its own, for the line panels, whose
// series are one per group in the same styles. Log axes label 1, 2 and 5
// of each decade when they span under three decades, every decade
// otherwise. Without finished in-window flows (training runs only) the
// slowdown panels are left out rather than drawn empty.
func Plot(w io.Writer, format string, groups []*Group) error {
	if len(groups) == 0 {
		return ErrNoRuns
	}
	labels := legendLabels(groups)
	var panels []*plot.Plot
	flows := false
	for _, g := range groups {
		flows = flows || g.Analysis.Overall.Count > 0
	}
	for _, q := range []struct {
		title string
		stat  func(analysis.Summary) float64
	}{
		{"median slowdown by flow size", func(s analysis.Summary) float64 { return s.P50 }},
		{"99th-percentile slowdown by flow size", func(s analysis.Summary) float64 { return s.P99 }},
	} {
		if !flows {
			break // training runs only: their flows start after the window, so these panels would be empty
		}
		p, err := bySizePlot(q.title, groups, labels, q.stat)
		if err != nil {
			return err
		}
		panels = append(panels, p)
	}
	if flows {
		cdf, err := cdfPlot(groups, labels)
		if err != nil {
			return err
		}
		panels = append(panels, cdf, dotPlot(groups, labels))
	}
	var training []*Group
	var trainingLabels []string
	for i, g := range groups {
		if g.Iterations.Count > 0 {
			training = append(training, g)
			trainingLabels = append(trainingLabels, labels[i])
		}
	}
	if len(training) > 0 {
		it, err := barPlot("iteration time per group", "iteration time (ms)", training, trainingLabels,
			func(g *Group) (float64, float64) { return g.Iterations.Mean / 1e6, g.Iterations.P99 / 1e6 })
		if err != nil {
			return err
		}
		panels = append(panels, it)
	}
	if len(panels) == 0 {
		return errors.New("plot: no finished in-window flow and no training iteration to draw")
	}
	if flows {
		// One legend for the line panels, in a panel of its own, so that
		// no legend covers data.
		panels = append(panels, legendPanel(labels))
	}

	// Each panel is drawn into a tile of its own, which it lays out alone:
	// title, axes, tick labels and data all inside the tile. plot.Align,
	// which lined up the data areas of a row and a column, measured each
	// panel before cropping it and placed titles past the tile's top edge
	// (the first row's title cut off at the image's) and others far from
	// their data.
	cols := min(2, len(panels))
	rows := (len(panels) + cols - 1) / cols
	width, height := vg.Length(cols)*6*vg.Inch, vg.Length(rows)*4.5*vg.Inch

	var c vg.CanvasWriterTo
	switch format {
	case "png":
		c = vgimg.PngCanvas{Canvas: vgimg.NewWith(vgimg.UseWH(width, height), vgimg.UseDPI(plotDPI))}
	case "svg":
		c = vgsvg.New(width, height)
	default:
		return fmt.Errorf("plot format %q: want png or svg", format)
	}
	dc := draw.New(c)
	tiles := draw.Tiles{Rows: rows, Cols: cols, PadX: vg.Inch / 4, PadY: plotPad,
		PadTop: plotPad, PadBottom: vg.Inch / 8, PadLeft: vg.Inch / 8, PadRight: vg.Inch / 8}
	for i, p := range panels {
		p.Draw(tiles.At(dc, i%cols, i/cols))
	}
	_, err := c.WriteTo(w)
	return err
}

// plotDPI is the PNG's resolution; plotPad the blank margin above every
// row of panels, which nothing is drawn into.
const (
	plotDPI = 110
	plotPad = vg.Inch / 4
)

// bySizePlot draws stat of each size bucket against the bucket's largest
// flow size, one line per group. The groups go to plotutil in one call,
// in group order, so that a group has the same style in every panel.
func bySizePlot(title string, groups []*Group, labels []string, stat func(analysis.Summary) float64) (*plot.Plot, error) {
	p := newPlot(title, "flow size (largest in each 5% bucket; log scale)", "slowdown (fct / ideal fct)")
	p.X.Scale = plot.LogScale{}
	p.X.Tick.Marker = logTicks{format: analysis.HumanSize}
	var args []any
	top := 0.0
	for i, g := range groups {
		var xys plotter.XYs
		for _, b := range g.Analysis.Buckets {
			if v := stat(b.Summary); !math.IsNaN(v) && b.MaxSize > 0 {
				xys = append(xys, plotter.XY{X: float64(b.MaxSize), Y: v})
				top = max(top, v)
			}
		}
		args = append(args, labels[i], xys)
	}
	if top == 0 {
		p.X.Scale, p.X.Tick.Marker = plot.LinearScale{}, plot.DefaultTicks{}
	}
	if err := plotutil.AddLinePoints(p, args...); err != nil {
		return nil, err
	}
	p.Legend = plot.NewLegend() // the legend panel names the lines
	// Slowdowns are clamped at 1 and tails span orders of magnitude: a log
	// y axis keeps the well-behaved groups readable beside a bad tail.
	if top > 1 {
		p.Y.Scale = plot.LogScale{}
		p.Y.Tick.Marker = logTicks{format: func(v int64) string { return strconv.FormatInt(v, 10) }}
		p.Y.Label.Text = "slowdown (fct / ideal fct; log scale)"
	}
	p.Y.Min = 1
	return p, nil
}

// maxCDFPoints bounds each CDF line: more points than pixels add nothing.
const maxCDFPoints = 600

func cdfPlot(groups []*Group, labels []string) (*plot.Plot, error) {
	p := newPlot("CDF of slowdown (in-window flows)", "slowdown (fct / ideal fct, clamped at 1; log scale)", "fraction of flows")
	p.X.Scale = plot.LogScale{}
	p.X.Tick.Marker = logTicks{format: func(v int64) string { return strconv.FormatInt(v, 10) }}
	p.Y.Min, p.Y.Max = 0, 1
	var args []any
	haveData := false
	for i, g := range groups {
		var sd []float64
		for _, part := range g.parts {
			for _, f := range part {
				if f.Finished() {
					sd = append(sd, max(f.Slowdown, 1))
				}
			}
		}
		slices.Sort(sd)
		var xys plotter.XYs
		n := len(sd)
		for k := range min(n, maxCDFPoints) {
			i := k * n / min(n, maxCDFPoints)
			xys = append(xys, plotter.XY{X: sd[i], Y: float64(i+1) / float64(n)})
		}
		if n > 0 {
			xys = append(xys, plotter.XY{X: sd[n-1], Y: 1})
		}
		args = append(args, labels[i], xys)
		haveData = haveData || n > 0
	}
	if !haveData {
		p.X.Scale, p.X.Tick.Marker = plot.LinearScale{}, plot.DefaultTicks{}
	}
	if err := plotutil.AddLines(p, args...); err != nil {
		return nil, err
	}
	p.Legend = plot.NewLegend() // the legend panel names the lines
	return p, nil
}

// legendPanel is a panel with no axes holding the legend of the line
// panels: group i in plotutil's style i, as AddLinePoints drew it.
func legendPanel(labels []string) *plot.Plot {
	p := plot.New()
	p.HideAxes()
	p.Title.Text = "groups"
	p.Legend.Top, p.Legend.Left = true, true
	for i, l := range labels {
		line, points, err := plotter.NewLinePoints(plotter.XYs{{X: 0, Y: 0}})
		if err != nil {
			continue
		}
		line.Color = plotutil.Color(i)
		line.Dashes = plotutil.Dashes(i)
		points.Color = plotutil.Color(i)
		points.Shape = plotutil.Shape(i)
		p.Legend.Add(l, line, points)
	}
	return p
}

// dotPlot marks the mean (circle) and p99 (triangle) slowdown of each
// group on a log axis: means near 1 and tails in the hundreds are both
// readable, as bars from zero on a linear axis are not.
func dotPlot(groups []*Group, labels []string) *plot.Plot {
	// A y label longer than the data area is tall shrinks the data area
	// to the label's length (gonum pads the data to every glyph box):
	// keep it short.
	p := newPlot("mean (circles) and p99 (triangles) slowdown per group", "", "slowdown (clamped at 1; log scale)")
	p.Legend = plot.NewLegend()
	top := 1.0
	for k, stat := range []func(*Group) float64{
		func(g *Group) float64 { return g.Analysis.Overall.Mean },
		func(g *Group) float64 { return g.Analysis.Overall.P99 },
	} {
		var xys plotter.XYs
		for i, g := range groups {
			if v := stat(g); v >= 1 {
				xys = append(xys, plotter.XY{X: float64(i), Y: v})
				top = max(top, v)
			}
		}
		sc, err := plotter.NewScatter(xys)
		if err != nil {
			continue // no group has the statistic
		}
		sc.Shape = []draw.GlyphDrawer{draw.CircleGlyph{}, draw.TriangleGlyph{}}[k]
		sc.Color = plotutil.Color(k)
		sc.Radius = vg.Points(4)
		p.Add(sc)
	}
	p.NominalX(labels...)
	rotateLabels(p, len(groups))
	p.X.Min, p.X.Max = -0.5, float64(len(groups))-0.5
	p.Y.Min, p.Y.Max = 1, max(top*1.2, 10)
	p.Y.Scale = plot.LogScale{}
	p.Y.Tick.Marker = logTicks{format: func(v int64) string { return strconv.FormatInt(v, 10) }}
	return p
}

// barPlot draws two bars per group, a mean and a p99, side by side.
func barPlot(title, ylabel string, groups []*Group, labels []string, stat func(*Group) (mean, p99 float64)) (*plot.Plot, error) {
	p := newPlot(title, "", ylabel)
	means, p99s := make(plotter.Values, len(groups)), make(plotter.Values, len(groups))
	top := 0.0
	for i, g := range groups {
		m, q := stat(g)
		means[i], p99s[i] = nanToZero(m), nanToZero(q)
		top = max(top, means[i], p99s[i])
	}
	width := vg.Points(min(28, 220/float64(len(groups))))
	for k, series := range []struct {
		name string
		v    plotter.Values
	}{{"mean", means}, {"p99", p99s}} {
		b, err := plotter.NewBarChart(series.v, width)
		if err != nil {
			return nil, err
		}
		b.Color = plotutil.Color(k)
		b.LineStyle.Width = 0
		b.Offset = vg.Length(2*k-1) * width / 2
		p.Add(b)
		p.Legend.Add(series.name, b)
	}
	p.NominalX(labels...)
	rotateLabels(p, len(groups))
	p.Y.Min = 0
	legendRoom(p, 2, top)
	return p, nil
}

// rotateLabels slants the group names under a panel of n groups so that
// they do not run into each other: a little for a few, steeply for many.
func rotateLabels(p *plot.Plot, n int) {
	if n <= 3 {
		return
	}
	p.X.Tick.Label.Rotation = math.Pi / 8
	if n > 6 {
		p.X.Tick.Label.Rotation = math.Pi / 3
	}
	p.X.Tick.Label.XAlign = draw.XRight
	p.X.Tick.Label.YAlign = draw.YCenter
}

// legendRoom raises the top of the y axis so that a legend of n entries
// at the top of the panel sits above the data rather than on it.
func legendRoom(p *plot.Plot, n int, top float64) {
	if top <= p.Y.Min || math.IsInf(top, 0) {
		return
	}
	// Each legend line takes about 1/18 of a 4.5-inch panel's data height.
	frac := min(0.6, float64(n+1)/18)
	p.Y.Max = max(p.Y.Max, p.Y.Min+(top-p.Y.Min)/(1-frac))
}

// legendLabels names each group by the values of the grouping columns
// that differ between groups: scheduler and cc by their value alone
// ("storm"), other columns as last-path-element=value ("load=0.3").
// Without differing columns every group is "all".
func legendLabels(groups []*Group) []string {
	out := make([]string, len(groups))
	keys := groups[0].Keys
	for i, g := range groups {
		var parts []string
		for k, key := range keys {
			varies := false
			for _, h := range groups {
				varies = varies || h.Values[k] != groups[0].Values[k]
			}
			if !varies {
				continue
			}
			switch key {
			case "scheduler", "cc", "workload", "scenario":
				parts = append(parts, g.Values[k])
			default:
				short := key[strings.LastIndexByte(key, '.')+1:]
				parts = append(parts, short+"="+g.Values[k])
			}
		}
		out[i] = strings.Join(parts, ", ")
		if out[i] == "" {
			out[i] = g.ShortLabel()
		}
	}
	return out
}

func nanToZero(v float64) float64 {
	if math.IsNaN(v) {
		return 0
	}
	return v
}

func newPlot(title, x, y string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = x
	p.Y.Label.Text = y
	p.Legend.Top = true
	p.Legend.Left = true
	p.Add(plotter.NewGrid())
	return p
}

// logTicks marks a log axis: labelled ticks at 1, 2 and 5 times each power
// of ten when the axis spans less than three decades, at powers of ten
// otherwise, and unlabelled minor ticks at the other integers times a
// power of ten.
type logTicks struct {
	format func(int64) string
}

func (t logTicks) Ticks(lo, hi float64) []plot.Tick {
	if lo <= 0 || hi <= 0 || math.IsNaN(lo) || math.IsNaN(hi) || hi < lo {
		return nil
	}
	labelled := []float64{1, 2, 5}
	if math.Log10(hi/lo) >= 3 {
		labelled = []float64{1}
	}
	var ticks []plot.Tick
	for e := math.Floor(math.Log10(lo)); e <= math.Ceil(math.Log10(hi)) && e < 300; e++ {
		pow := math.Pow(10, e)
		for m := 1.0; m < 10; m++ {
			v := m * pow
			if v < lo*(1-1e-9) || v > hi*(1+1e-9) {
				continue
			}
			tk := plot.Tick{Value: v}
			if slices.Contains(labelled, m) {
				tk.Label = t.label(v)
			}
			ticks = append(ticks, tk)
		}
	}
	if countLabels(ticks) < 2 {
		// Less than one labelled step in range: label the ends too.
		ticks = append(ticks, plot.Tick{Value: lo, Label: t.label(lo)}, plot.Tick{Value: hi, Label: t.label(hi)})
	}
	return ticks
}

func (t logTicks) label(v float64) string {
	if r := math.Round(v); r >= 1 && math.Abs(v-r) <= 1e-6*v {
		return t.format(int64(r))
	}
	return strconv.FormatFloat(v, 'g', 3, 64)
}

func countLabels(ticks []plot.Tick) int {
	n := 0
	for _, t := range ticks {
		if t.Label != "" {
			n++
		}
	}
	return n
}

package sweep

import (
	"errors"
	"fmt"
	"image/color"
	"io"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgpdf"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/dcsim/dcsim/analysis"
	"github.com/dcsim/dcsim/wiring"
)

// PlotOptions choose what Plot draws. The zero value draws the p99
// slowdown by flow size (the iteration time of training runs when no
// flow finished in the window), schedulers as series.
type PlotOptions struct {
	// Kind is one of PlotKinds; "" picks slowdown-by-size, or iterations
	// when the runs are training runs only.
	Kind string
	// Series is the grouping column drawn as the lines (points) inside
	// each panel, one colour, marker and dash per value across the whole
	// figure; the other grouping columns that vary are the facets, one
	// panel per combination of their values. "" is scheduler when the
	// runs are grouped by it, else the last grouping column.
	Series string
	// Stat is the slowdown statistic of slowdown-by-size: p50, p95, p99
	// (the default: the tail is what schedulers are compared on) or mean.
	Stat string
}

// PlotKinds are the figures Plot draws, one panel per facet each:
//
//   - slowdown-by-size: Stat of the slowdown per 5% flow-size bucket
//     against the bucket's largest size (log x, log y);
//   - cdf: the CDF of slowdown (log x, linear y);
//   - ccdf: the fraction of flows above each slowdown (log x, log y):
//     the tail that a CDF squeezes into its top pixels;
//   - summary: the mean (circle) and p99 (triangle) slowdown per series;
//   - iterations: the mean (circle) and p99 (triangle) iteration time
//     per series, for training runs.
var PlotKinds = []string{"slowdown-by-size", "cdf", "ccdf", "summary", "iterations"}

// Limits of a legible figure: MaxSeries distinct colours, markers and
// dashes in one palette, MaxPanels panels of a paper column each.
const (
	MaxSeries = 8
	MaxPanels = 24
)

// Figure sizes: a panel fits one column of a two-column paper (3.5 in);
// the title and the legend strip sit above the panels. The PNG is drawn
// at plotDPI, enough for print.
const (
	panelWidth  = 3.5 * vg.Inch
	panelHeight = 2.6 * vg.Inch
	titleHeight = 0.3 * vg.Inch
	legendRow   = 0.17 * vg.Inch
	plotDPI     = 300
	maxCols     = 4 // a row of panels wider than a page is not read
)

// okabeIto is the Okabe-Ito palette, told apart with the common colour
// vision deficiencies (Okabe and Ito 2008), ordered so that the first
// series get the most distinct colours; yellow, weak on white, comes last.
var okabeIto = []color.RGBA{
	{0x00, 0x72, 0xB2, 0xff}, // blue
	{0xD5, 0x5E, 0x00, 0xff}, // vermillion
	{0x00, 0x9E, 0x73, 0xff}, // bluish green
	{0xCC, 0x79, 0xA7, 0xff}, // reddish purple
	{0xE6, 0x9F, 0x00, 0xff}, // orange
	{0x56, 0xB4, 0xE9, 0xff}, // sky blue
	{0x00, 0x00, 0x00, 0xff}, // black
	{0xF0, 0xE4, 0x42, 0xff}, // yellow
}

// Markers and dashes tell the series apart in greyscale, one each per
// palette colour.
var (
	seriesGlyphs = []draw.GlyphDrawer{draw.CircleGlyph{}, draw.TriangleGlyph{}, draw.SquareGlyph{}, draw.CrossGlyph{},
		draw.RingGlyph{}, draw.PyramidGlyph{}, draw.PlusGlyph{}, draw.BoxGlyph{}}
	seriesDashes = [][]vg.Length{nil, {vg.Points(4), vg.Points(2)}, {vg.Points(1), vg.Points(1.5)},
		{vg.Points(5), vg.Points(1.5), vg.Points(1), vg.Points(1.5)}, {vg.Points(8), vg.Points(2)},
		{vg.Points(2), vg.Points(2)}, {vg.Points(6), vg.Points(1.5), vg.Points(1), vg.Points(1.5), vg.Points(1), vg.Points(1.5)},
		{vg.Points(3), vg.Points(3)}}
)

// style is the look of series value i, the same in every panel.
type style struct {
	color  color.Color
	glyph  draw.GlyphDrawer
	dashes []vg.Length
}

func seriesStyle(i int) style {
	return style{okabeIto[i], seriesGlyphs[i], seriesDashes[i]}
}

// seriesSlots gives each series value its style. A scheduler keeps one
// style in every figure, its place among the catalog's schedulers in
// alphabetical order (fair blue, storm orange, ...: the legend's order
// when all seven are drawn), so that figures of different subsets read
// alike side by side. Any other column, or a scheduler the catalog does
// not know, takes the styles in legend order.
func seriesSlots(key string, values []string) []int {
	slots := make([]int, max(1, len(values))) // without a series column, one line: style 0
	for i := range slots {
		slots[i] = i
	}
	if key != "scheduler" {
		return slots
	}
	var names []string
	for _, p := range wiring.Catalog().Schedulers {
		names = append(names, p.Name)
	}
	slices.SortFunc(names, compareValues)
	if len(names) > MaxSeries {
		return slots
	}
	fixed := make([]int, len(values))
	for i, v := range values {
		if fixed[i] = slices.Index(names, v); fixed[i] < 0 {
			return slots
		}
	}
	return fixed
}

// Figure is a checked plan of a plot: its panels, series and layout.
// NewFigure makes it before anything is drawn, so a report can refuse
// a figure that would not be legible before it prints anything.
type Figure struct {
	kind, stat string
	ylabel     string
	seriesKey  string   // "" when there is no series column
	series     []string // the series values, in legend order
	slots      []int    // series value i has seriesStyle(slots[i])
	title      string
	panels     []*panel // row-major, nil for a facet combination without runs
	rows, cols int
}

type panel struct {
	title  string
	groups []*Group
	series []int // groups[i]'s series value
}

// NewFigure plans the figure of groups: it picks the series column and
// the facets, and checks the kind, the statistic and the limits
// (MaxSeries, MaxPanels).
func NewFigure(groups []*Group, opt PlotOptions) (*Figure, error) {
	if len(groups) == 0 {
		return nil, ErrNoRuns
	}
	flows, training := false, false
	for _, g := range groups {
		flows = flows || g.Analysis.Overall.Count > 0
		training = training || g.Iterations.Count > 0
	}
	f := &Figure{kind: opt.Kind, stat: opt.Stat}
	if f.kind == "" {
		f.kind = "slowdown-by-size"
		if !flows && training {
			f.kind = "iterations"
		}
	}
	if !slices.Contains(PlotKinds, f.kind) {
		return nil, fmt.Errorf("plot kind %q: want one of %s", f.kind, strings.Join(PlotKinds, ", "))
	}
	if f.stat == "" {
		f.stat = "p99"
	}
	if _, ok := statOf(f.stat); !ok {
		return nil, fmt.Errorf("plot statistic %q: want p50, p95, p99 or mean", f.stat)
	}
	switch {
	case f.kind == "iterations" && !training:
		return nil, errors.New("plot kind iterations: no run has training iterations")
	case f.kind != "iterations" && !flows:
		return nil, fmt.Errorf("plot kind %s: no finished in-window flow to draw (training runs: --plot-kind iterations)", f.kind)
	}

	keys := groups[0].Keys
	series := -1
	switch {
	case opt.Series != "":
		series = slices.Index(keys, opt.Series)
		if series < 0 {
			return nil, fmt.Errorf("plot series %q: not a grouping column (grouped by %s)", opt.Series, orNothing(keys))
		}
	case slices.Contains(keys, "scheduler"):
		series = slices.Index(keys, "scheduler")
	case len(keys) > 0:
		series = len(keys) - 1
	}
	var facets []int // grouping columns other than the series that vary
	for k := range keys {
		if k != series && varies(groups, k) {
			facets = append(facets, k)
		}
	}
	if series >= 0 {
		f.seriesKey = keys[series]
		for _, g := range groups {
			if !slices.Contains(f.series, g.Values[series]) {
				f.series = append(f.series, g.Values[series])
			}
		}
		slices.SortStableFunc(f.series, compareValues)
	}
	f.slots = seriesSlots(f.seriesKey, f.series)
	if len(f.series) > MaxSeries {
		return nil, fmt.Errorf("plot: %d values of %s in a panel, at most %d can be told apart: group by fewer, or pick another --series", len(f.series), f.seriesKey, MaxSeries)
	}
	f.title = constantsTitle(groups, keys, series, facets)
	if err := f.layout(groups, series, facets); err != nil {
		return nil, err
	}
	return f, nil
}

func orNothing(keys []string) string {
	if len(keys) == 0 {
		return "nothing"
	}
	return strings.Join(keys, ", ")
}

func varies(groups []*Group, k int) bool {
	for _, g := range groups {
		if g.Values[k] != groups[0].Values[k] {
			return true
		}
	}
	return false
}

// layout puts one panel per combination of the facet columns' values
// that has runs. With two or more facet columns the last one's values are
// the columns of the grid and the others' combinations its rows, so a
// reader compares along a row (load 0.5 beside 0.8) and down a column;
// otherwise the panels fill rows of up to three.
func (f *Figure) layout(groups []*Group, series int, facets []int) error {
	facetID := func(g *Group) string {
		var parts []string
		for _, k := range facets {
			parts = append(parts, g.Values[k])
		}
		return strings.Join(parts, "\x00")
	}
	byID := map[string]*panel{}
	var order []*panel // groups are sorted by their values, so panels come in facet order
	for _, g := range groups {
		id := facetID(g)
		p := byID[id]
		if p == nil {
			p = &panel{title: facetTitle(g, facets)}
			byID[id] = p
			order = append(order, p)
		}
		p.groups = append(p.groups, g)
		s := 0
		if series >= 0 {
			s = slices.Index(f.series, g.Values[series])
		}
		p.series = append(p.series, s)
	}
	if len(order) > MaxPanels {
		return fmt.Errorf("plot: %d panels (one per %s), at most %d fit a page: group by fewer columns", len(order), keyList(groups[0].Keys, facets), MaxPanels)
	}
	if len(facets) >= 2 {
		last := facets[len(facets)-1]
		var colVals, rowIDs []string
		for _, g := range groups {
			if v := g.Values[last]; !slices.Contains(colVals, v) {
				colVals = append(colVals, v)
			}
			if id := facetID(g)[:strings.LastIndexByte(facetID(g), 0)]; !slices.Contains(rowIDs, id) {
				rowIDs = append(rowIDs, id)
			}
		}
		slices.SortStableFunc(colVals, compareValues)
		if len(colVals) <= maxCols {
			f.rows, f.cols = len(rowIDs), len(colVals)
			f.panels = make([]*panel, f.rows*f.cols)
			for _, g := range groups {
				id := facetID(g)
				r := slices.Index(rowIDs, id[:strings.LastIndexByte(id, 0)])
				c := slices.Index(colVals, g.Values[last])
				f.panels[r*f.cols+c] = byID[id]
			}
			return nil
		}
	}
	f.cols = min(len(order), 3)
	f.rows = (len(order) + f.cols - 1) / f.cols
	f.panels = order
	return nil
}

func keyList(keys []string, idx []int) string {
	var out []string
	for _, k := range idx {
		out = append(out, keys[k])
	}
	return strings.Join(out, " x ")
}

// facetTitle names a panel by its facet values: "distribution=alistorage,
// load=0.5", a dotted column by its last element.
func facetTitle(g *Group, facets []int) string {
	var parts []string
	for _, k := range facets {
		key := g.Keys[k]
		parts = append(parts, key[strings.LastIndexByte(key, '.')+1:]+"="+g.Values[k])
	}
	return strings.Join(parts, ", ")
}

// constantsTitle names what every run of the figure shares: scenario,
// workload, load and cc when all runs agree on them, and any grouping
// column other than the series and the facets (constant, then).
func constantsTitle(groups []*Group, keys []string, series int, facets []int) string {
	var parts []string
	seen := map[string]bool{}
	add := func(col string) {
		short := col[strings.LastIndexByte(col, '.')+1:]
		if seen[short] || col == "config" {
			return
		}
		var val string
		for i, g := range groups {
			for j, r := range g.Runs {
				v, ok := r.Value(col)
				if !ok || (i+j > 0 && v != val) {
					return
				}
				val = v
			}
		}
		if val == "-" || val == "" { // a column these runs lack (the load of training runs)
			return
		}
		seen[short] = true
		switch col {
		case "scenario", "workload", "cc":
			parts = append(parts, val)
		default:
			parts = append(parts, short+" "+val)
		}
	}
	for _, c := range []string{"scenario", "workload", "load", "cc"} {
		add(c)
	}
	for k, key := range keys {
		if k != series && !slices.Contains(facets, k) {
			add(key)
		}
	}
	return strings.Join(parts, ", ")
}

// statOf picks a slowdown statistic of a summary.
func statOf(name string) (func(analysis.Summary) float64, bool) {
	switch name {
	case "p50":
		return func(s analysis.Summary) float64 { return s.P50 }, true
	case "p95":
		return func(s analysis.Summary) float64 { return s.P95 }, true
	case "p99":
		return func(s analysis.Summary) float64 { return s.P99 }, true
	case "mean":
		return func(s analysis.Summary) float64 { return s.Mean }, true
	}
	return nil, false
}

// Panels is the number of panels with runs; Rows and Cols the grid.
func (f *Figure) Panels() int {
	n := 0
	for _, p := range f.panels {
		if p != nil {
			n++
		}
	}
	return n
}

// Grid is the figure's rows and columns of panels.
func (f *Figure) Grid() (rows, cols int) { return f.rows, f.cols }

// Series are the values of the series column, in legend order; value i
// has colour f.SeriesColor(i) in every panel.
func (f *Figure) Series() (column string, values []string) { return f.seriesKey, f.series }

// SeriesColor is the colour of series value i.
func (f *Figure) SeriesColor(i int) color.Color { return okabeIto[f.slots[i]] }

// PlotFormat is the image format of a plot file, by its extension: png,
// svg or pdf.
func PlotFormat(path string) (string, error) {
	ext := strings.TrimPrefix(strings.ToLower(filepath.Ext(path)), ".")
	switch ext {
	case "png", "svg", "pdf":
		return ext, nil
	}
	return "", fmt.Errorf("%s: want a .png, .svg or .pdf file", path)
}

// Plot draws the groups' figure (NewFigure with opt) to w as png, svg or
// pdf.
func Plot(w io.Writer, format string, groups []*Group, opt PlotOptions) error {
	f, err := NewFigure(groups, opt)
	if err != nil {
		return err
	}
	return f.Write(w, format)
}

// Write draws the figure to w as png, svg or pdf: the title, the legend
// strip naming the series column, and the panels, each in a tile of its
// own that it lays out alone.
func (f *Figure) Write(w io.Writer, format string) error {
	plots, err := f.plots()
	if err != nil {
		return err
	}
	width := vg.Length(f.cols) * panelWidth
	legendCols, legendRows := f.legendGrid(width)
	legendH := vg.Length(legendRows)*legendRow + legendRow/2
	height := titleHeight + legendH + vg.Length(f.rows)*panelHeight

	var c vg.CanvasWriterTo
	switch format {
	case "png":
		c = vgimg.PngCanvas{Canvas: vgimg.NewWith(vgimg.UseWH(width, height), vgimg.UseDPI(plotDPI))}
	case "svg":
		// The fonts go inside the file: a viewer without Liberation Serif
		// would otherwise draw its own, and the labels would not fit.
		c = vgsvg.NewWith(vgsvg.UseWH(width, height), vgsvg.EmbedFonts(true))
	case "pdf":
		c = vgpdf.New(width, height)
	default:
		return fmt.Errorf("plot format %q: want png, svg or pdf", format)
	}
	dc := draw.New(c)
	dc.SetColor(color.White)
	dc.Fill(dc.Rectangle.Path())

	titleStyle := textStyle(9)
	titleStyle.XAlign, titleStyle.YAlign = draw.XCenter, draw.YTop
	dc.FillText(titleStyle, vg.Point{X: width / 2, Y: height - vg.Points(4)}, f.title)
	f.drawLegend(draw.Crop(dc, 0, 0, height-titleHeight-legendH, -titleHeight), legendCols)

	area := draw.Crop(dc, 0, 0, 0, -(titleHeight + legendH))
	tiles := draw.Tiles{Rows: f.rows, Cols: f.cols, PadX: vg.Points(2), PadY: vg.Points(4),
		PadTop: vg.Points(2), PadBottom: vg.Points(2), PadLeft: vg.Points(2), PadRight: vg.Points(4)}
	ysty := textStyle(8)
	ysty.Rotation, ysty.XAlign, ysty.YAlign = math.Pi/2, draw.XCenter, draw.YTop
	ylabelW := ysty.Height(f.ylabel) + vg.Points(2)
	for i, p := range plots {
		if p == nil {
			continue
		}
		t := tiles.At(area, i%f.cols, i/f.cols)
		// gonum centres a y label at the mean of the axis's ends in data
		// units, which on a log axis is near its top, and then pads the
		// data area to fit it there: the label is drawn here, in a strip
		// of its own, instead.
		t.FillText(ysty, vg.Point{X: t.Min.X, Y: (t.Min.Y + t.Max.Y) / 2}, f.ylabel)
		p.Draw(draw.Crop(t, ylabelW, 0, 0, 0))
	}
	_, err = c.WriteTo(w)
	return err
}

// legendGrid fits the legend's entries into columns across width.
func (f *Figure) legendGrid(width vg.Length) (cols, rows int) {
	if len(f.series) == 0 {
		return 0, 0
	}
	sty := textStyle(8)
	widest := vg.Length(0)
	for _, s := range f.series {
		widest = max(widest, sty.Width(s))
	}
	entry := widest + vg.Points(34) // thumbnail and gaps
	avail := width - sty.Width(f.seriesKey+":") - vg.Points(16)
	cols = max(1, min(len(f.series), int(avail/entry)))
	return cols, (len(f.series) + cols - 1) / cols
}

// drawLegend draws "column:" and then one entry per series value, in
// rows of cols, in the same style as the panels draw them.
func (f *Figure) drawLegend(c draw.Canvas, cols int) {
	if len(f.series) == 0 {
		return
	}
	sty := textStyle(8)
	sty.YAlign = draw.YCenter
	head := f.seriesKey + ":"
	x0 := c.Min.X + vg.Points(8)
	top := c.Max.Y - legendRow/2
	c.FillText(sty, vg.Point{X: x0, Y: top}, head)
	x0 += sty.Width(head) + vg.Points(8)
	colW := (c.Max.X - x0) / vg.Length(cols)
	// The summary and iteration panels mark a series' two statistics
	// with a circle and a triangle (the y label says which): a series
	// glyph in the legend would read as one of them.
	glyphs := f.kind != "summary" && f.kind != "iterations"
	for i, s := range f.series {
		st := seriesStyle(f.slots[i])
		x := x0 + vg.Length(i%cols)*colW
		y := top - vg.Length(i/cols)*legendRow
		ls := draw.LineStyle{Color: st.color, Width: vg.Points(1.2), Dashes: st.dashes}
		c.StrokeLine2(ls, x, y, x+vg.Points(22), y)
		if glyphs {
			c.DrawGlyph(draw.GlyphStyle{Color: st.color, Radius: vg.Points(2.5), Shape: st.glyph}, vg.Point{X: x + vg.Points(11), Y: y})
		}
		c.FillText(sty, vg.Point{X: x + vg.Points(26), Y: y}, s)
	}
}

func textStyle(size float64) draw.TextStyle {
	return draw.TextStyle{Color: color.Black, Font: font.From(plot.DefaultFont, vg.Points(size)), Handler: plot.DefaultTextHandler}
}

// plots makes one gonum plot per panel (nil for an empty cell), with one
// y range for all: panels side by side are compared by eye.
func (f *Figure) plots() ([]*plot.Plot, error) {
	out := make([]*plot.Plot, len(f.panels))
	lo, hi := math.Inf(1), math.Inf(-1)
	for i, p := range f.panels {
		if p == nil {
			continue
		}
		var (
			pl     *plot.Plot
			ylo    float64
			yhi    float64
			err    error
			logY   = true
			ytitle string
		)
		switch f.kind {
		case "slowdown-by-size":
			pl, ylo, yhi, err = f.bySize(p)
			ytitle = f.stat + " slowdown (log)"
		case "cdf":
			pl, err = f.cdf(p)
			logY, ylo, yhi, ytitle = false, 0, 1, "fraction of flows"
		case "ccdf":
			pl, ylo, yhi, err = f.ccdfPanel(p)
			ytitle = "fraction of flows above (log)"
		case "summary":
			pl, ylo, yhi = f.dots(p, func(g *Group) (float64, float64) { return g.Analysis.Overall.Mean, g.Analysis.Overall.P99 })
			ytitle = "slowdown: mean o, p99 ^ (log)"
		case "iterations":
			pl, ylo, yhi = f.dots(p, func(g *Group) (float64, float64) { return g.Iterations.Mean / 1e6, g.Iterations.P99 / 1e6 })
			logY, ytitle = false, "iteration (ms): mean o, p99 ^"
			ylo = 0
		}
		if err != nil {
			return nil, err
		}
		f.ylabel = ytitle
		if logY {
			pl.Y.Scale = plot.LogScale{}
			pl.Y.Tick.Marker = logTicks{format: func(v int64) string { return strconv.FormatInt(v, 10) }}
		}
		lo, hi = min(lo, ylo), max(hi, yhi)
		out[i] = pl
	}
	if math.IsInf(lo, 0) || math.IsInf(hi, 0) {
		return nil, errors.New("plot: nothing to draw")
	}
	for _, pl := range out {
		if pl == nil {
			continue
		}
		if _, log := pl.Y.Scale.(plot.LogScale); log {
			pl.Y.Min, pl.Y.Max = niceFloor(lo), niceCeil(hi)
		} else if f.kind != "cdf" {
			pl.Y.Min, pl.Y.Max = 0, hi*1.1
		}
	}
	return out, nil
}

// newPanel is a plot styled for a paper column: 9 pt title, 8 pt axis
// labels, 7 pt tick labels, a light grid.
func newPanel(title, xlabel string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.Title.TextStyle.Font.Size = vg.Points(9)
	p.Title.Padding = vg.Points(3)
	p.X.Label.Text = xlabel
	for _, a := range []*plot.Axis{&p.X, &p.Y} {
		a.Label.TextStyle.Font.Size = vg.Points(8)
		a.Tick.Label.Font.Size = vg.Points(7)
		a.Label.Padding = vg.Points(2)
	}
	grid := plotter.NewGrid()
	grid.Vertical.Color = color.Gray{Y: 0xe0}
	grid.Horizontal.Color = color.Gray{Y: 0xe0}
	p.Add(grid)
	return p
}

// addLine draws xys in series style s: the line and, at most every
// markEvery points, its marker.
func addLine(p *plot.Plot, xys plotter.XYs, s, markEvery int) error {
	if len(xys) == 0 {
		return nil
	}
	st := seriesStyle(s)
	l, err := plotter.NewLine(xys)
	if err != nil {
		return err
	}
	l.Color, l.Width, l.Dashes = st.color, vg.Points(1), st.dashes
	p.Add(l)
	var marks plotter.XYs
	for i := 0; i < len(xys); i += markEvery {
		marks = append(marks, xys[i])
	}
	sc, err := plotter.NewScatter(marks)
	if err != nil {
		return err
	}
	sc.Color, sc.Shape, sc.Radius = st.color, st.glyph, vg.Points(2)
	p.Add(sc)
	return nil
}

func (f *Figure) bySize(p *panel) (*plot.Plot, float64, float64, error) {
	stat, _ := statOf(f.stat)
	pl := newPanel(p.title, "flow size (largest in 5% bucket, log)")
	pl.X.Scale = plot.LogScale{}
	pl.X.Tick.Marker = logTicks{format: analysis.HumanSize}
	lo, hi := math.Inf(1), math.Inf(-1)
	for i, g := range p.groups {
		var xys plotter.XYs
		for _, b := range g.Analysis.Buckets {
			if v := stat(b.Summary); !math.IsNaN(v) && b.MaxSize > 0 {
				xys = append(xys, plotter.XY{X: float64(b.MaxSize), Y: v})
				lo, hi = min(lo, v), max(hi, v)
			}
		}
		if err := addLine(pl, xys, f.slots[p.series[i]], 1); err != nil {
			return nil, 0, 0, err
		}
	}
	return pl, max(lo, 1), max(hi, 1), nil
}

// maxCDFPoints bounds each CDF line: more points than pixels add nothing.
const maxCDFPoints = 600

// sortedSlowdowns are the clamped slowdowns of the group's finished
// in-window flows, ascending.
func sortedSlowdowns(g *Group) []float64 {
	var sd []float64
	for _, part := range g.parts {
		for _, fl := range part {
			if fl.Finished() {
				sd = append(sd, max(fl.Slowdown, 1))
			}
		}
	}
	slices.Sort(sd)
	return sd
}

func (f *Figure) cdf(p *panel) (*plot.Plot, error) {
	pl := newPanel(p.title, "slowdown (clamped at 1, log)")
	pl.X.Scale = plot.LogScale{}
	pl.X.Tick.Marker = logTicks{format: func(v int64) string { return strconv.FormatInt(v, 10) }}
	pl.Y.Min, pl.Y.Max = 0, 1
	for i, g := range p.groups {
		sd := sortedSlowdowns(g)
		n := len(sd)
		var xys plotter.XYs
		for k := range min(n, maxCDFPoints) {
			j := k * n / min(n, maxCDFPoints)
			xys = append(xys, plotter.XY{X: sd[j], Y: float64(j+1) / float64(n)})
		}
		if n > 0 {
			xys = append(xys, plotter.XY{X: sd[n-1], Y: 1})
		}
		if err := addLine(pl, xys, f.slots[p.series[i]], max(1, len(xys)/6)); err != nil {
			return nil, err
		}
	}
	return pl, nil
}

// ccdfPanel draws P(slowdown > x) on log axes, down to 1/n: the last
// points are single flows. Points are spaced evenly in log probability,
// so that the tail keeps its resolution.
func (f *Figure) ccdfPanel(p *panel) (*plot.Plot, float64, float64, error) {
	pl := newPanel(p.title, "slowdown (clamped at 1, log)")
	pl.X.Scale = plot.LogScale{}
	pl.X.Tick.Marker = logTicks{format: func(v int64) string { return strconv.FormatInt(v, 10) }}
	lo := 1.0
	for i, g := range p.groups {
		sd := sortedSlowdowns(g)
		n := len(sd)
		if n == 0 {
			continue
		}
		var xys plotter.XYs
		last := -1
		for k := range maxCDFPoints + 1 {
			// the fraction above goes from 1 to 1/n, evenly in log
			frac := math.Pow(float64(n), -float64(k)/maxCDFPoints)
			j := min(n-1, int(math.Round(float64(n)*(1-frac))))
			if j == last {
				continue
			}
			last = j
			above := float64(n-j) / float64(n)
			xys = append(xys, plotter.XY{X: sd[j], Y: above})
			lo = min(lo, above)
		}
		if err := addLine(pl, xys, f.slots[p.series[i]], max(1, len(xys)/6)); err != nil {
			return nil, 0, 0, err
		}
	}
	return pl, lo, 1, nil
}

// dots marks two statistics per group at the group's series value on a
// nominal x axis: the first with a circle, the second with a triangle,
// in the series colour.
func (f *Figure) dots(p *panel, stats func(*Group) (float64, float64)) (*plot.Plot, float64, float64) {
	pl := newPanel(p.title, "")
	var names []string
	for i := range p.groups {
		names = append(names, f.seriesName(p.series[i]))
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for i, g := range p.groups {
		a, b := stats(g)
		st := seriesStyle(f.slots[p.series[i]])
		for k, v := range []float64{a, b} {
			if math.IsNaN(v) || v <= 0 {
				continue
			}
			lo, hi = min(lo, v), max(hi, v)
			sc, err := plotter.NewScatter(plotter.XYs{{X: float64(i), Y: v}})
			if err != nil {
				continue
			}
			sc.Color, sc.Radius = st.color, vg.Points(3)
			sc.Shape = []draw.GlyphDrawer{draw.CircleGlyph{}, draw.TriangleGlyph{}}[k]
			pl.Add(sc)
		}
	}
	pl.NominalX(names...)
	pl.X.Tick.Label.Font.Size = vg.Points(7)
	if len(names) > 3 {
		pl.X.Tick.Label.Rotation = math.Pi / 6
		pl.X.Tick.Label.XAlign, pl.X.Tick.Label.YAlign = draw.XRight, draw.YCenter
	}
	pl.X.Min, pl.X.Max = -0.5, float64(len(names))-0.5
	return pl, max(lo, 1), max(hi, 1)
}

func (f *Figure) seriesName(i int) string {
	if len(f.series) == 0 {
		return "all"
	}
	return f.series[i]
}

// niceCeil is the least 1, 2 or 5 times a power of ten at or above v,
// so that a log axis ends on a labelled tick.
func niceCeil(v float64) float64 {
	if v <= 0 || math.IsNaN(v) {
		return 1
	}
	pow := math.Pow(10, math.Floor(math.Log10(v)))
	for _, m := range []float64{1, 2, 5, 10} {
		if m*pow >= v*(1-1e-9) {
			return m * pow
		}
	}
	return 10 * pow
}

// niceFloor is the largest 1, 2 or 5 times a power of ten at or below v.
func niceFloor(v float64) float64 {
	if v <= 0 || math.IsNaN(v) {
		return 1
	}
	pow := math.Pow(10, math.Floor(math.Log10(v)))
	for _, m := range []float64{5, 2, 1} {
		if m*pow <= v*(1+1e-9) {
			return m * pow
		}
	}
	return pow
}

// logTicks marks a log axis: labelled ticks at every integer times the
// power of ten when the axis spans at most one decade, at 1, 2 and 5
// times each power of ten up to three decades (1 to 1000: the slowdowns
// of most figures), at powers of ten beyond;
// unlabelled minor ticks at the other integers times a power of ten.
type logTicks struct {
	format func(int64) string
}

func (t logTicks) Ticks(lo, hi float64) []plot.Tick {
	if lo <= 0 || hi <= 0 || math.IsNaN(lo) || math.IsNaN(hi) || hi < lo {
		return nil
	}
	labelled := []float64{1, 2, 5}
	switch span := math.Log10(hi / lo); {
	case span <= 1+1e-9:
		labelled = []float64{1, 2, 3, 4, 5, 6, 7, 8, 9}
	case span > 3+1e-9:
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

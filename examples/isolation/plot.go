package main

import (
	"fmt"
	"sort"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"

	"github.com/dcsim/dcsim/examples/internal/figure"
)

// plotCmd draws, per (k, hot spot) in the CSV, network efficiency and the
// background goodput to non-hot-spot hosts against time, one line per scheme.
func plotCmd(in, out string) error {
	rows, err := figure.ReadCSV(in)
	if err != nil {
		return err
	}
	type key struct{ k, hot string }
	eff := map[key]map[string]plotter.XYs{}
	thr := map[key]map[string]plotter.XYs{}
	var keys []key
	for i, r := range rows {
		if len(r) != 8 && len(r) != 9 { // 9: with other_injected_gbps
			return fmt.Errorf("%s:%d: want 8 or 9 fields, got %d", in, i+2, len(r))
		}
		var v [3]float64
		for j, col := range []int{3, 4, 7} {
			if v[j], err = strconv.ParseFloat(r[col], 64); err != nil {
				return fmt.Errorf("%s:%d: %v", in, i+2, err)
			}
		}
		if v[0] > 600 { // the drain after arrivals stop: efficiency there divides tiny numbers
			continue
		}
		kk := key{r[0], r[1]}
		if eff[kk] == nil {
			eff[kk], thr[kk] = map[string]plotter.XYs{}, map[string]plotter.XYs{}
			keys = append(keys, kk)
		}
		eff[kk][r[2]] = append(eff[kk][r[2]], plotter.XY{X: v[0], Y: v[1]})
		thr[kk][r[2]] = append(thr[kk][r[2]], plotter.XY{X: v[0], Y: v[2]})
	}
	var panels [][]*plot.Plot
	for _, kk := range keys {
		title := fmt.Sprintf("k = %s, %s", kk.k, kk.hot)
		panels = append(panels, []*plot.Plot{
			panel(title+": network efficiency", "delivered / injected", eff[kk]),
			panel(title+": background goodput to other hosts", "Gbps (flows finished per 10 us)", thr[kk]),
		})
	}
	return figure.SavePNG(out, 12*vg.Inch, vg.Length(len(keys))*4*vg.Inch, panels)
}

func panel(title, unit string, lines map[string]plotter.XYs) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = "time (us); hot spot from 200 to 400 us"
	p.Y.Label.Text = unit
	p.Legend.Top = true
	p.Legend.Left = true
	p.X.Min, p.X.Max = 0, 600
	names := make([]string, 0, len(lines))
	for n := range lines {
		names = append(names, n)
	}
	sort.Strings(names)
	for i, n := range names {
		l, err := plotter.NewLine(lines[n])
		if err != nil {
			continue
		}
		l.Color = plotutil.Color(i)
		l.Dashes = plotutil.Dashes(i / 5)
		l.Width = vg.Points(1.5)
		p.Add(l)
		p.Legend.Add(n, l)
	}
	p.Add(plotter.NewGrid())
	return p
}

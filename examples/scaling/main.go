// Command scaling draws examples/scaling.png from the CSV that measure.sh
// writes: data packets sent per CPU second and peak resident memory
// against the number of hosts, both on log axes.
//
//	go run ./examples/scaling examples/results/scaling.csv examples/scaling.png
package main

import (
	"fmt"
	"math"
	"os"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/dcsim/dcsim/examples/internal/figure"
)

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: scaling IN.csv OUT.png")
		os.Exit(2)
	}
	if err := run(os.Args[1], os.Args[2]); err != nil {
		fmt.Fprintln(os.Stderr, "scaling:", err)
		os.Exit(1)
	}
}

func run(in, out string) error {
	rows, err := figure.ReadCSV(in)
	if err != nil {
		return err
	}
	var speed, mem plotter.XYs
	for i, r := range rows {
		if len(r) != 5 {
			return fmt.Errorf("%s:%d: want 5 fields, got %d", in, i+2, len(r))
		}
		var v [3]float64
		for j, col := range []int{0, 1, 4} {
			if v[j], err = strconv.ParseFloat(r[col], 64); err != nil {
				return fmt.Errorf("%s:%d: %v", in, i+2, err)
			}
		}
		speed = append(speed, plotter.XY{X: v[0], Y: v[1]})
		mem = append(mem, plotter.XY{X: v[0], Y: v[2]})
	}
	panels := []*plot.Plot{
		panel("data packets per CPU second", "packets/CPU-s", speed),
		panel("peak resident memory", "MiB", mem),
	}
	return figure.SavePNG(out, 12*vg.Inch, 4.5*vg.Inch, [][]*plot.Plot{panels})
}

func panel(title, unit string, xy plotter.XYs) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = "hosts (WebSearch 50%, DCQCN, 100 us of arrivals)"
	p.Y.Label.Text = unit
	p.X.Scale, p.Y.Scale = plot.LogScale{}, plot.LogScale{}
	p.X.Tick.Marker, p.Y.Tick.Marker = ticks125{}, ticks125{}
	l, pts, err := plotter.NewLinePoints(xy)
	if err == nil {
		p.Add(l, pts, plotter.NewGrid())
	}
	return p
}

// ticks125 labels 1, 2 and 5 of every decade of a log axis.
type ticks125 struct{}

func (ticks125) Ticks(lo, hi float64) []plot.Tick {
	var ts []plot.Tick
	for d := math.Pow(10, math.Floor(math.Log10(lo))); d <= hi; d *= 10 {
		for _, m := range []float64{1, 2, 5} {
			if v := m * d; v >= lo && v <= hi {
				ts = append(ts, plot.Tick{Value: v, Label: strconv.FormatFloat(v, 'g', -1, 64)})
			}
		}
	}
	return ts
}

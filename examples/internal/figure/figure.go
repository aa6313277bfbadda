// Package figure writes the examples' multi-panel PNG figures: gonum/plot
// saves one plot (Plot.Save) but not a grid of them.
package figure

import (
	"encoding/csv"
	"fmt"
	"os"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

// SavePNG draws rows of panels (rows[r][c] in row r, column c; every row
// as long as the first), a quarter inch apart, on a width x height image
// and writes it to path as PNG.
func SavePNG(path string, width, height vg.Length, rows [][]*plot.Plot) error {
	img := vgimg.New(width, height)
	dc := draw.New(img)
	tiles := draw.Tiles{Rows: len(rows), Cols: len(rows[0]), PadX: vg.Inch / 4, PadY: vg.Inch / 4}
	for r, row := range rows {
		for c, p := range row {
			p.Draw(tiles.At(dc, c, r))
		}
	}
	w, err := os.Create(path)
	if err != nil {
		return err
	}
	if _, err := (vgimg.PngCanvas{Canvas: img}).WriteTo(w); err != nil {
		w.Close()
		return err
	}
	return w.Close()
}

// ReadCSV reads the CSV file at path and returns its rows after the header
// line; row i is line i+2 of the file.
func ReadCSV(path string) ([][]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		return nil, err
	}
	if len(rows) == 0 {
		return nil, fmt.Errorf("%s: empty, want a header line", path)
	}
	return rows[1:], nil
}

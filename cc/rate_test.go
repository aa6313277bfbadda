package cc

import (
	"errors"
	"fmt"
	"math"
	"testing"

	"github.com/dcsim/dcsim/engine"
)

func TestRateArithmetic(t *testing.T) {
	const g = engine.Gbps
	tests := []struct {
		name string
		got  engine.Rate
		want engine.Rate
	}{
		{"scale truncates", ScaleRate(100*g, 1-0.984466/2), 50776700000},
		{"scale by 1", ScaleRate(100*g, 1), 100 * g},
		{"scale by 0", ScaleRate(100*g, 0), 0},
		{"scale negative", ScaleRate(100*g, -1), 0},
		{"scale NaN", ScaleRate(100*g, math.NaN()), 0},
		{"scale huge", ScaleRate(100*g, 1e300), maxRate},
		{"div", DivRate(100*g, 2), 50 * g},
		{"div truncates", DivRate(100, 3), 33},
		{"div by 0", DivRate(100*g, 0), maxRate},
		{"div by NaN", DivRate(100*g, math.NaN()), maxRate},
		{"div by tiny", DivRate(100*g, 1e-300), maxRate},
		{"div 0 by 0", DivRate(0, 0), 0},
		{"add", AddRate(g, 2*g), 3 * g},
		{"add saturates", AddRate(math.MaxInt64-1, 5), math.MaxInt64},
		{"add to saturated div", AddRate(DivRate(g, 0), 40*engine.Mbps), maxRate + 40*engine.Mbps},
		{"clamp low", ClampRate(1, g, 100*g), g},
		{"clamp high", ClampRate(200*g, g, 100*g), 100 * g},
		{"clamp inverted", ClampRate(5, 10, 8), 8},
		{"floor from params", RateFloor(Env{LineRate: 100 * g, MinRate: g}, 2*g), 2 * g},
		{"floor from env", RateFloor(Env{LineRate: 100 * g, MinRate: 3 * g}, 2*g), 3 * g},
		{"floor capped", RateFloor(Env{LineRate: 10 * g, MinRate: g}, 20*g), 10 * g},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("%s: got %d, want %d", tt.name, tt.got, tt.want)
		}
	}
}

func TestWindow(t *testing.T) {
	env := Env{LineRate: 100 * engine.Gbps, BDP: 100_000}
	tests := []struct {
		name           string
		env            Env
		hasWin, varWin bool
		r              engine.Rate
		want           int64
	}{
		{"off", env, false, true, 50 * engine.Gbps, 0},
		{"no BDP", Env{LineRate: env.LineRate}, true, true, 50 * engine.Gbps, 0},
		{"fixed", env, true, false, 50 * engine.Gbps, 100_000},
		{"scaled", env, true, true, 50 * engine.Gbps, 50_000},
		{"truncated", env, true, true, 33_333_333_333, 33_333},
		{"one byte floor", env, true, true, engine.Mbps, 1},
		{"zero rate", env, true, true, 0, 1},
		{"above line rate", env, true, true, 200 * engine.Gbps, 100_000},
		{"big BDP", Env{LineRate: 400 * engine.Gbps, BDP: 1 << 40}, true, true, 399 * engine.Gbps, (1 << 40) * 399 / 400},
	}
	for _, tt := range tests {
		if got := Window(tt.env, tt.hasWin, tt.varWin, tt.r); got != tt.want {
			t.Errorf("%s: Window() = %d, want %d", tt.name, got, tt.want)
		}
	}
}

func TestParamError(t *testing.T) {
	err := fmt.Errorf("cc.dcqcn: %w", ParamErrorf("dcqcn", "rate_ai", "must be >= 0, got %v", engine.Rate(-1)))
	var pe *ParamError
	if !errors.As(err, &pe) || pe.Field != "rate_ai" || pe.Algorithm != "dcqcn" {
		t.Fatalf("errors.As: got %+v, want field rate_ai of dcqcn", pe)
	}
	if got, want := err.Error(), "cc.dcqcn: dcqcn: rate_ai: must be >= 0, got -1bps"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
}

package main

import (
	"fmt"
	"image/color"
	"os"
	"path/filepath"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// series is one line of the scaling plot.
type series struct {
	label  string
	tool   string
	spec   func(n int) string
	sizes  []int
	colour color.Color
	dashed bool
}

// scaling draws check time against history size for both tools on two
// generated workloads: the key-value store (the general search, per key)
// and one register with unique values (the zones algorithm). Each point is
// one child process; a Porcupine series stops at its first timeout.
func (b *bench) scaling(path string) error {
	kv := func(n int) string {
		return fmt.Sprintf("kv/ops=%d/keys=%d/clients=32/crash=0.01/anomaly=none", n, max(n/100, 1))
	}
	reg := func(n int) string { return fmt.Sprintf("register/ops=%d/clients=64/unique/anomaly=none", n) }
	kvSizes := []int{1000, 3000, 10000, 30000, 100000, 300000}
	regSizes := []int{100, 300, 1000, 3000, 10000, 30000, 100000, 300000, 1000000}
	blue, red := color.RGBA{R: 0x1f, G: 0x77, B: 0xb4, A: 0xff}, color.RGBA{R: 0xd6, G: 0x27, B: 0x28, A: 0xff}
	all := []series{
		{"histcheck, kv (search per key)", "histcheck", kv, kvSizes, blue, false},
		{"Porcupine, kv (partitioned)", "porcupine", kv, kvSizes, red, false},
		{"histcheck, register, unique values (zones)", "histcheck", reg, regSizes, blue, true},
		{"Porcupine, register, unique values", "porcupine", reg, regSizes, red, true},
	}
	p := plot.New()
	p.Title.Text = "Check time against history size (one run, 2 CPUs)"
	p.X.Label.Text = "operations"
	p.Y.Label.Text = "check time (s)"
	p.X.Scale, p.Y.Scale = plot.LogScale{}, plot.LogScale{}
	p.X.Tick.Marker, p.Y.Tick.Marker = plot.LogTicks{Prec: -1}, plot.LogTicks{Prec: -1}
	p.Legend.Top, p.Legend.Left = false, false // bottom right, clear of the data
	timeout := b.o.pTimeout / 2
	for si, s := range all {
		var pts, over plotter.XYs
		for _, n := range s.sizes {
			r := runChild(s.spec(n), s.tool, timeout, b.o.pMemory)
			fmt.Fprintf(b.log, "  plot: %s, %d ops: %s\n", s.label, n, outcome(r))
			if r.Crashed != "" || r.Error != "" || r.Verdict != "true" {
				// Mark where the tool gave up, at the time limit.
				over = append(over, plotter.XY{X: float64(n), Y: timeout.Seconds()})
				break
			}
			pts = append(pts, plotter.XY{X: float64(n), Y: max(r.Seconds, 1e-5)})
		}
		if len(over) > 0 {
			sc, err := plotter.NewScatter(over)
			if err != nil {
				return err
			}
			sc.Color, sc.Shape, sc.Radius = s.colour, draw.CrossGlyph{}, vg.Points(5)
			p.Add(sc)
			p.Legend.Add(fmt.Sprintf("%s: no verdict within %s", s.label, timeout), sc)
		}
		if len(pts) == 0 {
			continue
		}
		l, sc, err := plotter.NewLinePoints(pts)
		if err != nil {
			return err
		}
		l.Color, sc.Color = s.colour, s.colour
		sc.Shape = draw.CircleGlyph{}
		if s.dashed {
			l.Dashes = []vg.Length{vg.Points(5), vg.Points(3)}
			sc.Shape = draw.TriangleGlyph{}
		}
		p.Add(l, sc)
		p.Legend.Add(all[si].label, l, sc)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return p.Save(7*vg.Inch, 4.5*vg.Inch, path)
}

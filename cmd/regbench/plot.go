package main

import (
	"fmt"
	"image/color"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/histcheck/histcheck/checker"
)

// clientColors tells the client counts apart.
var clientColors = map[int]color.RGBA{
	8:  {R: 0x1b, G: 0x9e, B: 0x77, A: 0xff},
	16: {R: 0xd9, G: 0x5f, B: 0x02, A: 0xff},
	32: {R: 0x75, G: 0x70, B: 0xb3, A: 0xff},
	64: {R: 0xe7, G: 0x29, B: 0x8a, A: 0xff},
}

// plotOutcomes draws time against operations on log scales: filled circles
// for histcheck, triangles for Porcupine, crosses at the budget for a
// checker that gave no answer in time; one colour per client count.
func plotOutcomes(outs []Outcome, budget time.Duration, file string) error {
	if len(outs) == 0 {
		return errNoRows
	}
	p := plot.New()
	p.Title.Text = "One register, values from 5: time to a verdict"
	p.X.Label.Text = "operations"
	p.Y.Label.Text = "seconds (cross: no verdict within the budget)"
	p.X.Scale, p.Y.Scale = plot.LogScale{}, plot.LogScale{}
	p.X.Tick.Marker, p.Y.Tick.Marker = plot.LogTicks{Prec: -1}, plot.LogTicks{Prec: -1}
	p.Legend.Top = true
	p.Legend.Left = true

	type key struct {
		porc    bool
		clients int
		timeout bool
	}
	pts := map[key]plotter.XYs{}
	var order []key
	for _, o := range outs {
		for _, porc := range []bool{false, true} {
			v, d, b := o.Ours, o.OursTime, budget
			if porc {
				v, d, b = o.Porc, o.PorcTime, o.PorcBudget
			}
			k := key{porc, o.Clients, v == checker.Unknown}
			y := d.Seconds()
			if k.timeout {
				y = b.Seconds()
			}
			// Valid and invalid variants share an x; nudge the invalid one.
			x := float64(o.Ops)
			if o.Invalid {
				x *= 1.06
			}
			if _, ok := pts[k]; !ok {
				order = append(order, k)
			}
			pts[k] = append(pts[k], plotter.XY{X: x, Y: max(y, 1e-4)})
		}
	}
	for _, k := range order {
		s, err := plotter.NewScatter(pts[k])
		if err != nil {
			return fmt.Errorf("plot: %w", err)
		}
		s.Color = clientColors[k.clients]
		s.Radius = vg.Points(3.5)
		name := "histcheck"
		s.Shape = draw.CircleGlyph{}
		if k.porc {
			name = "porcupine"
			s.Shape = draw.TriangleGlyph{}
		}
		if k.timeout {
			s.Shape = draw.CrossGlyph{}
			name += " no verdict"
		}
		p.Add(s)
		p.Legend.Add(fmt.Sprintf("%s, %d clients", name, k.clients), s)
	}
	p.Add(plotter.NewGrid())
	if err := p.Save(9*vg.Inch, 6*vg.Inch, file); err != nil {
		return fmt.Errorf("plot: %w", err)
	}
	return nil
}

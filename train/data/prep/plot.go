package prep

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"math"
	"path/filepath"

	"github.com/humchess/humchess/train/data/shard"
	"github.com/humchess/humchess/train/plot"
)

// Plot file names written to the output directory.
const (
	PlotRatings     = "ratings.png"
	PlotTimeClasses = "time-classes.png"
	PlotClocks      = "clocks.png"
)

var (
	colBG    = color.RGBA{255, 255, 255, 255}
	colAxis  = color.RGBA{40, 40, 40, 255}
	colGrid  = color.RGBA{225, 225, 225, 255}
	colText  = color.RGBA{20, 20, 20, 255}
	colBars  = [2]color.RGBA{{120, 144, 180, 255}, {214, 120, 60, 255}}
	plotSize = image.Pt(960, 660)
)

// writePlots writes the three before/after histogram PNGs into dir.
func writePlots(dir string, d *Distributions) error {
	for _, p := range []struct {
		name          string
		before, after *Hist
	}{
		{PlotRatings, &d.RatingBefore, &d.RatingAfter},
		{PlotTimeClasses, &d.ClassBefore, &d.ClassAfter},
		{PlotClocks, &d.ClockBefore, &d.ClockAfter},
	} {
		data, err := PlotPNG(p.before, p.after)
		if err != nil {
			return err
		}
		if err := shard.WriteFileAtomic(filepath.Join(dir, p.name), data); err != nil {
			return err
		}
	}
	return nil
}

// PlotPNG draws histograms as stacked panels of one PNG image.
func PlotPNG(hists ...*Hist) ([]byte, error) {
	img := image.NewRGBA(image.Rectangle{Max: plotSize})
	draw.Draw(img, img.Bounds(), &image.Uniform{colBG}, image.Point{}, draw.Src)
	if len(hists) > 0 {
		h := plotSize.Y / len(hists)
		for i, hist := range hists {
			drawPanel(img, image.Rect(0, i*h, plotSize.X, (i+1)*h), hist, colBars[i%2])
		}
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		return nil, fmt.Errorf("prep: png: %w", err)
	}
	return buf.Bytes(), nil
}

func fillRect(img *image.RGBA, r image.Rectangle, c color.Color) {
	draw.Draw(img, r, &image.Uniform{c}, image.Point{}, draw.Src)
}

// niceStep returns a round tick step giving about n ticks up to max.
func niceStep(max float64, n int) float64 {
	if max <= 0 {
		return 1
	}
	raw := max / float64(n)
	p := math.Pow(10, math.Floor(math.Log10(raw)))
	for _, m := range []float64{1, 2, 2.5, 5, 10} {
		if m*p >= raw {
			return math.Max(1, m*p)
		}
	}
	return 10 * p
}

func fmtCount(v float64) string {
	switch {
	case v >= 1e6:
		return fmt.Sprintf("%gM", v/1e6)
	case v >= 1e4:
		return fmt.Sprintf("%gk", v/1e3)
	}
	return fmt.Sprintf("%g", v)
}

func drawPanel(img *image.RGBA, area image.Rectangle, h *Hist, bar color.Color) {
	const left, right, top, bottom = 90, 30, 34, 56
	pa := image.Rect(area.Min.X+left, area.Min.Y+top, area.Max.X-right, area.Max.Y-bottom)
	title := fmt.Sprintf("%s (n=%d", h.Title, h.Total())
	if h.Under > 0 {
		title += fmt.Sprintf(", below range %d", h.Under)
	}
	if h.Over > 0 {
		title += fmt.Sprintf(", above range %d", h.Over)
	}
	title += ")"
	plot.DrawText(img, pa.Min.X, area.Min.Y+10, title, 2, colText)

	var maxC int64
	for _, c := range h.Counts {
		maxC = max(maxC, c)
	}
	step := niceStep(float64(maxC), 4)
	ymax := math.Max(step, math.Ceil(float64(maxC)/step)*step)
	yOf := func(v float64) int { return pa.Max.Y - int(v/ymax*float64(pa.Dy())) }
	for v := 0.0; v <= ymax+step/2; v += step {
		y := yOf(v)
		fillRect(img, image.Rect(pa.Min.X, y, pa.Max.X, y+1), colGrid)
		s := fmtCount(v)
		plot.DrawText(img, pa.Min.X-8-plot.TextWidth(s, 1), y-3, s, 1, colText)
	}
	plot.DrawTextUp(img, area.Min.X+8, pa.Min.Y+pa.Dy()/2+plot.TextWidth("count", 2)/2, "count", 2, colText)

	n := len(h.Counts)
	if n == 0 {
		return
	}
	bw := float64(pa.Dx()) / float64(n)
	for i, c := range h.Counts {
		x0 := pa.Min.X + int(float64(i)*bw)
		x1 := pa.Min.X + int(float64(i+1)*bw)
		if h.Labels == nil && x1-x0 > 3 {
			x1-- // a gap between numeric bars
		} else if h.Labels != nil {
			pad := (x1 - x0) / 6
			x0, x1 = x0+pad, x1-pad
		}
		if c > 0 {
			fillRect(img, image.Rect(x0, yOf(float64(c)), x1, pa.Max.Y), bar)
		}
	}
	// axes
	fillRect(img, image.Rect(pa.Min.X-1, pa.Min.Y, pa.Min.X+1, pa.Max.Y+1), colAxis)
	fillRect(img, image.Rect(pa.Min.X-1, pa.Max.Y, pa.Max.X, pa.Max.Y+2), colAxis)
	// x ticks
	if h.Labels != nil {
		for i, l := range h.Labels {
			cx := pa.Min.X + int((float64(i)+0.5)*bw)
			plot.DrawText(img, cx-plot.TextWidth(l, 1)/2, pa.Max.Y+8, l, 1, colText)
		}
	} else {
		every := 1
		for float64(every)*bw < 46 {
			every++
		}
		for i := 0; i <= n; i += every {
			x := pa.Min.X + int(float64(i)*bw)
			fillRect(img, image.Rect(x, pa.Max.Y, x+1, pa.Max.Y+5), colAxis)
			s := fmt.Sprintf("%g", h.Lo+float64(i)*h.Width)
			plot.DrawText(img, x-plot.TextWidth(s, 1)/2, pa.Max.Y+8, s, 1, colText)
		}
	}
	plot.DrawText(img, pa.Min.X+pa.Dx()/2-plot.TextWidth(h.XLabel, 2)/2, pa.Max.Y+24, h.XLabel, 2, colText)
}

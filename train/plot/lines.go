package plot

import (
	"bytes"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"math"
)

// ErrNoData means a chart has no finite point to draw.
var ErrNoData = errors.New("plot: no data")

// Series is one line: points (X[i], Y[i]); NaN values are gaps.
type Series struct {
	Name string
	X, Y []float64
}

// Chart is a line chart. YMin and YMax fix the y range when YMax > YMin;
// otherwise it is taken from the data.
type Chart struct {
	Title, XLabel, YLabel string
	Series                []Series
	YMin, YMax            float64
	Width, Height         int // pixels; 0 means 960 x 620
}

// Palette is the series colours, in order (cycled).
var Palette = []color.RGBA{
	{31, 119, 180, 255}, {255, 127, 14, 255}, {44, 160, 44, 255}, {214, 39, 40, 255},
	{148, 103, 189, 255}, {140, 86, 75, 255}, {227, 119, 194, 255}, {127, 127, 127, 255},
	{188, 189, 34, 255}, {23, 190, 207, 255},
}

var (
	colBG   = color.RGBA{255, 255, 255, 255}
	colAxis = color.RGBA{40, 40, 40, 255}
	colGrid = color.RGBA{225, 225, 225, 255}
	colText = color.RGBA{20, 20, 20, 255}
)

// Lines draws the chart as a PNG.
func Lines(c Chart) ([]byte, error) {
	w, h := c.Width, c.Height
	if w <= 0 || h <= 0 {
		w, h = 960, 620
	}
	xmin, xmax, ymin, ymax := math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1)
	for _, s := range c.Series {
		for i := range min(len(s.X), len(s.Y)) {
			if finite(s.X[i]) && finite(s.Y[i]) {
				xmin, xmax = math.Min(xmin, s.X[i]), math.Max(xmax, s.X[i])
				ymin, ymax = math.Min(ymin, s.Y[i]), math.Max(ymax, s.Y[i])
			}
		}
	}
	if !finite(xmin) {
		return nil, fmt.Errorf("%w: %q", ErrNoData, c.Title)
	}
	if c.YMax > c.YMin {
		ymin, ymax = c.YMin, c.YMax
	} else {
		pad := math.Max((ymax-ymin)*0.08, 1e-3)
		ymin, ymax = ymin-pad, ymax+pad
	}
	if xmax == xmin {
		xmin, xmax = xmin-1, xmax+1
	}
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	draw.Draw(img, img.Bounds(), &image.Uniform{colBG}, image.Point{}, draw.Src)
	const left, right, top, bottom = 80, 220, 44, 60
	area := image.Rect(left, top, w-right, h-bottom)
	xOf := func(x float64) int { return area.Min.X + int((x-xmin)/(xmax-xmin)*float64(area.Dx())) }
	yOf := func(y float64) int { return area.Max.Y - int((y-ymin)/(ymax-ymin)*float64(area.Dy())) }

	DrawText(img, left, 14, c.Title, 2, colText)
	ystep := niceStep(ymax-ymin, 6)
	for v := math.Ceil(ymin/ystep) * ystep; v <= ymax+ystep*1e-9; v += ystep {
		y := yOf(v)
		fill(img, image.Rect(area.Min.X, y, area.Max.X, y+1), colGrid)
		s := tick(v, ystep)
		DrawText(img, area.Min.X-8-TextWidth(s, 1), y-3, s, 1, colText)
	}
	xstep := niceStep(xmax-xmin, 10)
	for v := math.Ceil(xmin/xstep) * xstep; v <= xmax+xstep*1e-9; v += xstep {
		x := xOf(v)
		fill(img, image.Rect(x, area.Max.Y, x+1, area.Max.Y+5), colAxis)
		s := tick(v, xstep)
		DrawText(img, x-TextWidth(s, 1)/2, area.Max.Y+8, s, 1, colText)
	}
	fill(img, image.Rect(area.Min.X-1, area.Min.Y, area.Min.X+1, area.Max.Y+1), colAxis)
	fill(img, image.Rect(area.Min.X-1, area.Max.Y, area.Max.X, area.Max.Y+2), colAxis)
	DrawText(img, area.Min.X+area.Dx()/2-TextWidth(c.XLabel, 2)/2, area.Max.Y+26, c.XLabel, 2, colText)
	DrawTextUp(img, 10, area.Min.Y+area.Dy()/2+TextWidth(c.YLabel, 2)/2, c.YLabel, 2, colText)

	for k, s := range c.Series {
		col := Palette[k%len(Palette)]
		px, py, have := 0, 0, false
		for i := range min(len(s.X), len(s.Y)) {
			if !finite(s.X[i]) || !finite(s.Y[i]) {
				have = false
				continue
			}
			x, y := xOf(s.X[i]), yOf(math.Max(ymin, math.Min(ymax, s.Y[i])))
			if have {
				line(img, px, py, x, y, col)
			}
			fill(img, image.Rect(x-3, y-3, x+4, y+4), col)
			px, py, have = x, y, true
		}
		ly := area.Min.Y + 10 + 22*k
		fill(img, image.Rect(area.Max.X+14, ly, area.Max.X+34, ly+4), col)
		DrawText(img, area.Max.X+40, ly-2, s.Name, 1, colText)
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		return nil, fmt.Errorf("plot: png: %w", err)
	}
	return buf.Bytes(), nil
}

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

func fill(img *image.RGBA, r image.Rectangle, c color.Color) {
	draw.Draw(img, r, &image.Uniform{c}, image.Point{}, draw.Src)
}

// niceStep returns a round step giving about n ticks over span.
func niceStep(span float64, n int) float64 {
	if !(span > 0) {
		return 1
	}
	raw := span / float64(n)
	p := math.Pow(10, math.Floor(math.Log10(raw)))
	for _, m := range []float64{1, 2, 2.5, 5, 10} {
		if m*p >= raw {
			return m * p
		}
	}
	return 10 * p
}

// line draws a 2-pixel-wide segment (Bresenham).
func line(img *image.RGBA, x0, y0, x1, y1 int, c color.RGBA) {
	dx, dy := abs(x1-x0), -abs(y1-y0)
	sx, sy := 1, 1
	if x0 > x1 {
		sx = -1
	}
	if y0 > y1 {
		sy = -1
	}
	e := dx + dy
	for {
		img.SetRGBA(x0, y0, c)
		img.SetRGBA(x0, y0+1, c)
		if x0 == x1 && y0 == y1 {
			return
		}
		e2 := 2 * e
		if e2 >= dy {
			e += dy
			x0 += sx
		}
		if e2 <= dx {
			e += dx
			y0 += sy
		}
	}
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// tick formats an axis value v on a grid of step: as many decimals as the
// step needs and no exponent ("1500", "0.25"), zero without a sign.
func tick(v, step float64) string {
	if math.Abs(v) < step*1e-6 {
		v = 0
	}
	dec := 0
	if step > 0 && step < 1 {
		dec = int(math.Ceil(-math.Log10(step) - 1e-9))
		if r := step * math.Pow(10, float64(dec)); math.Abs(r-math.Round(r)) > 1e-6 {
			dec++ // a step of 0.25: two decimals
		}
	}
	return fmt.Sprintf("%.*f", dec, v)
}

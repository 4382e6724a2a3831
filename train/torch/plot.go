package torch

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
	"io"
	"math"

	"github.com/humchess/humchess/nets/transformer"
)

// Plot colours (the PNG has no text: see the README's Training section).
var (
	colTrain = color.RGBA{31, 119, 180, 255}  // blue: training loss
	colVal   = color.RGBA{214, 39, 40, 255}   // red: validation loss
	colTop1  = color.RGBA{44, 160, 44, 255}   // green: validation move top-1
	colTop3  = color.RGBA{255, 127, 14, 255}  // orange: validation move top-3
	colBase  = color.RGBA{127, 127, 127, 255} // grey: uniform-over-legal baseline
	colAxis  = color.RGBA{0, 0, 0, 255}
	colGrid  = color.RGBA{225, 225, 225, 255}
)

// PlotCurves draws the records as a PNG: the upper panel the training and
// validation losses against the step, the lower panel the validation move
// top-1 and top-3 accuracy and the uniform baseline (0..1). Written atomically.
func PlotCurves(path string, recs []Record) error {
	const W, H, pad = 900, 600, 40
	img := image.NewRGBA(image.Rect(0, 0, W, H))
	for i := range img.Pix {
		img.Pix[i] = 255
	}
	maxStep, maxLoss := 1.0, 0.0
	for _, r := range recs {
		maxStep = math.Max(maxStep, float64(r.Step))
		if !math.IsNaN(r.Loss) && !math.IsInf(r.Loss, 0) {
			maxLoss = math.Max(maxLoss, r.Loss)
		}
	}
	if maxLoss == 0 {
		maxLoss = 1
	}
	top := image.Rect(pad, pad/2, W-pad/2, H/2-pad/2)
	bot := image.Rect(pad, H/2+pad/2, W-pad/2, H-pad)
	for _, p := range []image.Rectangle{top, bot} {
		for k := 1; k < 10; k++ {
			y := p.Min.Y + k*p.Dy()/10
			line(img, p.Min.X, y, p.Max.X, y, colGrid)
		}
		line(img, p.Min.X, p.Max.Y, p.Max.X, p.Max.Y, colAxis)
		line(img, p.Min.X, p.Min.Y, p.Min.X, p.Max.Y, colAxis)
	}
	series := func(p image.Rectangle, ymax float64, c color.RGBA, kind string, f func(Record) float64) {
		px, py := -1, -1
		for _, r := range recs {
			if r.Kind != kind {
				continue
			}
			v := f(r)
			if math.IsNaN(v) || math.IsInf(v, 0) {
				continue
			}
			x := p.Min.X + int(float64(p.Dx())*float64(r.Step)/maxStep)
			y := p.Max.Y - int(float64(p.Dy())*math.Min(v, ymax)/ymax)
			if px >= 0 {
				line(img, px, py, x, y, c)
			} else {
				dot(img, x, y, c)
			}
			px, py = x, y
		}
	}
	series(top, maxLoss, colTrain, "train", func(r Record) float64 { return r.Loss })
	series(top, maxLoss, colVal, "val", func(r Record) float64 { return r.Loss })
	series(bot, 1, colTop1, "val", func(r Record) float64 { return r.Top1 })
	series(bot, 1, colTop3, "val", func(r Record) float64 { return r.Top3 })
	series(bot, 1, colBase, "val", func(r Record) float64 { return r.Uniform })
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		return err
	}
	return transformer.WriteFileAtomic(path, func(w io.Writer) error {
		_, err := w.Write(buf.Bytes())
		return err
	})
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
		dot(img, x0, y0, c)
		if x0 == x1 && y0 == y1 {
			return
		}
		if e2 := 2 * e; e2 >= dy {
			e += dy
			x0 += sx
		} else {
			e += dx
			y0 += sy
		}
	}
}

func dot(img *image.RGBA, x, y int, c color.RGBA) {
	img.SetRGBA(x, y, c)
	img.SetRGBA(x+1, y, c)
	img.SetRGBA(x, y+1, c)
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

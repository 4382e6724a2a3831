package torch

import (
	"bytes"
	"errors"
	"image"
	"image/draw"
	"image/png"
	"io"

	"github.com/humchess/humchess/nets/transformer"
	"github.com/humchess/humchess/train/plot"
)

// PlotCurves draws the records as a PNG of two labelled charts: the training
// and validation losses against the step, then the validation move top-1 and
// top-3 accuracy with the uniform-over-legal-moves baseline (0..1), and, for a
// net with the legal-moves head, a third chart of that head's validation
// accuracy, the all-illegal baseline and its F1 score. Written atomically.
func PlotCurves(path string, recs []Record) error {
	series := func(name, kind string, f func(Record) float64) plot.Series {
		s := plot.Series{Name: name}
		for _, r := range recs {
			if r.Kind == kind {
				s.X = append(s.X, float64(r.Step))
				s.Y = append(s.Y, f(r))
			}
		}
		return s
	}
	loss, err := plot.Lines(plot.Chart{
		Title: "loss", XLabel: "step", YLabel: "loss", Height: 420,
		Series: []plot.Series{
			series("train", "train", func(r Record) float64 { return r.Loss }),
			series("validation", "val", func(r Record) float64 { return r.Loss }),
		},
	})
	if errors.Is(err, plot.ErrNoData) {
		return nil // nothing recorded yet
	}
	if err != nil {
		return err
	}
	acc, err := plot.Lines(plot.Chart{
		Title: "validation move accuracy", XLabel: "step", YLabel: "accuracy", Height: 420, YMin: 0, YMax: 1,
		Series: []plot.Series{
			series("top-1", "val", func(r Record) float64 { return r.Top1 }),
			series("top-3", "val", func(r Record) float64 { return r.Top3 }),
			series("uniform", "val", func(r Record) float64 { return r.Uniform }),
		},
	})
	if errors.Is(err, plot.ErrNoData) {
		acc, err = nil, nil // no validation yet: the loss chart alone
	}
	if err != nil {
		return err
	}
	var legal []byte
	for _, r := range recs {
		if r.Kind == "val" && r.LegalBaseline > 0 { // only nets with the legal head record it
			legal, err = plot.Lines(plot.Chart{
				Title: "validation legal-moves head", XLabel: "step", YLabel: "accuracy / F1", Height: 420, YMin: 0, YMax: 1,
				Series: []plot.Series{
					series("accuracy", "val", func(r Record) float64 { return r.LegalAcc }),
					series("all-illegal", "val", func(r Record) float64 { return r.LegalBaseline }),
					series("F1 (legal)", "val", func(r Record) float64 { return r.LegalF1 }),
				},
			})
			if err != nil {
				return err
			}
			break
		}
	}
	out, err := stack(loss, acc, legal)
	if err != nil {
		return err
	}
	return transformer.WriteFileAtomic(path, func(w io.Writer) error {
		_, err := w.Write(out)
		return err
	})
}

// stack puts PNG images one above the other (nil ones are left out).
func stack(pngs ...[]byte) ([]byte, error) {
	var imgs []image.Image
	w, h := 0, 0
	for _, p := range pngs {
		if p == nil {
			continue
		}
		img, err := png.Decode(bytes.NewReader(p))
		if err != nil {
			return nil, err
		}
		imgs = append(imgs, img)
		w, h = max(w, img.Bounds().Dx()), h+img.Bounds().Dy()
	}
	dst := image.NewRGBA(image.Rect(0, 0, w, h))
	y := 0
	for _, img := range imgs {
		b := img.Bounds()
		draw.Draw(dst, image.Rect(0, y, b.Dx(), y+b.Dy()), img, b.Min, draw.Src)
		y += b.Dy()
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, dst); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

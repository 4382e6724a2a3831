package plot

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestLines(t *testing.T) {
	data, err := Lines(Chart{Title: "top-1 by band", XLabel: "rating", YLabel: "accuracy",
		Series: []Series{{Name: "a", X: []float64{1100, 1200, 1300}, Y: []float64{0.5, math.NaN(), 0.52}}, {Name: "b", X: []float64{1100}, Y: []float64{0.4}}}})
	require.NoError(t, err)
	img, err := png.Decode(bytes.NewReader(data))
	require.NoError(t, err)
	assert.Equal(t, 960, img.Bounds().Dx())
	// The first series' colour appears (its points are drawn).
	want := Palette[0]
	found := false
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y && !found; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			if uint8(r>>8) == want.R && uint8(g>>8) == want.G && uint8(bl>>8) == want.B {
				found = true
				break
			}
		}
	}
	assert.True(t, found, "series colour drawn")

	_, err = Lines(Chart{Title: "empty", Series: []Series{{Name: "x", X: []float64{1}, Y: []float64{math.NaN()}}}})
	assert.ErrorIs(t, err, ErrNoData)
}

func TestTextWidth(t *testing.T) {
	assert.Equal(t, 24, TextWidth("abcd", 1))
	assert.Equal(t, 12, TextWidth("é", 2), "one rune, one glyph")
}

// The punctuation of the charts' titles and labels (the calibrate report's
// "(blitz 180+2; 95% intervals in the table)") draws as itself, not as the
// unknown character's '?'.
func TestDrawTextPunctuation(t *testing.T) {
	draw := func(r rune) []byte {
		img := image.NewRGBA(image.Rect(0, 0, glyphW, glyphH))
		DrawText(img, 0, 0, string(r), 1, color.Black)
		return img.Pix
	}
	unknown := draw('?')
	assert.Equal(t, unknown, draw('\u00e9'), "a rune without a glyph draws as '?'")
	for _, r := range "();:,.%/+-_'=<>" {
		assert.NotEqual(t, unknown, draw(r), "%q has its own glyph", r)
	}
}

func TestTick(t *testing.T) {
	for _, tt := range []struct {
		v, step float64
		want    string
	}{
		{1500, 500, "1500"}, {1000, 250, "1000"}, {-1e-13, 250, "0"}, {0.30000000000000004, 0.1, "0.3"},
		{-1e-17, 0.1, "0.0"}, {2.5, 0.5, "2.5"}, {0.75, 0.25, "0.75"}, {40, 20, "40"}, {0.002, 0.001, "0.002"},
	} {
		assert.Equal(t, tt.want, tick(tt.v, tt.step), "tick(%v, %v)", tt.v, tt.step)
	}
}

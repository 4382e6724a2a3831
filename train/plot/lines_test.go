package plot

import (
	"bytes"
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

package board

import "testing"

func TestRatingBand(t *testing.T) {
	for _, tc := range []struct {
		rating, band int
		name         string
	}{
		{0, 0, "0"}, {99, 0, "0"}, {1500, 1500, "1500"}, {1599, 1500, "1500"},
		{1600, 1600, "1600"}, {2999, 2900, "2900"}, {-1, -1, "unknown"}, {-500, -1, "unknown"},
	} {
		b := RatingBand(tc.rating)
		if b != tc.band || RatingBandName(b) != tc.name {
			t.Errorf("rating %d: band %d %q, want %d %q", tc.rating, b, RatingBandName(b), tc.band, tc.name)
		}
	}
}

package board

import "strconv"

// RatingBandWidth is the width of the rating bands by which the trainer's
// validation, move matching (eval) and blunder rates (stats) are reported,
// and of the Maia nets (maia-1500 plays 1500..1599). prep's pair balancing
// has its own width, a parameter (prep.Config.BalanceBand).
const RatingBandWidth = 100 // rating points

// RatingBand returns the band of rating: its lowest rating, rating rounded
// down to a multiple of RatingBandWidth; -1 for an unknown (negative)
// rating.
func RatingBand(rating int) int {
	if rating < 0 {
		return -1
	}
	return rating / RatingBandWidth * RatingBandWidth
}

// RatingBandName names a band returned by RatingBand: its lowest rating,
// or "unknown" for -1.
func RatingBandName(band int) string {
	if band < 0 {
		return "unknown"
	}
	return strconv.Itoa(band)
}

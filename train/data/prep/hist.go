package prep

import "github.com/humchess/humchess/train/data/games"

// Hist is a histogram with fixed-width bins, or categorical bins when Labels
// is set. Values below Lo land in Under, values from Lo+Width*len(Counts) in Over.
type Hist struct {
	Title  string   `json:"title"`
	XLabel string   `json:"x_label"`
	Lo     float64  `json:"lo"`
	Width  float64  `json:"width"`
	Labels []string `json:"labels,omitempty"` // categorical bins: names of Counts
	Counts []int64  `json:"counts"`
	Under  int64    `json:"under"`
	Over   int64    `json:"over"`
}

func newHist(title, xlabel string, lo, width float64, n int) Hist {
	return Hist{Title: title, XLabel: xlabel, Lo: lo, Width: width, Counts: make([]int64, n)}
}

func newCategorical(title, xlabel string, labels []string) Hist {
	return Hist{Title: title, XLabel: xlabel, Labels: labels, Counts: make([]int64, len(labels)), Width: 1}
}

// Add counts one value.
func (h *Hist) Add(x float64) {
	if !(x >= h.Lo) {
		h.Under++
		return
	}
	i := int((x - h.Lo) / h.Width)
	if i >= len(h.Counts) {
		h.Over++
		return
	}
	h.Counts[i]++
}

// AddBin counts n in bin i (categorical histograms).
func (h *Hist) AddBin(i int, n int64) {
	if i >= 0 && i < len(h.Counts) {
		h.Counts[i] += n
	}
}

// Merge adds o's counts (same binning) into h.
func (h *Hist) Merge(o *Hist) {
	for i := range min(len(h.Counts), len(o.Counts)) {
		h.Counts[i] += o.Counts[i]
	}
	h.Under += o.Under
	h.Over += o.Over
}

// Total returns the number of values counted, Under and Over included.
func (h *Hist) Total() int64 {
	n := h.Under + h.Over
	for _, c := range h.Counts {
		n += c
	}
	return n
}

// Distributions are the histograms of a prep run, before and after filtering.
// Ratings and time classes count games (a game adds both players' ratings);
// clocks count positions: "before" holds every position of the games that
// passed the header filters (the clocks of rejected games are never parsed),
// "after" the kept positions.
type Distributions struct {
	RatingBefore Hist `json:"rating_before"`
	RatingAfter  Hist `json:"rating_after"`
	ClassBefore  Hist `json:"time_class_before"`
	ClassAfter   Hist `json:"time_class_after"`
	ClockBefore  Hist `json:"clock_before"`
	ClockAfter   Hist `json:"clock_after"`
}

func newDistributions() *Distributions {
	classes := games.ClassNames()
	return &Distributions{
		RatingBefore: newHist("ratings, all games", "rating", 0, 100, 34),
		RatingAfter:  newHist("ratings, kept games", "rating", 0, 100, 34),
		ClassBefore:  newCategorical("time classes, all games", "class", classes),
		ClassAfter:   newCategorical("time classes, kept games", "class", classes),
		ClockBefore:  newClockHist("mover's clock, positions of decoded games"),
		ClockAfter:   newClockHist("mover's clock, kept positions"),
	}
}

func newClockHist(title string) Hist { return newHist(title, "seconds", 0, 10, 60) }

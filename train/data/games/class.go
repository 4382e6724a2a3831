package games

import (
	"strings"

	"github.com/humchess/humchess/train/data/pgn"
)

// TimeClass is lichess's speed category of a game.
type TimeClass int

// Time classes, by lichess's estimated duration base + 40*increment seconds.
const (
	UnknownClass   TimeClass = iota // TimeControl missing or unreadable
	UltraBullet                     // under 30 s
	Bullet                          // 30 s to under 180 s
	Blitz                           // 180 s to under 480 s
	Rapid                           // 480 s to under 1500 s
	Classical                       // 1500 s and more
	Correspondence                  // days per move or untimed
	NumClasses                      // the number of classes, unknown included
)

// classNames are the classes' names, in order.
var classNames = [NumClasses]string{"unknown", "ultrabullet", "bullet", "blitz", "rapid", "classical", "correspondence"}

// String returns the class's lower-case name.
func (c TimeClass) String() string {
	if c < 0 || c >= NumClasses {
		return "unknown"
	}
	return classNames[c]
}

// ParseTimeClass returns the class named s (case-insensitive).
func ParseTimeClass(s string) (TimeClass, bool) {
	for i, n := range classNames {
		if strings.EqualFold(strings.TrimSpace(s), n) && i != int(UnknownClass) {
			return TimeClass(i), true
		}
	}
	return UnknownClass, false
}

// EstimatedSeconds returns lichess's estimated game duration base + 40*inc,
// or -1 when the time control is not known or is correspondence.
func EstimatedSeconds(tc pgn.TimeControl) float64 {
	if tc.Correspondence || !tc.Known() {
		return -1
	}
	return tc.Base + 40*tc.Increment
}

// classStarts are the estimated durations, in seconds, at which the
// clocked classes begin (UltraBullet at 0); Classical has no upper end.
var classStarts = [...]struct {
	class TimeClass
	from  float64
}{{UltraBullet, 0}, {Bullet, 30}, {Blitz, 180}, {Rapid, 480}, {Classical, 1500}}

// ClassOf returns the time class of a time control.
func ClassOf(tc pgn.TimeControl) TimeClass {
	if tc.Correspondence {
		return Correspondence
	}
	est := EstimatedSeconds(tc)
	if est < 0 {
		return UnknownClass
	}
	c := UltraBullet
	for _, s := range classStarts {
		if est >= s.from {
			c = s.class
		}
	}
	return c
}

// Seconds returns the range of estimated durations of a clocked class:
// at least lo and under hi seconds, hi 0 for Classical (no upper end);
// ok is false for the unknown class and correspondence.
func (c TimeClass) Seconds() (lo, hi float64, ok bool) {
	for i, s := range classStarts {
		if s.class != c {
			continue
		}
		if i+1 < len(classStarts) {
			hi = classStarts[i+1].from
		}
		return s.from, hi, true
	}
	return 0, 0, false
}

// ClassNames returns the names of the classes in order, "unknown" first.
func ClassNames() []string { return append([]string(nil), classNames[:]...) }

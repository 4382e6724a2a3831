package calibrate

import (
	"errors"
	"testing"

	"github.com/humchess/humchess/nets/calib"
	"github.com/humchess/humchess/train/data/games"
)

// TestMerge: fitted points become the base points when there is no start
// or the start's base points are of the same class, else the start's
// points for the fitted class, replacing any it had; the engine then
// plays each time control by the right ones.
func TestMerge(t *testing.T) {
	pts := func(temp float64) []calib.Point {
		return []calib.Point{{Elo: 1600, Rating: 1600, Temperature: temp, TopP: 1, BlunderScale: 1}}
	}
	cal := func(class string, temp float64) *calib.Calibration {
		return &calib.Calibration{Version: calib.Version, Net: "n", NetHash: "h", TimeClass: class, Points: pts(temp),
			Think: []calib.ThinkPoint{{Base: 180, Inc: 2, Scale: 0.9}}}
	}
	temp := func(c *calib.Calibration, base, inc float64) float64 {
		return c.ForControl(base, inc).At(1600).Temperature
	}

	blitz := cal("blitz 180+2", 1)
	rapid := cal("rapid 600+0", 2)
	got, err := Merge(blitz, rapid, games.Rapid)
	if err != nil {
		t.Fatal(err)
	}
	if temp(got, 180, 2) != 1 || temp(got, 600, 0) != 2 || temp(got, 900, 10) != 2 || temp(got, 60, 0) != 1 || len(got.Think) != 1 {
		t.Errorf("blitz start + rapid fit: temperatures %v (180+2) %v (600+0) %v (900+10) %v (60+0), %d think points; want 1 2 2 1, 1",
			temp(got, 180, 2), temp(got, 600, 0), temp(got, 900, 10), temp(got, 60, 0), len(got.Think))
	}
	if len(got.Classes) != 1 || got.Classes[0].MinSeconds != 480 || got.Classes[0].MaxSeconds != 1500 || got.Classes[0].TimeClass != "rapid 600+0" {
		t.Errorf("blitz start + rapid fit: classes %+v, want rapid over [480, 1500)", got.Classes)
	}

	got, err = Merge(got, cal("rapid 900+10", 3), games.Rapid)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Classes) != 1 || temp(got, 600, 0) != 3 || temp(got, 180, 2) != 1 {
		t.Errorf("a second rapid fit: %d classes, temperatures %v (600+0) %v (180+2); want 1, 3, 1", len(got.Classes), temp(got, 600, 0), temp(got, 180, 2))
	}

	bullet := cal("bullet 60+0", 4)
	got, err = Merge(got, bullet, games.Bullet)
	if err != nil {
		t.Fatal(err)
	}
	refit, err := Merge(got, cal("blitz 180+2", 5), games.Blitz)
	if err != nil {
		t.Fatal(err)
	}
	if len(refit.Classes) != 2 || temp(refit, 180, 2) != 5 || temp(refit, 600, 0) != 3 || temp(refit, 60, 0) != 4 {
		t.Errorf("a blitz refit: %d classes, temperatures %v (180+2) %v (600+0) %v (60+0); want 2, 5, 3, 4",
			len(refit.Classes), temp(refit, 180, 2), temp(refit, 600, 0), temp(refit, 60, 0))
	}

	if got, err := Merge(nil, rapid, games.Rapid); err != nil || got.TimeClass != "rapid 600+0" || len(got.Classes) != 0 {
		t.Errorf("no start: %+v, %v; want the fitted points as the base", got, err)
	}
	if _, err := Merge(blitz, cal("correspondence", 1), games.Correspondence); !errors.Is(err, ErrConfig) {
		t.Errorf("correspondence: %v, want ErrConfig", err)
	}
}

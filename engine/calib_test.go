package engine

import (
	"context"
	"errors"
	"math"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/humchess/humchess/nets"
	"github.com/humchess/humchess/nets/calib"
	"github.com/humchess/humchess/policy"
	"github.com/humchess/humchess/uci"
)

// TestCalibrationMapsStrength: with a calibration beside the NetFile, the
// net receives the calibrated rating inputs and the policy the calibrated
// temperature, top-p, filter scale, focus and guidance; with Calibration off, or no file,
// UCI_Elo goes to the net as is; a calibration for another net is refused.
func TestCalibrationMapsStrength(t *testing.T) {
	fake := nets.NewFake(1)
	hash := fake.Info().Hash
	dir := t.TempDir()
	withCal := filepath.Join(dir, "net.onnx")
	otherCal := filepath.Join(dir, "other.onnx")
	noCal := filepath.Join(dir, "plain.onnx")
	c := &calib.Calibration{Version: calib.Version, Net: "fake-1", NetHash: hash, TimeClass: "blitz 180+2", Points: []calib.Point{
		{Elo: 800, Rating: 1000, Temperature: 0.5, TopP: 0.8, BlunderScale: 0.4},
		{Elo: 2400, Rating: 2000, Temperature: 1.5, TopP: 1, BlunderScale: 2, Candidates: 9, Focus: 2, Guidance: 1, GuidanceRating: 600},
	}}
	if err := c.WriteFile(calib.PathFor(withCal)); err != nil {
		t.Fatal(err)
	}
	other := *c
	other.NetHash = "0000"
	if err := other.WriteFile(calib.PathFor(otherCal)); err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		name      string
		netFile   string
		off       bool
		elo, opp  int
		wantNotes []string
		wantErr   error
	}{
		{name: "calibrated", netFile: withCal, elo: 1600, opp: 800,
			wantNotes: []string{"context mover 1500 opponent 1000", "temperature 1.00 top-p 0.90 filter scale 1.20 focus 1.00 candidates 9 guidance 0.50 at 600"}},
		{name: "calibrated, scaled by the options", netFile: withCal, elo: 800, opp: 2400,
			wantNotes: []string{"context mover 1000 opponent 2000", "temperature 0.50 top-p 0.80 filter scale 0.40 focus 0.00 candidates 0 guidance 0.00 at 0"}},
		{name: "calibration off", netFile: withCal, off: true, elo: 1600, opp: 800,
			wantNotes: []string{"context mover 1600 opponent 800", "temperature 1.00 top-p 1.00 filter scale 1.00 focus 0.00 candidates 0", "calibration off"}},
		{name: "no calibration", netFile: noCal, elo: 1600, opp: 800,
			wantNotes: []string{"context mover 1600 opponent 800", "temperature 1.00 top-p 1.00 filter scale 1.00", "calibration none for this net"}},
		{name: "another net's", netFile: otherCal, elo: 1600, opp: 800, wantErr: calib.ErrOtherNet},
		{name: "another net's, off", netFile: otherCal, off: true, elo: 1600, opp: 800,
			wantNotes: []string{"context mover 1600 opponent 800"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := New(func(string, int) (nets.Net, error) { return nets.NewFake(1), nil })
			defer e.Close()
			o := uci.DefaultOptions()
			o.NetFile, o.Elo, o.OpponentElo, o.Calibration, o.HumanTiming, o.Seed = tt.netFile, tt.elo, tt.opp, !tt.off, false, 1
			if err := e.Configure(o); err != nil {
				t.Fatalf("Configure: %v", err)
			}
			err := e.Ready()
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("Ready = %v, want %v", err, tt.wantErr)
				}
				if _, err := e.Think(context.Background(), uci.Limits{WTime: -1, BTime: -1, WInc: -1, BInc: -1}); !errors.Is(err, tt.wantErr) {
					t.Errorf("Think = %v, want %v", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("Ready: %v", err)
			}
			res, err := e.Think(context.Background(), uci.Limits{WTime: 180 * time.Second, BTime: 180 * time.Second, WInc: 2 * time.Second, BInc: 2 * time.Second})
			if err != nil {
				t.Fatalf("Think: %v", err)
			}
			notes := strings.Join(res.Notes, "\n")
			for _, w := range tt.wantNotes {
				if !strings.Contains(notes, w) {
					t.Errorf("UCI_Elo %d opponent %d: notes lack %q:\n%s", tt.elo, tt.opp, w, notes)
				}
			}
		})
	}
}

// TestCalibrationByTimeClass: a calibration's class points play the games
// whose time control (from the first go's clocks, or the TimeControl
// option) falls in their range; every other game, and a game without a
// known control, plays by the base points.
func TestCalibrationByTimeClass(t *testing.T) {
	hash := nets.NewFake(1).Info().Hash
	netFile := filepath.Join(t.TempDir(), "net.onnx")
	c := &calib.Calibration{Version: calib.Version, Net: "fake-1", NetHash: hash, TimeClass: "blitz 180+2", Points: []calib.Point{
		{Elo: 1600, Rating: 1500, Temperature: 0.5, TopP: 1, BlunderScale: 0.4},
	}, Classes: []calib.ClassPoints{{TimeClass: "rapid 600+0", MinSeconds: 480, MaxSeconds: 1500, Points: []calib.Point{
		{Elo: 1600, Rating: 1700, Temperature: 1.5, TopP: 1, BlunderScale: 2},
	}}}}
	if err := c.WriteFile(calib.PathFor(netFile)); err != nil {
		t.Fatal(err)
	}
	blitz := []string{"context mover 1500 opponent 1500", "temperature 0.50 top-p 1.00 filter scale 0.40", "calibration fake-1, blitz 180+2"}
	rapid := []string{"context mover 1700 opponent 1700", "temperature 1.50 top-p 1.00 filter scale 2.00", "calibration fake-1, rapid 600+0"}
	clocks := func(base, inc time.Duration) uci.Limits {
		return uci.Limits{WTime: base, BTime: base, WInc: inc, BInc: inc}
	}
	none := uci.Limits{WTime: -1, BTime: -1, WInc: -1, BInc: -1}
	tests := []struct {
		name   string
		option int // the TimeControl option, seconds
		lim    uci.Limits
		want   []string
	}{
		{"blitz clocks", 0, clocks(180*time.Second, 2*time.Second), blitz},
		{"rapid clocks", 0, clocks(600*time.Second, 0), rapid},
		{"rapid by increment (300+5)", 0, clocks(300*time.Second, 5*time.Second), rapid},
		{"classical: outside every class", 0, clocks(1800*time.Second, 0), blitz},
		{"no clocks, no control", 0, none, blitz},
		{"no clocks, TimeControl 900", 900, none, rapid},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := New(func(string, int) (nets.Net, error) { return nets.NewFake(1), nil })
			defer e.Close()
			o := uci.DefaultOptions()
			o.NetFile, o.Elo, o.OpponentElo, o.HumanTiming, o.Seed, o.TimeControl = netFile, 1600, 1600, false, 1, tt.option
			if err := e.Configure(o); err != nil {
				t.Fatalf("Configure: %v", err)
			}
			if err := e.Ready(); err != nil {
				t.Fatalf("Ready: %v", err)
			}
			res, err := e.Think(context.Background(), tt.lim)
			if err != nil {
				t.Fatalf("Think: %v", err)
			}
			notes := strings.Join(res.Notes, "\n")
			for _, w := range tt.want {
				if !strings.Contains(notes, w) {
					t.Errorf("notes lack %q:\n%s", w, notes)
				}
			}
		})
	}
}

// calibratedThink writes c beside a fake net's file and returns a
// HumanTiming think time and the notes for the position given, with
// Calibration on or off (seed 1, TimeControl 1800).
func calibratedThink(t *testing.T, c *calib.Calibration, on bool, fen string, moves []string, lim uci.Limits) (time.Duration, string) {
	t.Helper()
	netFile := filepath.Join(t.TempDir(), "net.onnx")
	if err := c.WriteFile(calib.PathFor(netFile)); err != nil {
		t.Fatal(err)
	}
	e := New(func(string, int) (nets.Net, error) { return nets.NewFake(1), nil })
	defer e.Close()
	o := uci.DefaultOptions()
	o.NetFile, o.Calibration, o.HumanTiming, o.Seed, o.TimeControl = netFile, on, true, 1, 1800
	if err := e.Configure(o); err != nil {
		t.Fatalf("Configure: %v", err)
	}
	if err := e.Ready(); err != nil {
		t.Fatalf("Ready: %v", err)
	}
	if fen != "" {
		if err := e.SetPosition(fen, moves); err != nil {
			t.Fatalf("SetPosition: %v", err)
		}
	}
	res, err := e.Think(context.Background(), lim)
	if err != nil {
		t.Fatalf("Think: %v", err)
	}
	return res.Think, strings.Join(res.Notes, "\n")
}

// TestCalibrationScalesThink: a calibration's think-time scale and power at
// the game's time control reshape HumanTiming's think time (the same seed,
// move and draw; a 30-minute clock, so that no safety limit caps it), and
// shows in the notes; with Calibration off it is 1.
func TestCalibrationScalesThink(t *testing.T) {
	// Identity points: the calibration changes nothing but the think time.
	c := &calib.Calibration{Version: calib.Version, Net: "fake-1", NetHash: nets.NewFake(1).Info().Hash, TimeClass: "blitz 180+2",
		Points: []calib.Point{calib.Identity(800), calib.Identity(2400)},
		Think:  []calib.ThinkPoint{{Base: 1800, Inc: 0, Scale: 0.5, Power: 0.9, Moves: 1000}}}
	lim := uci.Limits{WTime: 1790 * time.Second, BTime: 1800 * time.Second, WInc: -1, BInc: -1}
	off, offNotes := calibratedThink(t, c, false, "", nil, lim)
	on, onNotes := calibratedThink(t, c, true, "", nil, lim)
	if off <= 0 {
		t.Fatalf("no think time with HumanTiming on a 30-minute clock:\n%s", offNotes)
	}
	if d := on.Seconds() - 0.5*math.Pow(off.Seconds(), 0.9); d > 1e-6 || d < -1e-6 {
		t.Errorf("think %v with the calibration's scale 0.5 and power 0.9, %v without: want 0.5 t^0.9", on, off)
	}
	if !strings.Contains(onNotes, "think scale 0.50 power 0.90") || !strings.Contains(offNotes, "think scale 1.00 power 1.00") {
		t.Errorf("notes lack the think scale:\n%s\n---\n%s", onNotes, offNotes)
	}
}

// TestCalibrationRecapture: a calibration's recapture factor at the game's
// time control replaces policy.RecaptureFactor. Black's two legal moves
// both take back the queen that just captured on b7, so the same seed
// gives the same draw, scaled by the factor alone.
func TestCalibrationRecapture(t *testing.T) {
	c := &calib.Calibration{Version: calib.Version, Net: "fake-1", NetHash: nets.NewFake(1).Info().Hash, TimeClass: "blitz 180+2",
		Points: []calib.Point{calib.Identity(800), calib.Identity(2400)},
		Think:  []calib.ThinkPoint{{Base: 1800, Inc: 0, Scale: 1, Recapture: 0.4, Moves: 1000}}}
	const fen = "k7/1p6/8/1Q6/8/8/1r6/6K1 w - - 0 1"
	lim := uci.Limits{WTime: 1700 * time.Second, BTime: 1790 * time.Second, WInc: -1, BInc: -1}
	off, offNotes := calibratedThink(t, c, false, fen, []string{"b5b7"}, lim)
	on, onNotes := calibratedThink(t, c, true, fen, []string{"b5b7"}, lim)
	if off <= 0 {
		t.Fatalf("no think time with HumanTiming on a 30-minute clock:\n%s", offNotes)
	}
	if d := on.Seconds() - off.Seconds()*0.4/policy.RecaptureFactor; d > 1e-6 || d < -1e-6 {
		t.Errorf("recapture think %v with the calibration's factor 0.4, %v with the default %v", on, off, policy.RecaptureFactor)
	}
	if !strings.Contains(onNotes, "recapture 0.40") || !strings.Contains(offNotes, "recapture 0.80") {
		t.Errorf("notes lack the recapture factor:\n%s\n---\n%s", onNotes, offNotes)
	}
}

// TestCalibrationPaceTop: a calibration's pace cap at the game's time
// control replaces policy.PaceTop in time trouble. With 9.5 s left the cap
// sets the pace (half the free clock is above every cap here), so the same
// draw scales by the caps' ratio, up to the safe limit; with Calibration
// off the cap is policy.PaceTop.
func TestCalibrationPaceTop(t *testing.T) {
	cal := func(top float64) *calib.Calibration {
		return &calib.Calibration{Version: calib.Version, Net: "fake-1", NetHash: nets.NewFake(1).Info().Hash, TimeClass: "blitz 180+2",
			Points: []calib.Point{calib.Identity(800), calib.Identity(2400)},
			Think:  []calib.ThinkPoint{{Base: 1800, Inc: 0, Scale: 1, PaceTop: top, Moves: 1000}}}
	}
	lim := uci.Limits{WTime: 9500 * time.Millisecond, BTime: 1790 * time.Second, WInc: -1, BInc: -1}
	clock := policy.Clock{Remaining: lim.WTime, Base: 1800 * time.Second, Overhead: time.Duration(uci.DefaultOptions().MoveOverhead) * time.Millisecond}
	if _, trouble := clock.Pace(); !trouble {
		t.Fatalf("%v left of 1800+0 is not time trouble: the test needs a clock in trouble", lim.WTime)
	}
	limit := clock.SafeLimit()
	short, shortNotes := calibratedThink(t, cal(0.2), true, "", nil, lim)
	long, longNotes := calibratedThink(t, cal(0.5), true, "", nil, lim)
	_, offNotes := calibratedThink(t, cal(0.5), false, "", nil, lim)
	if short <= 0 || short >= limit {
		t.Fatalf("think %v with a 0.2 s cap: the test needs one above 0 and below the safe limit %v\n%s", short, limit, shortNotes)
	}
	want := min(time.Duration(float64(short)*0.5/0.2), limit)
	if d := long - want; d > time.Microsecond || d < -time.Microsecond {
		t.Errorf("think %v with a 0.5 s pace cap, %v with 0.2 s: want %v", long, short, want)
	}
	if !strings.Contains(longNotes, "pace top 0.50s") || !strings.Contains(offNotes, "pace top 1.30s") {
		t.Errorf("notes lack the pace cap:\n%s\n---\n%s", longNotes, offNotes)
	}
}

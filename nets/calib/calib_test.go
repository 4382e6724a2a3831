package calib

import (
	"bytes"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func sample() *Calibration {
	return &Calibration{Version: Version, Net: "hc-test", NetHash: "abc123", TimeClass: "blitz 180+2", Points: []Point{
		{Elo: 800, Rating: 1000, Temperature: 0.5, TopP: 0.9, BlunderScale: 0.5, Candidates: 6},
		{Elo: 1600, Rating: 1400, Temperature: 1.0, TopP: 1, BlunderScale: 1.5, Candidates: 10},
		{Elo: 2400, Rating: 2600, Temperature: 0.3, TopP: 0.5, BlunderScale: 0.1, Focus: 2, Guidance: 1, GuidanceRating: 600},
	}, Think: []ThinkPoint{
		{Base: 60, Inc: 0, Scale: 1.1, Moves: 3000},
		{Base: 300, Inc: 0, Scale: 0.8, Power: 0.9, Recapture: 0.6, Moves: 3000},
		{Base: 600, Inc: 5, Scale: 0.6, Power: 0.8, PaceTop: 2.1, Moves: 3000}, // duration 800
		{Base: 180, Inc: 2, Scale: 1.0, Moves: 3000},                           // duration 260: out of order on purpose
	}, Classes: []ClassPoints{
		{TimeClass: "bullet 60+0", MinSeconds: 30, MaxSeconds: 180, Points: []Point{
			{Elo: 1000, Rating: 900, Temperature: 2, TopP: 1, BlunderScale: 3},
		}},
		{TimeClass: "rapid 600+0", MinSeconds: 480, MaxSeconds: 1500, Measured: "rapid games", Points: []Point{
			{Elo: 800, Rating: 800, Temperature: 1.5, TopP: 1, BlunderScale: 2},
			{Elo: 2400, Rating: 2400, Temperature: 0.2, TopP: 1, BlunderScale: 0.2},
		}},
	}}
}

func TestAt(t *testing.T) {
	c := sample()
	tests := []struct {
		elo  int
		want Point
	}{
		{800, Point{Elo: 800, Rating: 1000, Temperature: 0.5, TopP: 0.9, BlunderScale: 0.5, Candidates: 6}},
		{1200, Point{Elo: 1200, Rating: 1200, Temperature: 0.75, TopP: 0.95, BlunderScale: 1.0, Candidates: 10}},
		{2000, Point{Elo: 2000, Rating: 2000, Temperature: 0.65, TopP: 0.75, BlunderScale: 0.8, Candidates: 10, Focus: 1, Guidance: 0.5, GuidanceRating: 600}},
		{2400, Point{Elo: 2400, Rating: 2600, Temperature: 0.3, TopP: 0.5, BlunderScale: 0.1, Focus: 2, Guidance: 1, GuidanceRating: 600}},
		// beyond the ends: the end's settings, the rating shifted by the distance
		{600, Point{Elo: 600, Rating: 800, Temperature: 0.5, TopP: 0.9, BlunderScale: 0.5, Candidates: 6}},
		{2600, Point{Elo: 2600, Rating: 2800, Temperature: 0.3, TopP: 0.5, BlunderScale: 0.1, Focus: 2, Guidance: 1, GuidanceRating: 600}},
	}
	for _, tt := range tests {
		got := c.At(tt.elo)
		if got.Elo != tt.want.Elo || got.Candidates != tt.want.Candidates || !close(got.Rating, tt.want.Rating) ||
			!close(got.Temperature, tt.want.Temperature) || !close(got.TopP, tt.want.TopP) || !close(got.BlunderScale, tt.want.BlunderScale) ||
			!close(got.Focus, tt.want.Focus) || !close(got.Guidance, tt.want.Guidance) || !close(got.GuidanceRating, tt.want.GuidanceRating) {
			t.Errorf("At(%d) = %+v, want %+v", tt.elo, got, tt.want)
		}
	}
	var none *Calibration
	if got := none.At(1500); got != Identity(1500) {
		t.Errorf("nil.At(1500) = %+v, want %+v", got, Identity(1500))
	}
}

func close(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

func TestValidate(t *testing.T) {
	tests := []struct {
		name string
		mod  func(c *Calibration)
	}{
		{"version", func(c *Calibration) { c.Version = 2 }},
		{"no hash", func(c *Calibration) { c.NetHash = "" }},
		{"no points", func(c *Calibration) { c.Points = nil }},
		{"order", func(c *Calibration) { c.Points[1].Elo = 800 }},
		{"rating", func(c *Calibration) { c.Points[0].Rating = 0 }},
		{"temperature", func(c *Calibration) { c.Points[0].Temperature = math.NaN() }},
		{"top_p", func(c *Calibration) { c.Points[0].TopP = 1.5 }},
		{"blunder_scale", func(c *Calibration) { c.Points[0].BlunderScale = -1 }},
		{"candidates", func(c *Calibration) { c.Points[0].Candidates = -1 }},
		{"focus", func(c *Calibration) { c.Points[2].Focus = math.Inf(1) }},
		{"negative focus", func(c *Calibration) { c.Points[2].Focus = -0.5 }},
		{"negative guidance", func(c *Calibration) { c.Points[2].Guidance = -1 }},
		{"guidance without a contrast", func(c *Calibration) { c.Points[2].GuidanceRating = 0 }},
		{"guidance rating", func(c *Calibration) { c.Points[2].GuidanceRating = math.NaN() }},
		{"class range", func(c *Calibration) { c.Classes[1].MaxSeconds = 400 }},
		{"class range NaN", func(c *Calibration) { c.Classes[0].MinSeconds = math.NaN() }},
		{"class negative", func(c *Calibration) { c.Classes[0].MinSeconds = -1 }},
		{"class overlap", func(c *Calibration) { c.Classes[1].MinSeconds = 100 }},
		{"class overlap open end", func(c *Calibration) { c.Classes[0].MaxSeconds = 0 }},
		{"class no points", func(c *Calibration) { c.Classes[1].Points = nil }},
		{"class order", func(c *Calibration) { c.Classes[1].Points[1].Elo = 800 }},
		{"class temperature", func(c *Calibration) { c.Classes[1].Points[0].Temperature = -1 }},
		{"think base", func(c *Calibration) { c.Think[0].Base = 0 }},
		{"think inc", func(c *Calibration) { c.Think[0].Inc = -1 }},
		{"think scale", func(c *Calibration) { c.Think[1].Scale = 0 }},
		{"think scale NaN", func(c *Calibration) { c.Think[1].Scale = math.NaN() }},
		{"think power", func(c *Calibration) { c.Think[1].Power = -1 }},
		{"think recapture", func(c *Calibration) { c.Think[1].Recapture = -0.5 }},
		{"think recapture NaN", func(c *Calibration) { c.Think[1].Recapture = math.NaN() }},
		{"think pace top", func(c *Calibration) { c.Think[1].PaceTop = -1 }},
		{"think pace top too long", func(c *Calibration) { c.Think[1].PaceTop = PaceTopMax + 0.1 }},
		{"think pace top Inf", func(c *Calibration) { c.Think[1].PaceTop = math.Inf(1) }},
	}
	if err := sample().Validate(); err != nil {
		t.Fatalf("Validate(sample) = %v", err)
	}
	for _, tt := range tests {
		c := sample()
		tt.mod(c)
		if err := c.Validate(); !errors.Is(err, ErrBad) {
			t.Errorf("%s: Validate = %v, want ErrBad", tt.name, err)
		}
	}
}

func TestForControl(t *testing.T) {
	c := sample()
	tests := []struct {
		name      string
		base, inc float64
		class     string // TimeClass of the points played by
		temp      float64
	}{
		{"blitz: the base points", 180, 2, "blitz 180+2", 0.75},
		{"rapid 600+0", 600, 0, "rapid 600+0", 1.5 + (0.2-1.5)*0.25},
		{"rapid by increment: 300+5 lasts 500 s", 300, 5, "rapid 600+0", 1.5 + (0.2-1.5)*0.25},
		{"rapid range's lower end", 480, 0, "rapid 600+0", 1.5 + (0.2-1.5)*0.25},
		{"range's upper end is outside", 1500, 0, "blitz 180+2", 0.75},
		{"bullet", 60, 0, "bullet 60+0", 2},
		{"under bullet's range", 15, 0, "blitz 180+2", 0.75},
		{"unknown base", -1, 0, "blitz 180+2", 0.75},
		{"NaN base", math.NaN(), 0, "blitz 180+2", 0.75},
		{"infinite increment read as none", 60, math.Inf(1), "bullet 60+0", 2},
	}
	for _, tt := range tests {
		got := c.ForControl(tt.base, tt.inc)
		if got.TimeClass != tt.class || !close(got.At(1200).Temperature, tt.temp) {
			t.Errorf("%s: ForControl(%v, %v) plays %q, temperature at 1200 %v; want %q, %v",
				tt.name, tt.base, tt.inc, got.TimeClass, got.At(1200).Temperature, tt.class, tt.temp)
		}
		if got.NetHash != c.NetHash || len(got.Think) != len(c.Think) {
			t.Errorf("%s: ForControl lost the net hash or the think points", tt.name)
		}
	}
	if got := c.ForControl(600, 0); got.Measured != "rapid games" || got.Classes != nil {
		t.Errorf("ForControl(600, 0): measured %q, classes %v; want the class's, none", got.Measured, got.Classes)
	}
	var none *Calibration
	if got := none.ForControl(600, 0); got != nil {
		t.Errorf("nil.ForControl = %v, want nil", got)
	}
}

func TestWithClass(t *testing.T) {
	c := sample()
	rapid := ClassPoints{TimeClass: "rapid 900+10", MinSeconds: 480, MaxSeconds: 1500, Points: []Point{Identity(1500)}}
	got, err := c.WithClass(rapid)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Classes) != 2 || got.Classes[1].TimeClass != "rapid 900+10" || got.Classes[0].TimeClass != "bullet 60+0" {
		t.Errorf("WithClass(rapid) classes = %+v, want bullet and the new rapid", got.Classes)
	}
	if len(c.Classes) != 2 || c.Classes[1].TimeClass != "rapid 600+0" {
		t.Errorf("WithClass changed its receiver: %+v", c.Classes)
	}
	classical := ClassPoints{TimeClass: "classical 1800+0", MinSeconds: 1500, Points: []Point{Identity(1500)}}
	got, err = got.WithClass(classical)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(got.Classes); n != 3 || got.Classes[2].TimeClass != "classical 1800+0" {
		t.Errorf("WithClass(classical) classes = %+v, want three in order", got.Classes)
	}
	if _, err := c.WithClass(ClassPoints{TimeClass: "overlapping", MinSeconds: 100, MaxSeconds: 500, Points: []Point{Identity(1500)}}); !errors.Is(err, ErrBad) {
		t.Errorf("WithClass(overlapping) = %v, want ErrBad", err)
	}
}

func TestRoundTrip(t *testing.T) {
	c := sample()
	c.Measured = "humchess calibrate, 3 rounds"
	var b bytes.Buffer
	if err := c.Write(&b); err != nil {
		t.Fatal(err)
	}
	got, err := Read(bytes.NewReader(b.Bytes()))
	if err != nil {
		t.Fatalf("Read(%s) = %v", b.String(), err)
	}
	var b2 bytes.Buffer
	if err := got.Write(&b2); err != nil {
		t.Fatal(err)
	}
	if b.String() != b2.String() {
		t.Errorf("round trip changed the file:\n%s\nbecame\n%s", b.String(), b2.String())
	}
	if _, err := Read(strings.NewReader(strings.Replace(b.String(), `"net"`, `"nett"`, 1))); !errors.Is(err, ErrBad) {
		t.Errorf("Read with an unknown field = %v, want ErrBad", err)
	}
}

func TestPathFor(t *testing.T) {
	for in, want := range map[string]string{
		"nets/hc-1.onnx":     "nets/hc-1.calib.json",
		"m/maia-1500.pb.gz":  "m/maia-1500.calib.json",
		"x.safetensors":      "x.calib.json",
		"weird":              "weird.calib.json",
		"dir.onnx/hc-2.onnx": "dir.onnx/hc-2.calib.json",
	} {
		if got := PathFor(in); got != want {
			t.Errorf("PathFor(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestFor: the file beside the net, none, another net's, the shipped set
// for the default net.
func TestFor(t *testing.T) {
	dir := t.TempDir()
	net := filepath.Join(dir, "hc-test.onnx")
	if c, err := For(net, "abc123"); c != nil || err != nil {
		t.Errorf("For without a file = %v, %v; want nil, nil", c, err)
	}
	if err := sample().WriteFile(PathFor(net)); err != nil {
		t.Fatal(err)
	}
	c, err := For(net, "abc123")
	if err != nil || c == nil || c.Net != "hc-test" || len(c.Points) != 3 {
		t.Errorf("For with the file = %+v, %v; want the sample", c, err)
	}
	if _, err := For(net, "def456"); !errors.Is(err, ErrOtherNet) {
		t.Errorf("For another net's hash = %v, want ErrOtherNet", err)
	}
	if err := os.WriteFile(PathFor(net), []byte("{"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := For(net, "abc123"); !errors.Is(err, ErrBad) {
		t.Errorf("For a malformed file = %v, want ErrBad", err)
	}
	if c, err := For("", "no-such-hash"); c != nil || err != nil {
		t.Errorf("For the default net with an unknown hash = %v, %v; want nil, nil", c, err)
	}
}

func TestThinkAt(t *testing.T) {
	c := sample()
	tests := []struct {
		base, inc, scale, power float64
	}{
		{60, 0, 1.1, 1},     // exact, power 0 read as 1
		{300, 0, 0.8, 0.9},  // exact, though 180+2 and 600+5 lie around it
		{180, 2, 1.0, 1},    // exact
		{15, 0, 1.1, 1},     // below the shortest: its values
		{1800, 0, 0.6, 0.8}, // beyond the longest: its values
		{0, 0, 1, 1},        // unknown base
		{-1, 5, 1, 1},       // unknown base
		// 500+0: duration 500 between 300 (0.8, 0.9) and 800 (0.6, 0.8), linear in log duration.
		{500, 0, 0.8 + math.Log(500.0/300)/math.Log(800.0/300)*(0.6-0.8), 0.9 + math.Log(500.0/300)/math.Log(800.0/300)*(0.8-0.9)},
		// 120+1: duration 160 between 60 (1.1, 1) and 260 (1.0, 1).
		{120, 1, 1.1 + math.Log(160.0/60)/math.Log(260.0/60)*(1.0-1.1), 1},
	}
	for _, tt := range tests {
		scale, power := c.ThinkAt(tt.base, tt.inc)
		if math.Abs(scale-tt.scale) > 1e-9 || math.Abs(power-tt.power) > 1e-9 {
			t.Errorf("ThinkAt(%v, %v) = %v, %v; want %v, %v", tt.base, tt.inc, scale, power, tt.scale, tt.power)
		}
	}
	var none *Calibration
	if s, p := none.ThinkAt(600, 0); s != 1 || p != 1 {
		t.Errorf("nil calibration: ThinkAt = %v, %v; want 1, 1", s, p)
	}
	c.Think = nil
	if s, p := c.ThinkAt(600, 0); s != 1 || p != 1 {
		t.Errorf("no think points: ThinkAt = %v, %v; want 1, 1", s, p)
	}
}

func TestRecaptureAt(t *testing.T) {
	c := sample()
	const def = 0.8
	tests := []struct {
		base, inc, want float64
	}{
		{300, 0, 0.6},  // exact
		{60, 0, def},   // exact, 0 read as the default
		{1800, 0, def}, // beyond the longest, which has none
		{0, 0, def},    // unknown base
		// 500+0: between 300 (0.6) and 600+5 (duration 800, the default).
		{500, 0, 0.6 + math.Log(500.0/300)/math.Log(800.0/300)*(def-0.6)},
		// 240+0 (duration 240) lies between 60+0 and 180+2, both the default.
		{240, 0, def},
	}
	for _, tt := range tests {
		if got := c.RecaptureAt(tt.base, tt.inc, def); math.Abs(got-tt.want) > 1e-9 {
			t.Errorf("RecaptureAt(%v, %v) = %v; want %v", tt.base, tt.inc, got, tt.want)
		}
	}
	var none *Calibration
	if got := none.RecaptureAt(300, 0, def); got != def {
		t.Errorf("nil calibration: RecaptureAt = %v; want %v", got, def)
	}
	// 280+0 (duration 280) lies between 180+2 (260, default) and 300+0.
	want := def + math.Log(280.0/260)/math.Log(300.0/260)*(0.6-def)
	if got := c.RecaptureAt(280, 0, def); math.Abs(got-want) > 1e-9 {
		t.Errorf("RecaptureAt(280, 0) = %v; want %v", got, want)
	}
}

func TestPaceTopAt(t *testing.T) {
	c := sample()
	const def = 1.3
	tests := []struct {
		base, inc, want float64
	}{
		{600, 5, 2.1},  // exact
		{300, 0, def},  // exact, 0 read as the default
		{1800, 0, 2.1}, // beyond the longest
		{-5, 0, def},   // unknown base
		// 500+0: between 300 (the default) and 600+5 (duration 800, 2.1).
		{500, 0, def + math.Log(500.0/300)/math.Log(800.0/300)*(2.1-def)},
	}
	for _, tt := range tests {
		if got := c.PaceTopAt(tt.base, tt.inc, def); math.Abs(got-tt.want) > 1e-9 {
			t.Errorf("PaceTopAt(%v, %v) = %v; want %v", tt.base, tt.inc, got, tt.want)
		}
	}
	var none *Calibration
	if got := none.PaceTopAt(600, 5, def); got != def {
		t.Errorf("nil calibration: PaceTopAt = %v; want %v", got, def)
	}
}

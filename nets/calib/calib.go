// Package calib is the UCI_Elo calibration that travels with a net: for a
// few UCI_Elo labels, the settings that make the net play like humans of
// that rating (the rating given to the net, a temperature, a top-p, the
// blunder filter's scale and width), fitted by `humchess calibrate`, and
// the interpolation between them; and the think-time scale by time
// control. A net file NAME.onnx carries its
// calibration beside it as NAME.calib.json; the calibrations of shipped
// nets are embedded here (shipped/), found by the net's weight hash. It
// must not know UCI, policy or how a net is built.
package calib

import (
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path"
	"sort"
	"strings"
)

// Version is the format version this package reads and writes.
const Version = 1

// ErrBad means a calibration file is malformed or inconsistent.
var ErrBad = errors.New("calib: bad calibration")

// ErrOtherNet means a calibration was fitted for another net.
var ErrOtherNet = errors.New("calib: the calibration belongs to another net")

// Point is the settings at one UCI_Elo label.
type Point struct {
	Elo          int     `json:"elo"`             // the UCI_Elo label (Elo)
	Rating       float64 `json:"rating"`          // the rating input given to the net for this label (Elo)
	Temperature  float64 `json:"temperature"`     // multiplies the Temperature option (1 = unchanged)
	TopP         float64 `json:"top_p"`           // caps the TopP option (0..1; 1 = unchanged)
	BlunderScale float64 `json:"blunder_scale"`   // multiplies BlunderThreshold (1 = unchanged, 0 = only the best candidate passes)
	Candidates   int     `json:"candidates"`      // candidates the blunder filter evaluates; 0 = the policy's default
	Focus        float64 `json:"focus,omitempty"` // narrows the filter's tolerance in easy positions (policy.FocusThreshold); 0 = the same everywhere
	// Guidance pushes the net's logits away from those it gives at the
	// mover's rating GuidanceRating (policy.Guide); 0 = none.
	Guidance       float64 `json:"guidance,omitempty"`
	GuidanceRating float64 `json:"guidance_rating,omitempty"` // the contrast's rating input (Elo)
}

// Calibration maps UCI_Elo labels to settings for one net.
type Calibration struct {
	Version   int    `json:"version"`
	Net       string `json:"net"`        // the net's name when fitted (informative)
	NetHash   string `json:"net_sha256"` // the net's weight hash (nets.Info.Hash); the calibration applies to this net only
	TimeClass string `json:"time_class"` // the games it was fitted on, e.g. "blitz 180+2"
	// Measured says how the points were measured: the command, the
	// Stockfish budget, the games played; free text.
	Measured string  `json:"measured"`
	Points   []Point `json:"points"` // by increasing Elo
	// Classes are points fitted in games of other time classes: a game
	// whose time control falls in one's range plays by its points
	// (ForControl), every other game by Points.
	Classes []ClassPoints `json:"classes,omitempty"`
	// Think scales the think-time head's draws by time control, so the
	// engine spends its clock as humans of that control do; none = 1
	// everywhere. ThinkMeasured says how it was fitted; free text.
	Think         []ThinkPoint `json:"think,omitempty"`
	ThinkMeasured string       `json:"think_measured,omitempty"`
}

// ClassPoints are the UCI_Elo points fitted in games of one time class.
// They apply to the time controls whose estimated duration, base + 40 x
// increment seconds (ThinkPoint.Duration), is at least MinSeconds and
// under MaxSeconds (0: no upper end).
type ClassPoints struct {
	TimeClass  string  `json:"time_class"` // the games they were fitted on, e.g. "rapid 600+0"
	MinSeconds float64 `json:"min_seconds"`
	MaxSeconds float64 `json:"max_seconds"`
	Measured   string  `json:"measured"` // how; free text
	Points     []Point `json:"points"`   // by increasing Elo
}

// holds says whether a game of estimated duration d seconds is in the range.
func (p ClassPoints) holds(d float64) bool {
	return d >= p.MinSeconds && (p.MaxSeconds == 0 || d < p.MaxSeconds)
}

// overlaps says whether two ranges share a duration.
func (p ClassPoints) overlaps(q ClassPoints) bool {
	below := func(a, b ClassPoints) bool { return a.MaxSeconds != 0 && a.MaxSeconds <= b.MinSeconds } // a wholly below b
	return !below(p, q) && !below(q, p)
}

// ForControl returns the calibration a game of time control base+inc
// (seconds) plays by: c with Points, TimeClass and Measured of the class
// whose range holds the control's estimated duration; c itself when none
// does, the base is unknown (0 or below) or c is nil.
func (c *Calibration) ForControl(base, inc float64) *Calibration {
	base, inc, ok := control(base, inc)
	if c == nil || !ok {
		return c
	}
	d := ThinkPoint{Base: base, Inc: inc}.Duration()
	for _, cp := range c.Classes {
		if cp.holds(d) {
			out := *c
			out.Points, out.TimeClass, out.Measured, out.Classes = cp.Points, cp.TimeClass, cp.Measured, nil
			return &out
		}
	}
	return c
}

// WithClass returns a copy of c with cp among its Classes, replacing the
// class of the same range; cp's range may not overlap another class's.
func (c *Calibration) WithClass(cp ClassPoints) (*Calibration, error) {
	out := *c
	out.Classes = nil
	for _, q := range c.Classes {
		if q.MinSeconds == cp.MinSeconds && q.MaxSeconds == cp.MaxSeconds {
			continue
		}
		out.Classes = append(out.Classes, q)
	}
	out.Classes = append(out.Classes, cp)
	sort.SliceStable(out.Classes, func(i, j int) bool { return out.Classes[i].MinSeconds < out.Classes[j].MinSeconds })
	if err := out.Validate(); err != nil {
		return nil, err
	}
	return &out, nil
}

// ThinkPoint is the think-time scale at one time control.
type ThinkPoint struct {
	Base  float64 `json:"base"`            // the time control's base, seconds
	Inc   float64 `json:"inc"`             // its increment, seconds
	Scale float64 `json:"scale"`           // the think-time head's draw t seconds becomes Scale x t^Power (1 = unchanged)
	Power float64 `json:"power,omitempty"` // 0 = 1
	// Recapture scales the think time of a recapture at this control
	// (policy.Shape.RecaptureFactor); 0 = the policy's default.
	Recapture float64 `json:"recapture,omitempty"`
	// PaceTop caps the mean think time of a move in time trouble at this
	// control, seconds (policy.Clock.PaceTop); 0 = the policy's default.
	PaceTop float64 `json:"pace_top,omitempty"`
	Moves   int     `json:"moves"` // human moves it was fitted on (informative)
}

// PaceTopMax bounds ThinkPoint.PaceTop: a move in time trouble, under
// ten seconds on the clock, never averages more.
const PaceTopMax = 5.0

// power is p's Power, 0 read as 1.
func (p ThinkPoint) power() float64 {
	if p.Power == 0 {
		return 1
	}
	return p.Power
}

// Duration is the time control's expected game length, base + 40 x
// increment seconds (lichess's estimate, which sorts its time classes).
func (p ThinkPoint) Duration() float64 { return p.Base + 40*p.Inc }

// ThinkAt is the think-time scale and power for a time control (base and
// increment in seconds): the point of that exact control, else linear in
// log Duration between the two points around it, the end points' beyond
// them; 1, 1 without points or with an unknown base (0 or below).
func (c *Calibration) ThinkAt(base, inc float64) (scale, power float64) {
	scale, ok := c.thinkAt(base, inc, func(p ThinkPoint) float64 { return p.Scale })
	if !ok {
		return 1, 1
	}
	power, _ = c.thinkAt(base, inc, ThinkPoint.power)
	return scale, power
}

// RecaptureAt is the recapture factor for a time control, found as ThinkAt
// finds the scale, a point's 0 read as def; def without points or with an
// unknown base.
func (c *Calibration) RecaptureAt(base, inc, def float64) float64 {
	return c.orDefaultAt(base, inc, def, func(p ThinkPoint) float64 { return p.Recapture })
}

// PaceTopAt is the time-trouble pace cap for a time control in seconds,
// found as ThinkAt finds the scale, a point's 0 read as def; def without
// points or with an unknown base.
func (c *Calibration) PaceTopAt(base, inc, def float64) float64 {
	return c.orDefaultAt(base, inc, def, func(p ThinkPoint) float64 { return p.PaceTop })
}

// orDefaultAt is thinkAt of v, a point's 0 read as def; def without points
// or with an unknown base.
func (c *Calibration) orDefaultAt(base, inc, def float64, v func(ThinkPoint) float64) float64 {
	f, ok := c.thinkAt(base, inc, func(p ThinkPoint) float64 {
		if x := v(p); x != 0 {
			return x
		}
		return def
	})
	if !ok {
		return def
	}
	return f
}

// control returns a time control as the lookups read it: ok is false for
// an unknown base (0 or below, or not finite); a negative or infinite
// increment is none.
func control(base, inc float64) (float64, float64, bool) {
	inc = max(inc, 0)
	if !finite(inc) {
		inc = 0
	}
	return base, inc, base > 0 && finite(base)
}

// thinkAt is v of the think point of a time control: the point of that
// exact control, else linear in log Duration between the two points
// around it, the end points' beyond them; ok is false without points or
// with an unknown base (0 or below).
func (c *Calibration) thinkAt(base, inc float64, v func(ThinkPoint) float64) (x float64, ok bool) {
	base, inc, known := control(base, inc)
	if c == nil || len(c.Think) == 0 || !known {
		return 0, false
	}
	for _, p := range c.Think {
		if p.Base == base && p.Inc == inc {
			return v(p), true
		}
	}
	ps := append([]ThinkPoint(nil), c.Think...)
	sort.SliceStable(ps, func(i, j int) bool { return ps[i].Duration() < ps[j].Duration() })
	d := ThinkPoint{Base: base, Inc: inc}.Duration()
	i := sort.Search(len(ps), func(i int) bool { return ps[i].Duration() >= d })
	switch {
	case i == 0:
		return v(ps[0]), true
	case i == len(ps):
		return v(ps[len(ps)-1]), true
	}
	a, b := ps[i-1], ps[i]
	if !(b.Duration() > a.Duration()) {
		return v(b), true
	}
	t := math.Log(d/a.Duration()) / math.Log(b.Duration()/a.Duration())
	return v(a) + t*(v(b)-v(a)), true
}

// Identity is the setting of a label without calibration: the label given
// to the net as is, every lever unchanged.
func Identity(elo int) Point {
	return Point{Elo: elo, Rating: float64(elo), Temperature: 1, TopP: 1, BlunderScale: 1}
}

// Validate checks the format version, the points' order and ranges.
func (c *Calibration) Validate() error {
	bad := func(format string, a ...any) error { return fmt.Errorf("%w: %s", ErrBad, fmt.Sprintf(format, a...)) }
	switch {
	case c.Version != Version:
		return bad("version %d, want %d", c.Version, Version)
	case c.NetHash == "":
		return bad("no net_sha256")
	case len(c.Points) == 0:
		return bad("no points")
	}
	if err := validPoints(c.Points, ""); err != nil {
		return err
	}
	for i, cp := range c.Classes {
		where := fmt.Sprintf("class %q: ", cp.TimeClass)
		switch {
		case !finite(cp.MinSeconds) || cp.MinSeconds < 0 || !finite(cp.MaxSeconds) || cp.MaxSeconds < 0 ||
			(cp.MaxSeconds != 0 && cp.MaxSeconds <= cp.MinSeconds):
			return bad("%srange [%v, %v) seconds", where, cp.MinSeconds, cp.MaxSeconds)
		case len(cp.Points) == 0:
			return bad("%sno points", where)
		}
		for _, q := range c.Classes[:i] {
			if cp.overlaps(q) {
				return bad("%soverlaps class %q", where, q.TimeClass)
			}
		}
		if err := validPoints(cp.Points, where); err != nil {
			return err
		}
	}
	for _, p := range c.Think {
		switch {
		case !finite(p.Base) || p.Base <= 0 || !finite(p.Inc) || p.Inc < 0:
			return bad("think: time control %v+%v", p.Base, p.Inc)
		case !finite(p.Scale) || p.Scale <= 0:
			return bad("think %v+%v: scale %v", p.Base, p.Inc, p.Scale)
		case !finite(p.Power) || p.Power < 0:
			return bad("think %v+%v: power %v", p.Base, p.Inc, p.Power)
		case !finite(p.Recapture) || p.Recapture < 0:
			return bad("think %v+%v: recapture %v", p.Base, p.Inc, p.Recapture)
		case !finite(p.PaceTop) || p.PaceTop < 0 || p.PaceTop > PaceTopMax:
			return bad("think %v+%v: pace_top %v not in [0, %v]", p.Base, p.Inc, p.PaceTop, PaceTopMax)
		}
	}
	return nil
}

// validPoints checks points' order and ranges; where prefixes the message.
func validPoints(ps []Point, where string) error {
	bad := func(format string, a ...any) error {
		return fmt.Errorf("%w: %s%s", ErrBad, where, fmt.Sprintf(format, a...))
	}
	for i, p := range ps {
		switch {
		case i > 0 && p.Elo <= ps[i-1].Elo:
			return bad("points not in increasing elo order at %d", p.Elo)
		case !finite(p.Rating) || p.Rating <= 0:
			return bad("elo %d: rating %v", p.Elo, p.Rating)
		case !finite(p.Temperature) || p.Temperature < 0:
			return bad("elo %d: temperature %v", p.Elo, p.Temperature)
		case !finite(p.TopP) || p.TopP <= 0 || p.TopP > 1:
			return bad("elo %d: top_p %v not in (0, 1]", p.Elo, p.TopP)
		case !finite(p.BlunderScale) || p.BlunderScale < 0:
			return bad("elo %d: blunder_scale %v", p.Elo, p.BlunderScale)
		case p.Candidates < 0:
			return bad("elo %d: candidates %d", p.Elo, p.Candidates)
		case !finite(p.Focus) || p.Focus < 0:
			return bad("elo %d: focus %v", p.Elo, p.Focus)
		case !finite(p.Guidance) || p.Guidance < 0:
			return bad("elo %d: guidance %v", p.Elo, p.Guidance)
		case !finite(p.GuidanceRating) || p.GuidanceRating < 0 || p.Guidance > 0 && p.GuidanceRating == 0:
			return bad("elo %d: guidance_rating %v", p.Elo, p.GuidanceRating)
		}
	}
	return nil
}

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

// At returns the settings for a UCI_Elo label: linear interpolation between
// the two points around it (Candidates: the larger of the two), the end
// point's settings beyond the ends with the rating shifted by the distance
// to it. A nil calibration gives Identity.
func (c *Calibration) At(elo int) Point {
	if c == nil || len(c.Points) == 0 {
		return Identity(elo)
	}
	ps := c.Points
	i := sort.Search(len(ps), func(i int) bool { return ps[i].Elo >= elo })
	var out Point
	switch {
	case i == 0:
		out = ps[0]
		out.Rating += float64(elo - ps[0].Elo)
	case i == len(ps):
		out = ps[len(ps)-1]
		out.Rating += float64(elo - out.Elo)
	case ps[i].Elo == elo:
		out = ps[i]
	default:
		a, b := ps[i-1], ps[i]
		t := float64(elo-a.Elo) / float64(b.Elo-a.Elo)
		lerp := func(x, y float64) float64 { return x + t*(y-x) }
		out = Point{Rating: lerp(a.Rating, b.Rating), Temperature: lerp(a.Temperature, b.Temperature),
			TopP: lerp(a.TopP, b.TopP), BlunderScale: lerp(a.BlunderScale, b.BlunderScale), Candidates: max(a.Candidates, b.Candidates),
			Focus: lerp(a.Focus, b.Focus), Guidance: lerp(a.Guidance, b.Guidance), GuidanceRating: lerp(a.GuidanceRating, b.GuidanceRating)}
		// Next to a point without guidance the contrast stays the guided
		// point's: only the guidance's weight ramps.
		switch {
		case a.Guidance == 0:
			out.GuidanceRating = b.GuidanceRating
		case b.Guidance == 0:
			out.GuidanceRating = a.GuidanceRating
		}
	}
	out.Elo = elo
	out.Rating = max(out.Rating, 1)
	return out
}

// Read reads and validates a calibration in JSON.
func Read(r io.Reader) (*Calibration, error) {
	dec := json.NewDecoder(r)
	dec.DisallowUnknownFields()
	var c Calibration
	if err := dec.Decode(&c); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrBad, err)
	}
	if err := c.Validate(); err != nil {
		return nil, err
	}
	return &c, nil
}

// Write writes c as indented JSON.
func (c *Calibration) Write(w io.Writer) error {
	if err := c.Validate(); err != nil {
		return err
	}
	b, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// PathFor is the calibration file beside a net file: its name without the
// net extension (.onnx, .safetensors, .pb.gz, .pb) plus ".calib.json".
func PathFor(netFile string) string {
	base := netFile
	for _, ext := range []string{".onnx", ".safetensors", ".pb.gz", ".pb"} {
		if strings.HasSuffix(base, ext) {
			base = strings.TrimSuffix(base, ext)
			break
		}
	}
	return base + ".calib.json"
}

// ReadFile reads the calibration at path.
func ReadFile(path string) (*Calibration, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	c, err := Read(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return c, nil
}

// WriteFile writes c to path (through a temporary file, renamed).
func (c *Calibration) WriteFile(path string) error {
	tmp := path + ".tmp"
	f, err := os.Create(tmp)
	if err != nil {
		return err
	}
	if err := c.Write(f); err != nil {
		_ = f.Close()
		_ = os.Remove(tmp)
		return err
	}
	if err := f.Close(); err != nil {
		_ = os.Remove(tmp)
		return err
	}
	return os.Rename(tmp, path)
}

// shippedFS holds the calibrations of shipped nets (shipped/*.calib.json).
//
//go:embed shipped
var shippedFS embed.FS

// Shipped returns the embedded calibration for the net whose weight hash
// is hash, nil when there is none.
func Shipped(hash string) (*Calibration, error) {
	return findIn(shippedFS, "shipped", hash)
}

func findIn(fsys fs.FS, dir, hash string) (*Calibration, error) {
	entries, err := fs.ReadDir(fsys, dir)
	if err != nil {
		return nil, fmt.Errorf("calib: %w", err)
	}
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".calib.json") {
			continue
		}
		f, err := fsys.Open(path.Join(dir, e.Name()))
		if err != nil {
			return nil, fmt.Errorf("calib: %w", err)
		}
		c, err := Read(f)
		_ = f.Close() // read-only
		if err != nil {
			return nil, fmt.Errorf("calib: shipped %s: %w", e.Name(), err)
		}
		if c.NetHash == hash {
			return c, nil
		}
	}
	return nil, nil
}

// For returns the calibration of a net: the file beside netFile when there
// is one, else (for the embedded default net, netFile "") the shipped one
// matching hash; nil when the net has none. A calibration fitted for
// another net (another weight hash) is ErrOtherNet.
func For(netFile, hash string) (*Calibration, error) {
	if netFile == "" {
		return Shipped(hash)
	}
	p := PathFor(netFile)
	c, err := ReadFile(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if c.NetHash != hash {
		return nil, fmt.Errorf("%w: %s was fitted for net %s (sha256 %.12s), this net's sha256 is %.12s: run humchess calibrate again or delete it",
			ErrOtherNet, p, c.Net, c.NetHash, hash)
	}
	return c, nil
}

package deadline

import (
	"strings"
	"testing"
	"time"

	"github.com/retryvet/retryvet/internal/retrymodel"
)

func TestDerive(t *testing.T) {
	s := time.Second
	for _, tc := range []struct {
		name     string
		li       *retrymodel.LayerInfo
		p99      time.Duration
		p99Posn  string
		required string
		deriv    string
		d        time.Duration
		canStart retrymodel.Tri
	}{
		{"guard", &retrymodel.LayerInfo{Name: "retry loop", Posn: "llm/client.go:56", Waits: []time.Duration{7 * s, 11 * s}, GuardPosn: "llm/client.go:58", Reserve: 65 * s, ReserveKnown: true, GuardWait: true},
			40 * s, "llm/client.go:30", "72s", "guard at llm/client.go:58: remaining >= wait + reserve (first wait 7s + reserve 65s)", 40 * s, retrymodel.No},
		{"guard without the wait", &retrymodel.LayerInfo{Name: "retry loop", Waits: []time.Duration{7 * s}, GuardPosn: "a/a.go:9", Reserve: 65 * s, ReserveKnown: true},
			0, "", "65s", "guard at a/a.go:9: remaining >= reserve (65s)", 70 * s, retrymodel.Yes},
		{"guard unfolded", &retrymodel.LayerInfo{Name: "retry loop", Waits: []time.Duration{7 * s}, GuardPosn: "a/a.go:9"},
			0, "", "unknown", "reserve cannot be folded", 70 * s, retrymodel.Unknown},
		{"attempt wait attempt", &retrymodel.LayerInfo{Name: "retry loop", Posn: "s/s.go:29", Waits: []time.Duration{2 * s, 2 * s}},
			5 * s, "s/s.go:17", "12s", "first attempt 5s (p99 5s declared at s/s.go:17) + first wait 2s + second attempt 5s", 10 * s, retrymodel.No},
		{"per-attempt timeout wins", &retrymodel.LayerInfo{Name: "retry loop", Waits: []time.Duration{1 * s}, PerAttempt: 3 * s},
			30 * s, "x", "7s", "per-attempt timeout 3s", 7 * s, retrymodel.Yes},
		{"default p99", &retrymodel.LayerInfo{Name: "openai Chat.Completions.New", Waits: []time.Duration{500 * time.Millisecond}},
			30 * s, retrymodel.DefaultP99Source, "60.5s", "p99 30s, the default p99 setting", 60 * s, retrymodel.No},
		{"attempt time unknown", &retrymodel.LayerInfo{Name: "retry loop", Waits: []time.Duration{1 * s}},
			0, "", "at least 1s", "attempt time unknown", 30 * s, retrymodel.Unknown},
		{"single attempt", &retrymodel.LayerInfo{Name: "retry loop", Attempts: 1, AttemptsKnown: true},
			0, "", "-", "single attempt", 30 * s, retrymodel.Unknown},
		{"pipeline directive", nil, 40 * s, "a/a.go:3", "-", "only the p99 is checked", 30 * s, retrymodel.Unknown},
	} {
		r := Derive("p.F", tc.li, tc.p99, tc.p99Posn)
		if got := r.RequiredString(); got != tc.required {
			t.Errorf("%s: required %s, want %s (%s)", tc.name, got, tc.required, r.Derivation)
		}
		if !strings.Contains(r.Derivation, tc.deriv) {
			t.Errorf("%s: derivation %q lacks %q", tc.name, r.Derivation, tc.deriv)
		}
		if got := r.CanStart(D{Kind: Known, D: tc.d}); got != tc.canStart {
			t.Errorf("%s: can start under %v: %v, want %v", tc.name, tc.d, got, tc.canStart)
		}
		if got := r.CanStart(D{Kind: None}); r.Retry && got != retrymodel.Yes {
			t.Errorf("%s: no deadline: %v, want yes", tc.name, got)
		}
	}
}

func TestMessages(t *testing.T) {
	s := time.Second
	r := Derive("llm.(*Client).Complete", &retrymodel.LayerInfo{Name: "retry loop", Waits: []time.Duration{7 * s, 11 * s}, GuardPosn: "llm/client.go:58", Reserve: 65 * s, ReserveKnown: true, GuardWait: true}, 40*s, "llm/client.go:30")
	if got, want := NeverStartsMessage(r, 40*s, "set here"), "retry in llm.(*Client).Complete can never start on this path: deadline 40s (set here) < 72s needed (waits 7s, 11s; reserve 65s)"; got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	if got, want := BelowP99Message(r, 22*s), "deadline 22s is below the 40s p99 of llm.(*Client).Complete: slow answers become errors and the backup is never asked"; got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

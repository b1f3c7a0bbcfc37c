package retrymodel

import (
	"testing"
	"time"
)

func TestEffectiveP99(t *testing.T) {
	defer SetDefaultP99(0)
	declared := &FuncFact{P99: 40 * time.Second, P99Posn: "llm/client.go:12:1"}
	if d, src := declared.EffectiveP99(); d != 40*time.Second || src != "llm/client.go:12:1" {
		t.Errorf("declared: %v %q", d, src)
	}
	if d, src := (*FuncFact)(nil).EffectiveP99(); d != 0 || src != "" {
		t.Errorf("no directive, no default: %v %q", d, src)
	}
	SetDefaultP99(30 * time.Second)
	if d, src := (&FuncFact{}).EffectiveP99(); d != 30*time.Second || src != DefaultP99Source {
		t.Errorf("default: %v %q", d, src)
	}
	if d, _ := declared.EffectiveP99(); d != 40*time.Second {
		t.Errorf("a directive must win over the default, got %v", d)
	}
}

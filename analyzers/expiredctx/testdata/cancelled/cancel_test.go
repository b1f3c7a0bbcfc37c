package cancelled

import (
	"context"
	"testing"
)

// A test that cancels before the call is testing the cancellation path.
func TestPingCancelled(t *testing.T) {
	n := &Notifier{}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := n.listener.Ping(ctx); err == nil {
		t.Fatal("want an error")
	}
}

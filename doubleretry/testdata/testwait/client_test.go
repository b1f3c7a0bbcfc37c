package testwait

import (
	"context"
	"os"
	"testing"
	"time"
)

// The test waits for its server the same way: quiet.
func TestHealthy(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var err error
	for i := 0; i < 3; i++ {
		if err = Ping(ctx, os.Getenv("TEST_API_URL")); err == nil {
			return
		}
		time.Sleep(250 * time.Millisecond)
	}
	t.Fatal(err)
}
